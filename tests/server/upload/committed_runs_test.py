"""Every run document the project holds (results/ and the shared data) goes
the way a contributor's does: uploaded to a real gmlab-server, accepted with
201, stored without figures its series' quantities do not have, and shown on
its GPU model's page and in the compare view with every experiment it
measured. Documents of every schema version the release wrote are read."""
import argparse
import glob
import gzip
import html
import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import harness  # noqa: E402

# What a point may carry, by its series' quantity (docs/result-schema.md).
BANDWIDTHS = {"dram_bandwidth", "l2_bandwidth", "l1_shared_bandwidth", "link_bandwidth"}
DERIVED = ("bytes", "bandwidth_gbs", "bandwidth_gbs_min", "bandwidth_gbs_max", "fraction_of_theoretical",
           "fraction_of_memcpy")


def documents(paths):
    """(name, text) of every run document under the given files and folders."""
    out = []
    for path in paths:
        files = sorted(glob.glob(os.path.join(path, "*.json")) + glob.glob(os.path.join(path, "*.json.gz"))) \
            if os.path.isdir(path) else [path]
        for f in files:
            raw = open(f, "rb").read()
            text = (gzip.decompress(raw) if f.endswith(".gz") else raw).decode()
            doc = json.loads(text)
            if isinstance(doc, dict) and str(doc.get("schema", "")).startswith("gmlab.run/"):
                out.append((os.path.relpath(f), text))
    return out


def derived_figures_allowed(stored, c, name):
    """No stored point carries a figure its series' quantity does not allow."""
    bad = []
    for r in stored["results"]:
        for s in r["series"]:
            q = s.get("quantity", {}).get("name")
            c.check(f"{name}: {r['experiment']['name']} / {s['name']} declares its quantity", q is not None, s.get("quantity"))
            for p in s["points"]:
                for k in DERIVED:
                    if k not in p:
                        continue
                    if q not in BANDWIDTHS or (k == "fraction_of_memcpy" and q != "dram_bandwidth") or \
                            (k == "fraction_of_theoretical" and q not in ("dram_bandwidth", "link_bandwidth")):
                        bad.append(f"{r['experiment']['name']} / {s['name']}: {k} on a {q} series")
    return bad


