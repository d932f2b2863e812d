#!/usr/bin/env python3
"""The view across GPU models against a real server and database (a fresh
SQLite file, or --db postgres://... for the PostgreSQL suite), on SYNTHETIC
fixtures of several models (tests/server/fixtures/make_fixtures.py): the
experiment pages and their JSON, comparisons of up to four models, an upload's
standing among its model's uploads, outliers and throttled runs held, the
moderation flow and its log, and the export (row counts, CSV that cannot
become formulas, JSON lines). --chromium DIR also opens an experiment page and
a comparison in headless Chromium and keeps their screenshots in DIR."""
import csv
import http.client
import io
import json
import os
import re
import socket
import stat
import subprocess
import sys
import time

# tests/server, where the shared helpers are (harness.py, zstd_codec.py, fixtures/).
SERVER_TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, SERVER_TESTS)
sys.path.insert(0, os.path.join(SERVER_TESTS, "fixtures"))
from harness import Checks, Server, default_db, fresh_workdir  # noqa: E402
import make_fixtures as fx  # noqa: E402

MODERATOR = "moderator-secret-0123456789abcdef"


def points_of(doc):
    """Points the server keeps of a document: one per point of each series."""
    return sum(len(s["points"]) for r in doc["results"] for s in r["series"])


def post(srv, doc):
    st, _, body = srv.json("POST", "/api/v1/results", json.dumps(doc), {"Content-Type": "application/json"})
    return st, body


def main():
    import argparse
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--server", required=True)
    p.add_argument("--db", default="")
    p.add_argument("--document", required=True, help="results/nvidia-h200.json, the source of the synthetic fixtures")
    p.add_argument("--workdir", required=True)
    p.add_argument("--chromium", default="", help="a Chromium binary: check two pages in it")
    p.add_argument("--artifacts", default="", help="where the screenshots go (default: WORKDIR)")
    args = p.parse_args()
    fresh_workdir(args.workdir)
    c = Checks()
    config = os.path.join(args.workdir, "server.json")
    with open(config, "w") as f:
        json.dump({"moderator_token": MODERATOR}, f)
    os.chmod(config, stat.S_IRUSR | stat.S_IWUSR)

    # The token is never taken from the command line.
    r = subprocess.run([args.server, "--moderator-token", MODERATOR, "--db", default_db(args, "refused.sqlite")],
                       capture_output=True, text=True, timeout=30)
    c.check("--moderator-token on the command line is refused", r.returncode == 2, r.returncode)
    os.chmod(config, 0o644)
    r = subprocess.run([args.server, "--config", config, "--db", default_db(args, "refused.sqlite")], capture_output=True, text=True, timeout=30)
    c.check("a config file other users may read is refused", r.returncode == 2 and "chmod 600" in r.stderr, (r.returncode, r.stderr))
    os.chmod(config, stat.S_IRUSR | stat.S_IWUSR)

    srv = Server(args.server, default_db(args), args.workdir, ["--write-rate", "0", "--read-rate", "0", "--config", config])
    try:
        run(srv, c, args)
    finally:
        srv.stop()
    return c.finish()