def hostile(srv, c, text):
    """What the server accepts it can show safely: strings that could disguise
    a GPU or break a page, and numbers no page could print, are refused with
    422 naming the field; a normal GET answers within a second after each."""
    doc = json.loads(text)
    cases = []
    for field, value, what in (("name", "NVIDIA \u202e002H AIDIVN", "bidirectional"),
                               ("name", "NVIDIA H200\u0000", "control"),
                               ("driver_version", "580.159.04\r\n<script>", "control")):
        d = json.loads(text)
        d["device"][field] = value
        cases.append((f"device.{field} with a {what} character", d, f"document.device.{field}: holds a {what}"))
    d = json.loads(text)
    r = next(r for r in d["results"] if r["experiment"]["name"] == "latency")
    r["series"][0]["points"][0]["values"]["latency_cycles"] = -1e308
    cases.append(("a latency of -1e308", d, "values.latency_cycles: must be finite and within +-1e15"))
    d = json.loads(text)
    r = next(r for r in d["results"] if r["experiment"]["name"] == "stream")
    r["summary"]["copy_gbs"] = 1e300
    cases.append(("a key figure of 1e300", d, "summary.copy_gbs: must be finite and within +-1e15"))
    for name, d, message in cases:
        st, _, body = srv.json("POST", "/api/v1/results", json.dumps(d))
        c.check(f"hostile upload, {name}: 422 naming it", st == 422 and message in (body or {}).get("message", ""), (st, body))
        t0 = time.monotonic()
        st, _, _ = srv.request("GET", "/api/v1/stats", timeout=5)
        c.check(f"after {name}: a normal GET answers within 1 s", st == 200 and time.monotonic() - t0 < 1.0, st)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--server", required=True)
    ap.add_argument("--db", default="")
    ap.add_argument("--document", help="one more run document (the suites' common argument)")
    ap.add_argument("--documents", nargs="+", default=[], help="run documents or folders of them")
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()
    harness.fresh_workdir(args.workdir)
    paths = [p for p in args.documents if os.path.exists(p)]
    for p in args.documents:
        if not os.path.exists(p):
            print(f"note: {p} does not exist here; its documents are not uploaded")
    if args.document:
        paths.append(args.document)
    docs = documents(paths)
    c = harness.Checks()
    c.check("there are committed run documents to upload", len(docs) >= 3, [n for n, _ in docs])
    db = args.db or "sqlite:" + os.path.join(args.workdir, "runs.sqlite")
    srv = harness.Server(args.server, db, args.workdir,
                         extra=["--write-rate", "100", "--write-burst", "100", "--read-rate", "1000", "--read-burst", "1000",
                                "--expensive-rate", "1000", "--expensive-burst", "1000"])
    try:
        uploaded = []
        seen = set()
        for name, text in docs:
            doc = json.loads(text)
            # Two files of one run (a document and its copy) would be one upload.
            key = (doc.get("created_at"), doc["device"].get("uuid"), doc.get("command"))
            if key in seen:
                continue
            seen.add(key)
            st, _, body = srv.json("POST", "/api/v1/results", text)
            if not c.check(f"{name} ({doc['schema']}, {len(doc['results'])} results) uploads with 201", st == 201, (st, body)):
                continue
            uploaded.append((name, doc, body))
        current = [text for name, text in docs if json.loads(text)["schema"] == "gmlab.run/1.3"]
        if c.check("a document of the current version is among them", bool(current)):
            hostile(srv, c, current[0])
        harness.wait_folded(srv)
        for name, doc, body in uploaded:
            st, _, got = srv.json("GET", "/api/v1/results/" + body["id"])
            stored = got.get("document") if isinstance(got, dict) else None
            c.check(f"{name}: the stored document is served", st == 200 and isinstance(stored, dict), st)
            if isinstance(stored, dict):
                bad = derived_figures_allowed(stored, c, name)
                c.check(f"{name}: no point keeps a figure its quantity does not have", not bad, bad[:5])
            gpu_path = "/gpu/" + body["gpu_url"].rsplit("/gpu/", 1)[1]
            st, _, page = srv.request("GET", gpu_path)
            page = page.decode(errors="replace")
            measured = [r["experiment"]["name"] for r in doc["results"] if r.get("applicable", True)]
            missing = [e for e in measured if not re.search(r"\b%s\b" % re.escape(e), page)]
            c.check(f"{name}: its GPU page shows every experiment it measured ({len(measured)})",
                    st == 200 and not missing, (st, missing))
            st, _, cmp_page = srv.request("GET", "/compare?a=%s&b=%s" % (body["id"], uploaded[0][2]["id"]))
            c.check(f"{name}: the comparison with {uploaded[0][0]} is drawn", st == 200 and b"<h1>" in cmp_page, st)
            # The compare view of GPU models: this model against the first upload's.
            first_key = uploaded[0][2]["gpu_url"].rsplit("/gpu/", 1)[1]
            st, _, cmp_page = srv.request("GET", "/compare?gpu_a=%s&gpu_b=%s" % (gpu_path[5:], first_key))
            cmp_page = cmp_page.decode(errors="replace")
            # The view compares headline figures: an experiment with none (peer) has no section.
            shown = [e for e in measured if re.search(r"\b%s\b" % re.escape(e), cmp_page)]
            c.check(f"{name}: the compare view of GPU models shows the model and its experiments",
                    st == 200 and html.escape(doc["device"]["name"]) in cmp_page and (shown or measured == ["peer"]),
                    (st, len(shown), len(measured)))
        # Documents of the previous release keep the figures that say what
        # they measure, and lose the ones that do not (allocation's "bandwidth").
        for name, doc, body in uploaded:
            if doc["schema"] == "gmlab.run/1.3":
                continue
            st, _, got = srv.json("GET", "/api/v1/results/" + body["id"])
            stored = got.get("document") if isinstance(got, dict) else None
            for r in stored["results"] if isinstance(stored, dict) else []:
                if r["experiment"]["name"] == "allocation":
                    kept = [k for s in r["series"] for p in s["points"] for k in ("bandwidth_gbs", "fraction_of_memcpy") if k in p]
                    c.check(f"{name}: allocation's call costs carry no bandwidth once stored", not kept, kept[:3])
                if r["experiment"]["name"] == "stream":
                    kept = all("bandwidth_gbs" in p and "fraction_of_theoretical" in p for s in r["series"] for p in s["points"])
                    c.check(f"{name}: stream keeps its DRAM bandwidth and fractions", kept)
    finally:
        srv.stop()
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