def run(srv, c, args):
    base = fx.load_base(args.document)
    rng = fx.random.Random(5)
    # One model with enough uploads to be judged (9), five with two each.
    plan = [(fx.MODELS[0], 9)] + [(m, 2) for m in fx.MODELS[1:6]]
    docs, keys, ids = {}, {}, {}
    for model, n in plan:
        for i in range(n):
            doc = fx.make_document(base, model, rng, i)
            c.check("fixture is marked synthetic", doc["synthetic"] is True and doc["device"]["name"].startswith("SYNTHETIC"))
            st, body = post(srv, doc)
            ok = c.check(f"upload of {model[0]} #{i} accepted", st == 201 and body.get("status") == "accepted", (st, body))
            if not ok:
                continue
            key = body["gpu_url"].rsplit("/", 1)[1]
            keys[model[0]] = key
            docs.setdefault(key, []).append(doc)
            ids.setdefault(key, []).append(body["id"])
    h100 = keys[fx.MODELS[0][0]]
    others = [keys[m[0]] for m, _ in plan[1:]]

    # The refresher folds every upload into the aggregates, and says so.
    for _ in range(100):
        stats = srv.json("GET", "/api/v1/stats")[2]
        if stats.get("pending") == 0:
            break
        time.sleep(0.1)
    c.check("stats: results stored, none left pending", stats.get("results") == sum(map(len, ids.values())) and stats.get("pending") == 0, stats)

    # --- experiment pages and their JSON ---
    st, _, table = srv.json("GET", "/api/v1/experiments/offset_copy")
    c.check("experiment JSON: 200", st == 200, st)
    models = {m["key"]: m for m in table["models"]} if table else {}
    c.check("experiment JSON: every model", set(models) == set(docs), sorted(models))
    c.check("experiment JSON: n uploads of the judged model", models.get(h100, {}).get("uploads") == 9, models.get(h100))
    fig = models.get(h100, {}).get("figures", {}).get("guide_w4_offset1_over_offset0", {})
    want = sorted(r["summary"]["guide_w4_offset1_over_offset0"] for d in docs[h100] for r in d["results"] if r["experiment"]["name"] == "offset_copy")
    c.check("experiment JSON: the median is the uploads' median", abs(fig.get("median", -1) - want[4]) < 1e-9, (fig, want[4]))
    c.check("experiment JSON: quartiles around it", fig.get("q1", 9) <= fig.get("median", 0) <= fig.get("q3", -9), fig)
    st, _, stream = srv.json("GET", "/api/v1/experiments/stream")
    sm = {m["key"]: m for m in stream["models"]}
    c.check("normalised figures: copy / theoretical below 1 for every model",
            all(0 < m["figures"]["copy_gbs/theoretical"]["median"] < 1 for m in sm.values()), [m["figures"].get("copy_gbs/theoretical") for m in sm.values()])
    c.check("normalised figures: copy / copy is 1", all(abs(m["figures"]["copy_gbs/copy"]["median"] - 1) < 1e-9 for m in sm.values()))
    st, _, bad = srv.json("GET", "/api/v1/experiments/no_such_thing")
    c.check("unknown experiment (JSON): 404 with the valid names", st == 404 and "offset_copy" in (bad or {}).get("valid", []), (st, bad))

    st, h, page = srv.request("GET", "/experiment/offset_copy")
    text = page.decode()
    c.check("experiment page: 200 HTML", st == 200 and h.get("content-type", "").startswith("text/html"), st)
    c.check("experiment page: every model named", all(m[0] in text for m, _ in plan), "")
    c.check("experiment page: a chart", "<canvas" in text and "gmlab-charts" in text)
    c.check("experiment page: links the exports", "/api/v1/export?experiment=offset_copy&amp;format=csv" in text)
    for view in ("theoretical", "copy"):
        st, _, page = srv.request("GET", "/experiment/stream?view=" + view)
        c.check(f"experiment page, view {view}: normalised figures", st == 200 and "copy_gbs/" + view in page.decode(), st)
    st, _, page = srv.request("GET", "/experiment/offset_copy?sort=guide_w4_offset1_over_offset0&order=asc")
    rows = re.findall(r'<tr><td><a href="/gpu/([^"]+)"', page.decode())
    medians = [models[k]["figures"]["guide_w4_offset1_over_offset0"]["median"] for k in rows]
    c.check("experiment page: sorted by a figure", len(rows) == len(models) and medians == sorted(medians), medians)
    st, _, page = srv.request("GET", "/experiment/%3Cscript%3Ex")
    c.check("unknown experiment page: 404 listing the valid ones, name escaped",
            st == 404 and "offset_copy" in page.decode() and "<script>x" not in page.decode(), st)
    st, _, page = srv.request("GET", "/experiment/stream?view=bogus")
    c.check("experiment page: unknown view is 400", st == 400, st)
    st, _, home = srv.request("GET", "/")
    names = [e["name"] for e in srv.json("GET", "/api/v1/experiments")[2]["experiments"]]
    c.check("home links every experiment", len(names) >= 20 and all(f'href="/experiment/{n}"' in home.decode() for n in names),
            [n for n in names if f'href="/experiment/{n}"' not in home.decode()])

    # --- comparisons ---
    four = [h100] + others[:3]
    q = "&".join(f"{p}={k}" for p, k in zip("abcd", four))
    st, _, page = srv.request("GET", "/compare?" + q)
    text = page.decode()
    c.check("compare four models: 200", st == 200, st)
    c.check("compare four models: each named, ratios to A", all(m in text for m in four) and "D / A" in text)
    sections = re.findall(r'<section id="([^"]+)">(.*?)</section>', text, re.S)
    c.check("compare four models: a chart for every experiment", len(sections) >= 20 and all("<canvas" in body for _, body in sections),
            [n for n, body in sections if "<canvas" not in body])
    st, _, page = srv.request("GET", "/compare?" + q + "&e=" + others[3])
    c.check("compare five models: 400", st == 400, st)
    st, _, page = srv.request("GET", f"/compare?a={h100}&b=no-such-model")
    c.check("compare an unknown model: 404 listing the valid ones", st == 404 and h100 in page.decode(), st)
    st, _, page = srv.request("GET", f"/compare?gpu_a={h100}&gpu_b={others[0]}")
    c.check("compare with the older gpu_a/gpu_b: 200", st == 200, st)
    st, _, page = srv.request("GET", f"/compare?a={ids[h100][0]}&b={ids[h100][1]}")
    c.check("compare two uploads still works", st == 200, st)
    st, _, page = srv.request("GET", "/gpu/" + h100)
    c.check("model page links to the comparison", "/compare?a=" + h100 in page.decode())

    # --- an upload among its model's uploads ---
    st, _, s = srv.json("GET", f"/api/v1/results/{ids[h100][0]}/standing")
    figs = {(f["experiment"], f["figure"]): f for f in (s or {}).get("figures", [])}
    f = figs.get(("offset_copy", "guide_w4_offset1_over_offset0"), {})
    c.check("standing: accepted, percentile among 9", s and s["status"] == "accepted" and f.get("n") == 9 and 0 <= f.get("percentile", -1) <= 100, f)
    c.check("standing: a typical upload is within the usual range", not any(x.get("unusual") for x in figs.values()),
            [k for k, x in figs.items() if x.get("unusual")])
    st, _, page = srv.request("GET", "/result/" + ids[h100][0])
    c.check("result page: the standing table", st == 200 and "among its model" in page.decode() and "percentile" in page.decode(), st)

    # --- outliers and throttled runs are held ---
    outlier = fx.make_outlier(fx.make_document(base, fx.MODELS[0], rng, 20))
    st, held = post(srv, outlier)
    c.check("outlier upload: stored but held", st == 201 and held.get("status") == "held" and "outlier" in held.get("reason", ""), held)
    throttled = fx.make_throttled(fx.make_document(base, fx.MODELS[1], rng, 21))
    st, thr = post(srv, throttled)
    c.check("throttled upload: held with the reason", st == 201 and thr.get("status") == "held" and "throttled" in thr.get("reason", ""), thr)
    degraded = fx.make_nvml_degraded(fx.make_document(base, fx.MODELS[1], rng, 22))
    st, deg = post(srv, degraded)
    c.check("upload measured in a degraded GPU state (NVML): held, naming the experiment and the reason",
            st == 201 and deg.get("status") == "held" and "degraded GPU state" in deg.get("reason", "")
            and "SM clock fell" in deg.get("reason", ""), deg)
    st, _, page = srv.request("GET", "/result/" + deg["id"])
    c.check("degraded upload's page says it is held, with the reason", st == 200 and "This upload is held" in page.decode()
            and "degraded GPU state" in page.decode())
    st, _, page = srv.request("GET", "/result/" + held["id"])
    c.check("held upload's page says so, with the reason", st == 200 and "This upload is held" in page.decode() and "outlier" in page.decode())
    st, _, stream2 = srv.json("GET", "/api/v1/experiments/stream")
    n_stream = {m["key"]: m["uploads"] for m in stream2["models"]}
    c.check("held uploads are left out of the figures", n_stream.get(h100) == 9 and n_stream.get(others[0]) == 2, n_stream)
    st, _, agg = srv.json("GET", f"/api/v1/gpus/{h100}/experiments/stream")
    c.check("held uploads are left out of the model's aggregate", agg and agg.get("uploads") == 9, agg and agg.get("uploads"))

    # --- export ---
    accepted_points = sum(points_of(d) for ds in docs.values() for d in ds)
    st, h, raw = srv.request("GET", "/api/v1/export?format=csv")
    lines = raw.decode().splitlines()
    c.check("export all (CSV): chunked text/csv", st == 200 and h.get("transfer-encoding") == "chunked" and h.get("content-type", "").startswith("text/csv"), (st, h))
    c.check("export all (CSV): header", lines and lines[0] == "gpu,upload,uploaded_at,experiment,series,field,x,value", lines[:1])
    c.check("export all (CSV): one row per accepted point", len(lines) - 1 == accepted_points, (len(lines) - 1, accepted_points))
    c.check("export all (CSV): held uploads left out", held["id"] not in raw.decode() and thr["id"] not in raw.decode()
            and deg["id"] not in raw.decode())
    rows = list(csv.reader(io.StringIO(raw.decode())))
    c.check("export all (CSV): numbers read back", all(float(r[6]) == float(r[6]) and float(r[7]) > -1e300 for r in rows[1:]))
    st, h, raw = srv.request("GET", "/api/v1/export?experiment=offset_copy&format=jsonl")
    objs = [json.loads(l) for l in raw.decode().splitlines()]
    want = sum(len(s["points"]) for ds in docs.values() for d in ds for r in d["results"] if r["experiment"]["name"] == "offset_copy" for s in r["series"])
    c.check("export one experiment (JSON lines): row count", st == 200 and len(objs) == want, (st, len(objs), want))
    c.check("export (JSON lines): columns", objs and set(objs[0]) == {"gpu", "upload", "uploaded_at", "experiment", "series", "field", "x", "value"})
    st, _, e = srv.json("GET", "/api/v1/export?experiment=nope&format=csv")
    c.check("export of an unknown experiment: 404 with the valid names", st == 404 and "stream" in (e or {}).get("valid", []), st)
    st, _, e = srv.json("GET", "/api/v1/export?format=xml")
    c.check("export in an unknown format: 400", st == 400, st)

    # A kept-alive connection carries on after a streamed export.
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
    answers = []
    for path in ("/api/v1/export?experiment=stream&format=csv", "/api/v1/stats", "/api/v1/export?experiment=stream&format=jsonl"):
        conn.request("GET", path)
        r = conn.getresponse()
        answers.append((r.status, len(r.read().splitlines())))
    conn.close()
    c.check("exports and other requests on one kept-alive connection", [a[0] for a in answers] == [200, 200, 200] and answers[0][1] == answers[2][1] + 1,
            answers)

    # A client that goes away in the middle of an export frees its place:
    # the exports after it (two may run at once, one per address) are answered in full.
    for _ in range(3):
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
        conn.request("GET", "/api/v1/export?format=jsonl")
        r = conn.getresponse()
        r.read(1000)
        conn.sock.shutdown(socket.SHUT_RDWR)
        conn.close()
    # The server notices a closed connection at its next write; until then the
    # gone client's export still holds its slot: 503 (both slots taken) or
    # 429 (this address's export is still running; one per address).
    for _ in range(100):
        st, _, raw = srv.request("GET", "/api/v1/export?format=csv")
        if st not in (503, 429):
            break
        time.sleep(0.1)
    c.check("exports after clients that went away mid-stream are complete", st == 200 and len(raw.decode().splitlines()) - 1 == accepted_points,
            (st, len(raw.decode().splitlines())))

    # CSV injection: series names that a spreadsheet would run as formulas.
    hostile = fx.make_document(base, fx.MODELS[2], rng, 30)
    sneaky = ['=HYPERLINK("http://x","y")', "+SUM(1)", "-2+3", "@cmd", "a,b\"c"]
    for r in hostile["results"]:
        if r["experiment"]["name"] == "transpose":
            for s, name in zip(r["series"], sneaky):
                s["name"] = name
    st, hb = post(srv, hostile)
    c.check("upload with formula-like series names stored", st == 201 and hb.get("status") == "accepted", hb)
    st, _, raw = srv.request("GET", "/api/v1/export?experiment=transpose&format=csv")
    text = raw.decode()
    cells = [r[4] for r in csv.reader(io.StringIO(text)) if len(r) > 4 and r[1] == hb["id"]]
    c.check("export (CSV): no cell begins with = + - @", cells and not any(x[:1] in "=+-@" for x in cells), cells[:5])
    c.check("export (CSV): the names survive behind the '", set(cells) >= {"'" + sneaky[0], "'" + sneaky[1], "'" + sneaky[2], "'" + sneaky[3], sneaky[4]}, set(cells))

    # --- moderation ---
    def standing(i):
        return srv.json("GET", f"/api/v1/results/{i}/standing")[2]

    before = standing(held["id"])
    st, _, _ = srv.json("POST", "/api/v1/moderation/" + held["id"], json.dumps({"action": "accept", "reason": "checked"}))
    c.check("moderation without a token: 401", st == 401, st)
    st, _, _ = srv.json("POST", "/api/v1/moderation/" + held["id"], json.dumps({"action": "accept", "reason": "checked"}),
                        {"Authorization": "Bearer wrong-token-0123456789abcdef"})
    c.check("moderation with a wrong token: 403", st == 403, st)
    st, _, _ = srv.json("GET", "/api/v1/moderation/log", None, {"Authorization": "Bearer " + MODERATOR[:-1] + "x"})
    c.check("moderation log with a wrong token: 403", st == 403, st)
    c.check("nothing changed by refused calls", standing(held["id"])["status"] == "held" and standing(held["id"]) == before)
    auth = {"Authorization": "Bearer " + MODERATOR}
    st, _, e = srv.json("POST", "/api/v1/moderation/" + held["id"], json.dumps({"action": "accept"}), auth)
    c.check("moderation needs a reason: 400", st == 400, (st, e))
    for body, what in (("not json", "a body that is not JSON"), (json.dumps({"action": "drop table", "reason": "x"}), "an unknown action"),
                       (json.dumps({"action": ["accept"], "reason": "x"}), "an action that is not a string"),
                       (json.dumps({"action": "accept", "reason": "x" * 5000}), "a reason of 5000 bytes")):
        st, _, _ = srv.json("POST", "/api/v1/moderation/" + held["id"], body, auth)
        c.check(f"moderation with {what}: 400", st == 400, st)
    st, _, _ = srv.json("POST", "/api/v1/moderation/..%2F..%2Fetc", json.dumps({"action": "accept", "reason": "x"}), auth)
    c.check("moderation of an id that is not one: 404", st == 404, st)
    c.check("nothing changed by malformed calls", standing(held["id"]) == before)
    st, _, lst = srv.json("GET", "/api/v1/moderation/held", None, auth)
    c.check("moderator lists the held uploads", st == 200 and {held["id"], thr["id"]} <= {x["id"] for x in lst["held"]}, lst)
    st, _, acc = srv.json("POST", "/api/v1/moderation/" + held["id"], json.dumps({"action": "accept", "reason": "the owner explained it"}), auth)
    c.check("moderator accepts a held upload", st == 200 and acc.get("status") == "accepted", (st, acc))
    n = {m["key"]: m["uploads"] for m in srv.json("GET", "/api/v1/experiments/stream")[2]["models"]}
    c.check("an accepted upload counts", n.get(h100) == 10, n)
    st, _, agg = srv.json("GET", f"/api/v1/gpus/{h100}/experiments/stream")
    c.check("an accepted upload joins the model's aggregate", agg and agg.get("uploads") == 10, agg and agg.get("uploads"))
    st, _, raw = srv.request("GET", "/api/v1/export?experiment=stream&format=csv")
    c.check("an accepted upload is exported", held["id"] in raw.decode())
    st, _, hid = srv.json("POST", "/api/v1/moderation/" + ids[h100][0], json.dumps({"action": "hide", "reason": "duplicate machine"}), auth)
    c.check("moderator hides an upload", st == 200 and hid.get("status") == "hidden", hid)
    n = {m["key"]: m["uploads"] for m in srv.json("GET", "/api/v1/experiments/stream")[2]["models"]}
    c.check("a hidden upload no longer counts", n.get(h100) == 9, n)
    st, _, agg = srv.json("GET", f"/api/v1/gpus/{h100}/experiments/stream")
    c.check("a hidden upload leaves the model's aggregate", agg and agg.get("uploads") == 9, agg and agg.get("uploads"))
    gpus = {g["key"]: g["uploads"] for g in srv.json("GET", "/api/v1/gpus")[2]["gpus"]}
    c.check("the model's upload count leaves out held and hidden uploads", gpus.get(h100) == 9, gpus.get(h100))
    st, _, _ = srv.json("POST", "/api/v1/moderation/" + thr["id"], json.dumps({"action": "delete", "reason": "throttled laptop"}), auth)
    c.check("moderator deletes an upload", st == 200 and srv.request("GET", "/api/v1/results/" + thr["id"])[0] == 404, st)
    a100 = keys[fx.MODELS[1][0]]
    st, _, agg = srv.json("GET", f"/api/v1/gpus/{a100}/experiments/stream")
    gpus = {g["key"]: g["uploads"] for g in srv.json("GET", "/api/v1/gpus")[2]["gpus"]}
    c.check("deleting a held upload leaves its model's aggregate and count as they were",
            agg and agg.get("uploads") == 2 and gpus.get(a100) == 2, (agg and agg.get("uploads"), gpus.get(a100)))
    st, _, e = srv.json("POST", "/api/v1/moderation/" + "0" * 32, json.dumps({"action": "accept", "reason": "x"}), auth)
    c.check("moderating an unknown upload: 404", st == 404, st)
    st, _, log = srv.json("GET", "/api/v1/moderation/log", None, auth)
    acts = [(x["action"], x["id"]) for x in (log or {}).get("log", [])]
    c.check("the log has every action, newest first",
            acts[:3] == [("delete", thr["id"]), ("hide", ids[h100][0]), ("accept", held["id"])] and ("hold", held["id"]) in acts, acts[:5])
    c.check("log lines carry time and reason",
            all(re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", x["at"]) and x["reason"] for x in log["log"]), log["log"][:2])

    if args.chromium:
        chromium_pages(srv, c, args, h100, others)


def chromium_pages(srv, c, args, h100, others):
    sys.path.insert(0, os.path.join(SERVER_TESTS, "web", "pages"))
    import check_pages
    out = args.artifacts or args.workdir
    os.makedirs(out, exist_ok=True)
    base = f"http://127.0.0.1:{srv.port}"
    q = "&".join(f"{p}={k}" for p, k in zip("abcd", [h100] + others[:3]))
    for name, path in (("crowd-experiment-offset_copy", "/experiment/offset_copy"), ("crowd-experiment-stream-theoretical", "/experiment/stream?view=theoretical"),
                       ("crowd-compare-four", "/compare?" + q)):
        status, _, text = check_pages.fetch(base + path)
        check_pages.check_page(name, args.chromium, base + path, text, text.count("<canvas"), out)
    failed = check_pages.results.count(False)
    c.check("pages drawn in Chromium", failed == 0 and check_pages.results, f"{failed} browser checks failed")


if __name__ == "__main__":
    sys.exit(main())
