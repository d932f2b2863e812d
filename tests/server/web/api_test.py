#!/usr/bin/env python3
"""gmlab-server's HTTP API against a real server process and a real database
(a fresh SQLite file, or --db postgres://... for the PostgreSQL suite): every
endpoint, idempotent retries, deletion with right, wrong and absent tokens,
export as JSON and CSV; uploads only as Content-Type: application/json; the
URLs handed out never echo a Host header that is not a plain host[:port];
HEAD on every GET route and OPTIONS with a correct Allow."""
import copy
import csv
import gzip
import json
import os
import re
import socket
import sqlite3
import sys
import time

# tests/server, where the shared helpers are (harness.py, zstd_codec.py, fixtures/).
SERVER_TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, SERVER_TESTS)
from harness import Checks, Server, arguments, as_new_run, default_db, fresh_workdir, gz, load_document, trimmed, wait_folded  # noqa: E402
import zstd_codec  # noqa: E402

HEX32 = re.compile(r"^[0-9a-f]{32}$")


def main():
    args = arguments(__doc__)
    fresh_workdir(args.workdir)
    c = Checks()
    doc = trimmed(load_document(args.document))
    text = json.dumps(doc)
    admin = "admin-secret-0123456789"
    db = default_db(args)
    srv = Server(args.server, db, args.workdir, ["--write-rate", "0", "--read-rate", "0", "--admin-token", admin])
    try:
        run(srv, c, doc, text, admin)
        stored_forms(srv, c, doc, text, db)
        content_type(srv, c, text)
        host_header(srv, c, text)
        methods(srv, c, text, admin)
        squatter(srv, c, text)
    finally:
        srv.stop()
    return c.finish()


def stored_forms(srv, c, doc, text, db):
    """A gzip or zstd body is stored as the client compressed it when that is
    at least 3:1, and compressed by the server otherwise (gzip level 0 holds the
    text in stored blocks); either way the document reads back exactly."""
    bodies = {"gzip 9": (gzip.compress(text.encode(), 9), "gzip"),
              "gzip 0": (gzip.compress(text.encode(), 0), "gzip"),
              "zstd 19": (zstd_codec.compress(text.encode(), 19), "zstd")}
    ids = {}
    # Each a run of its own: the server stores one run once.
    texts = {name: as_new_run(text, name) for name in ("gzip 9", "gzip 0", "zstd 19")}
    bodies = {"gzip 9": (gzip.compress(texts["gzip 9"].encode(), 9), "gzip"),
              "gzip 0": (gzip.compress(texts["gzip 0"].encode(), 0), "gzip"),
              "zstd 19": (zstd_codec.compress(texts["zstd 19"].encode(), 19), "zstd")}
    for name, (body, encoding) in bodies.items():
        st, _, r = srv.json("POST", "/api/v1/results", body,
                            {"Content-Type": "application/json", "Content-Encoding": encoding})
        c.check(f"{name} post returns 201", st == 201, st)
        ids[name] = r["id"] if r else ""
        st, _, raw = srv.request("GET", f"/api/v1/results/{ids[name]}?format=document")
        c.check(f"{name}: the document reads back as sent", st == 200 and raw == texts[name].encode(), st)
        st, _, got = srv.json("GET", f"/api/v1/results/{ids[name]}")
        c.check(f"{name}: the result reads back", st == 200 and got and got.get("document") == json.loads(texts[name]), st)
    if not db.startswith("sqlite:"):
        return
    with sqlite3.connect(db[len("sqlite:"):], timeout=30) as con:
        stored = {name: bytes(con.execute("SELECT document FROM runs WHERE id = ?", (i,)).fetchone()[0])
                  for name, i in ids.items()}
    c.check("a well compressed gzip body is stored as it came", stored["gzip 9"] == bodies["gzip 9"][0],
            stored["gzip 9"][:4])
    c.check("an uncompressed gzip body is stored as zstd", stored["gzip 0"][:4] == zstd_codec.MAGIC, stored["gzip 0"][:4])
    c.check("a zstd frame is stored as it came", stored["zstd 19"] == bodies["zstd 19"][0], stored["zstd 19"][:4])


def squatter(srv, c, text):
    """Anyone can post another document under the submission_id a genuine run
    will come with (gmlab-upload's id is a public digest of the document): the
    genuine run is still stored, under an id of its own, and its link is to
    itself."""
    genuine = as_new_run(text[:-1] + ', "submission_id": "claimed-id-1"}', "genuine")
    forged = as_new_run(text[:-1] + ', "submission_id": "claimed-id-1"}', "squatter")
    st, _, s = srv.json("POST", "/api/v1/results", forged)
    c.check("a squatter's document under the genuine run's submission_id is stored as its own run", st == 201, (st, s))
    st, _, g = srv.json("POST", "/api/v1/results", genuine)
    c.check("the genuine run is then stored too (201), not linked to the squatter's",
            st == 201 and g["id"] != s["id"] and g["url"].endswith("/result/" + g["id"]), (st, g))
    st, _, raw = srv.request("GET", "/api/v1/results/%s?format=document" % g["id"])
    c.check("the genuine run's link gives the genuine document", st == 200 and raw == genuine.encode(), st)
    st, _, r = srv.json("POST", "/api/v1/results", genuine, {"X-Submission-Id": "anything-else"})
    c.check("the genuine run again, under any id, is the genuine run's row", st == 200 and r["id"] == g["id"], (st, r))


def get_within_a_second(c, srv, after):
    t0 = time.monotonic()
    st, _, _ = srv.request("GET", "/api/v1/stats", timeout=5)
    dt = time.monotonic() - t0
    c.check("after %s: a normal GET answers within 1 s" % after, st == 200 and dt < 1.0, (st, dt))


def content_type(srv, c, text):
    """A form on any web site can post text/plain (or a form's types) here
    from a visitor's browser; an upload must say application/json."""
    count = srv.json("GET", "/api/v1/stats")[2]["results"]
    body = as_new_run(text[:-1] + ', "submission_id": "content-type-1"}', "content-type-1")
    for sent in ("text/plain", "text/plain; charset=utf-8", "application/x-www-form-urlencoded",
                 "multipart/form-data; boundary=x", "application/jsonp", None):
        st, _, e = srv.json("POST", "/api/v1/results", body, {"Content-Type": sent})
        c.check("an upload with Content-Type %s is 415 unsupported_media_type naming the header" % sent,
                st == 415 and e and e.get("code") == "unsupported_media_type" and "Content-Type: application/json" in e.get("message", ""),
                (st, e))
    st, _, e = srv.json("POST", "/api/v1/results", body, {"Content-Type": None})
    c.check("... and says none was sent when none was", e is not None and "none was sent" in e.get("message", ""), e)
    st, _, e = srv.json("POST", "/api/v1/results", gz(body), {"Content-Type": "text/plain", "Content-Encoding": "gzip"})
    c.check("a gzip body as text/plain is 415 too", st == 415, (st, e))
    c.check("nothing refused was stored", srv.json("GET", "/api/v1/stats")[2]["results"] == count)
    get_within_a_second(c, srv, "uploads of the wrong Content-Type")
    st, _, first = srv.json("POST", "/api/v1/results", body, {"Content-Type": "application/json; charset=utf-8"})
    c.check("application/json; charset=utf-8 is accepted", st == 201, (st, first))
    for sent in ("APPLICATION/JSON", " application/json ;charset=UTF-8"):
        st, _, r = srv.json("POST", "/api/v1/results", body, {"Content-Type": sent})
        c.check("Content-Type %r is accepted (the same submission: 200)" % sent, st == 200, (st, r))
    st, _, r = srv.json("POST", "/api/v1/results", zstd_codec.compress(body.encode()),
                        {"Content-Type": "application/json", "Content-Encoding": "zstd"})
    c.check("a zstd body as gmlab-upload sends it (application/json, Content-Encoding: zstd) is accepted", st == 200, (st, r))


def host_header(srv, c, text):
    """Without --public-url, a Host header that is not a plain host[:port]
    is not echoed into the URLs handed out: the listening address is."""
    body = as_new_run(text[:-1] + ', "submission_id": "host-header-1"}', "host-header-1")
    local = "http://127.0.0.1:%d/" % srv.port
    st, _, r = srv.json("POST", "/api/v1/results", body, {"Host": "results.example:8443"})
    c.check("a plain Host header names the URLs", st in (200, 201) and r["url"].startswith("http://results.example:8443/result/")
            and r["gpu_url"].startswith("http://results.example:8443/gpu/"), r)
    rid = r["id"]
    for host in ('evil.example"><script>alert(1)</script>', "user@evil.example", "evil.example/phish", "a b",
                 "evil.example:80:80", "'evil'", "x" * 300):
        st, _, r = srv.json("POST", "/api/v1/results", body, {"Host": host})
        c.check("Host %r is not echoed: the upload's URLs name the listening address" % host[:40],
                st == 200 and r["url"] == local + "result/" + rid and r["gpu_url"].startswith(local + "gpu/"), (st, r))
    st, _, r = srv.json("GET", "/api/v1/results/" + rid, headers={"Host": "<evil>"})
    c.check("... nor in a result read back", st == 200 and r["url"] == local + "result/" + rid, r and r.get("url"))
    get_within_a_second(c, srv, "hostile Host headers")


def raw_exchange(port, data, expect_responses=2, timeout=5):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.sendall(data)
    got = b""
    deadline = time.monotonic() + timeout
    try:
        while got.count(b"HTTP/1.1 ") < expect_responses or not got.endswith((b"}", b"\n", b">")):
            if time.monotonic() > deadline:
                break
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
    except OSError:
        pass
    s.close()
    return got


def methods(srv, c, text, admin):
    """HEAD on every GET route: the GET's status and headers, no body.
    OPTIONS: 204 with Allow, each method once, HEAD beside GET, OPTIONS."""
    st, _, r = srv.json("POST", "/api/v1/results", as_new_run(text[:-1] + ', "submission_id": "methods-1"}', "methods-1"))
    rid, key = r["id"], r["gpu_url"].rsplit("/", 1)[1]
    wait_folded(srv)
    pages = srv.request("GET", "/")[0] == 200
    paths = ["/api/v1/results/" + rid, "/api/v1/results/%s?format=csv" % rid, "/api/v1/results/%s?format=document" % rid,
             "/api/v1/results/" + "0" * 32, "/api/v1/gpus", "/api/v1/gpus/%s/experiments/stream" % key, "/api/v1/stats",
             "/healthz", "/readyz", "/api/v1/experiments", "/api/v1/experiments/stream", "/api/v1/results/%s/standing" % rid,
             "/api/v1/export?format=csv", "/api/v1/moderation/log", "/api/v1/moderation/held", "/metrics"]
    if pages:
        paths += ["/", "/gpu/" + key, "/result/" + rid, "/compare?a=%s&b=%s" % (rid, rid), "/experiments",
                  "/experiment/stream"]
    volatile = {"/readyz"}  # its lag_seconds moves between two requests
    for path in paths:
        gst, gh, gbody = srv.request("GET", path)
        hst, hh, hbody = srv.request("HEAD", path)
        if path in volatile:
            gh.pop("content-length", None)
            hh.pop("content-length", None)
        same = hst == gst and hh == gh and hbody == b""
        c.check("HEAD %s: the GET's status and headers (%d), no body" % (path, gst), same, (hst, hh, gst, gh))
    streamed = srv.request("HEAD", "/api/v1/export?format=csv")[1]
    c.check("HEAD of the streamed export says chunked, as its GET does", streamed.get("transfer-encoding") == "chunked", streamed)
    got = raw_exchange(srv.port, b"HEAD /api/v1/gpus HTTP/1.1\r\nHost: x\r\n\r\nGET /api/v1/stats HTTP/1.1\r\nHost: x\r\n\r\n")
    head, _, rest = got.partition(b"\r\n\r\n")
    c.check("on one connection, the answer to HEAD is headers only: the next answer follows at once",
            head.startswith(b"HTTP/1.1 200") and b"content-length: " in head.lower() and rest.startswith(b"HTTP/1.1 200")
            and b'"results"' in rest, got[:400])
    st, _, _ = srv.request("HEAD", "/api/v1/results")
    c.check("HEAD where there is no GET route is 405", st == 405, st)

    want = {"/api/v1/results": "POST, OPTIONS", "/api/v1/results/" + rid: "GET, HEAD, DELETE, OPTIONS",
            "/api/v1/gpus": "GET, HEAD, OPTIONS", "/api/v1/moderation/" + rid: "POST, OPTIONS", "/healthz": "GET, HEAD, OPTIONS"}
    if pages:
        want.update({"/": "GET, HEAD, OPTIONS", "/compare": "GET, HEAD, OPTIONS"})
    for path, allow in want.items():
        st, h, body = srv.request("OPTIONS", path)
        c.check("OPTIONS %s: 204, Allow: %s, no body, no CORS grant" % (path, allow),
                st == 204 and h.get("allow") == allow and body == b"" and "access-control-allow-origin" not in h, (st, h, body))
    st, h, e = srv.json("PUT", "/compare" if pages else "/api/v1/gpus")
    c.check("a 405 names each allowed method once", st == 405 and h.get("allow") == "GET, HEAD, OPTIONS", (st, h.get("allow")))
    st, _, _ = srv.request("OPTIONS", "/no/such/path")
    c.check("OPTIONS on an unknown path is 404", st == 404, st)
    get_within_a_second(c, srv, "HEAD and OPTIONS")


def run(srv, c, doc, text, admin):
    # Upload, plain and gzip-compressed.
    st, _, a = srv.json("POST", "/api/v1/results", text, {"Content-Type": "application/json"})
    c.check("post returns 201", st == 201, st)
    c.check("post returns a 128-bit hex id", a and HEX32.match(a.get("id", "")), a)
    c.check("post returns a 128-bit hex delete token", a and HEX32.match(a.get("delete_token", "")), a)
    c.check("post returns the result url", a and a.get("url", "").endswith("/result/" + a["id"]), a)
    st, _, b = srv.json("POST", "/api/v1/results", gz(as_new_run(text, "gzip")), {"Content-Type": "application/json", "Content-Encoding": "gzip"})
    c.check("gzip post (another run) returns 201", st == 201, st)
    c.check("ids differ and are not sequential", b and b["id"] != a["id"] and abs(int(b["id"], 16) - int(a["id"], 16)) > 1000)
    c.check("delete tokens differ", b and b["delete_token"] != a["delete_token"])

    # Read back.
    st, h, got = srv.json("GET", "/api/v1/results/" + a["id"])
    c.check("get returns 200 JSON", st == 200 and h.get("content-type", "").startswith("application/json"), st)
    c.check("get returns the document as uploaded", got and got.get("document") == doc)
    c.check("get names the normalised GPU", got and got["gpu"]["key"] == "nvidia-h200-cc9.0-140gib-6016bit", got and got["gpu"])
    c.check("get keeps the raw device name and driver", got and got["gpu"]["name"] == "NVIDIA H200" and got["gpu"]["driver_version"] == doc["device"]["driver_version"])
    c.check("get never shows the token hash", got is not None and "delete_token_hash" not in json.dumps(got))
    st, h, raw = srv.request("GET", "/api/v1/results/" + a["id"] + "?format=document")
    c.check("export document is the stored run", st == 200 and json.loads(raw) == doc, st)
    st, h, raw = srv.request("GET", "/api/v1/results/" + b["id"] + "?format=csv")
    lines = raw.decode().splitlines()
    npoints = sum(len(s["points"]) for r in doc["results"] for s in r["series"])
    # Beside each point's headline: three rows per counted figure of a series
    # with an agreement (counters.*, model.*, tolerance.*; counter_rows.hpp).
    counter_rows = [r for r in csv.reader(lines[1:]) if r[2].startswith(("counters.", "model.", "tolerance."))]
    ncounted = sum(1 for r in doc["results"] for s in r["series"] for name, a in s.get("agreement", {}).items() for p in s["points"]
                   if name in p.get("counters", {}) and a["prediction"] in p.get("predicted", {}))
    c.check("export csv is text/csv", st == 200 and h.get("content-type", "").startswith("text/csv"), (st, h.get("content-type")))
    c.check("export csv has a header and one row per point", lines[0] == "experiment,series,field,x,value" and
            len(lines) - len(counter_rows) == npoints + 1, (lines[:1], len(lines), len(counter_rows), npoints))
    c.check("export csv has three counter rows per counted figure", ncounted > 0 and len(counter_rows) == 3 * ncounted,
            (len(counter_rows), ncounted))
    c.check("export csv rows carry the stream copy bandwidth",
            any(l.startswith("stream,copy,bandwidth_gbs,") and abs(float(l.split(",")[-1]) - doc["results"][0]["series"][0]["points"][0]["bandwidth_gbs"]) < 1e-6 for l in lines))
    st, _, e = srv.json("GET", "/api/v1/results/" + a["id"] + "?format=xml")
    c.check("unknown export format is 400", st == 400 and e and e.get("code") == "bad_format", (st, e))
    st, _, e = srv.json("GET", "/api/v1/results/" + "0" * 32)
    c.check("unknown id is 404 with {code, message}", st == 404 and e and e.get("code") == "not_found" and e.get("message"), (st, e))
    st, _, e = srv.json("GET", "/api/v1/results/not-an-id")
    c.check("malformed id is 404", st == 404, st)

    # One run, one row: the same bytes again, or the same run under a fresh
    # submission_id, are the stored run, not another row.
    st, _, again = srv.json("POST", "/api/v1/results", text)
    c.check("the same bytes posted again are 200, the first upload's id, no token",
            st == 200 and again["id"] == a["id"] and again.get("duplicate") is True and "delete_token" not in again, (st, again))
    d2 = copy.deepcopy(doc)
    d2["submission_id"] = "retry-test-1"
    st, _, fresh = srv.json("POST", "/api/v1/results", json.dumps(d2))
    c.check("the same run under a fresh submission_id is 200 with the first upload's id",
            st == 200 and fresh["id"] == a["id"] and fresh.get("duplicate") is True, (st, fresh))
    # Idempotent retries of a new run: submission_id in the document, or in a header.
    d3 = json.loads(as_new_run(json.dumps(dict(doc, submission_id="retry-test-2")), "retry-test-2"))
    st1, _, r1 = srv.json("POST", "/api/v1/results", json.dumps(d3))
    st2, _, r2 = srv.json("POST", "/api/v1/results", json.dumps(d3))
    c.check("first submission is 201", st1 == 201, st1)
    c.check("repeated submission is 200 with the same id", st2 == 200 and r2["id"] == r1["id"], (st2, r2))
    c.check("repeated submission hands out no new token", r2 is not None and "delete_token" not in r2 and r2.get("duplicate") is True, r2)
    hdr_text = as_new_run(text, "hdr-1")
    st1, _, h1 = srv.json("POST", "/api/v1/results", hdr_text, {"X-Submission-Id": "hdr-1"})
    st2, _, h2 = srv.json("POST", "/api/v1/results", gz(hdr_text), {"X-Submission-Id": "hdr-1", "Content-Encoding": "gzip"})
    c.check("X-Submission-Id makes retries idempotent", st1 == 201 and st2 == 200 and h1["id"] == h2["id"], (st1, st2))
    st, _, e = srv.json("POST", "/api/v1/results", text, {"X-Submission-Id": "bad id!"})
    c.check("malformed submission id is 400", st == 400 and e["code"] == "invalid_submission_id", (st, e))

    # Another GPU model, and an invalid document.
    other = copy.deepcopy(doc)
    other["device"]["name"] = "NVIDIA Test GPU"
    other["device"]["global_memory_bytes"] = 80 * 2**30
    st, _, o = srv.json("POST", "/api/v1/results", json.dumps(other))
    c.check("a second GPU model is stored", st == 201, st)
    scrubbed = copy.deepcopy(doc)
    for field in ("uuid", "pci_bus_id"):  # what gmlab-upload leaves out
        scrubbed["device"].pop(field, None)
    st, _, sc = srv.json("POST", "/api/v1/results", json.dumps(scrubbed))
    c.check("without its board serials, a run is the same run (200, its id): the serials are not part of its identity",
            st == 200 and sc["id"] == a["id"], (st, sc))
    st, _, sc = srv.json("POST", "/api/v1/results", as_new_run(json.dumps(scrubbed), "scrubbed"))
    c.check("a document without board serials is accepted", st == 201, (st, sc))
    bad = copy.deepcopy(doc)
    del bad["results"][0]["series"]
    st, _, e = srv.json("POST", "/api/v1/results", json.dumps(bad))
    c.check("a document without series is 422", st == 422 and e and "series" in e.get("message", ""), (st, e))
    st, _, e = srv.json("POST", "/api/v1/results", "{not json")
    c.check("broken JSON is 422 invalid_json", st == 422 and e and e.get("code") == "invalid_json", (st, e))

    # GPU models with counts.
    st, _, g = srv.json("GET", "/api/v1/gpus")
    counts = {x["key"]: x["uploads"] for x in g["gpus"]} if g else {}
    c.check("gpus lists the H200 with 5 uploads", counts.get("nvidia-h200-cc9.0-140gib-6016bit") == 5, counts)
    c.check("gpus lists the second model with 1 upload", counts.get("nvidia-test-gpu-cc9.0-80gib-6016bit") == 1, counts)

    # Per-point distribution across uploads.
    st, _, agg = srv.json("GET", "/api/v1/gpus/nvidia-h200-cc9.0-140gib-6016bit/experiments/stream")
    c.check("experiment aggregate is 200", st == 200, st)
    copy_series = [s for s in agg.get("series", []) if s["name"] == "copy"] if agg else []
    p = copy_series[0]["points"][0] if copy_series else {}
    want = doc["results"][0]["series"][0]["points"][0]["bandwidth_gbs"]
    c.check("aggregate counts n across uploads", p.get("n") == 5 and agg.get("uploads") == 5, p)
    c.check("aggregate median and quartiles of identical uploads equal the value",
            all(abs(p.get(k, 0) - want) < 1e-6 for k in ("median", "q1", "q3")), p)
    st, _, e = srv.json("GET", "/api/v1/gpus/nvidia-h200-cc9.0-140gib-6016bit/experiments/no_such")
    c.check("unknown experiment is 404", st == 404 and e["code"] == "not_found", st)
    st, _, e = srv.json("GET", "/api/v1/gpus/no-such-gpu/experiments/stream")
    c.check("unknown GPU model is 404", st == 404, st)
    st, _, s = srv.json("GET", "/api/v1/stats")
    c.check("stats counts the stored results", st == 200 and s["results"] == 6, s)

    # Deletion.
    path = "/api/v1/results/" + a["id"]
    st, _, e = srv.json("DELETE", path)
    c.check("delete without a token is 401", st == 401 and e["code"] == "unauthorized", st)
    st, _, e = srv.json("DELETE", path, headers={"Authorization": "Bearer " + b["delete_token"]})
    c.check("delete with another result's token is 403", st == 403 and e["code"] == "forbidden", st)
    st, _, e = srv.json("DELETE", path, headers={"Authorization": "Basic " + a["delete_token"]})
    c.check("delete with a non-Bearer scheme is 401", st == 401, st)
    c.check("the result survives wrong tokens", srv.request("GET", path)[0] == 200)
    st, _, e = srv.json("DELETE", path, headers={"Authorization": "Bearer " + a["delete_token"]})
    c.check("delete with its token is 200", st == 200 and e.get("deleted") is True, (st, e))
    c.check("a deleted result is 404", srv.request("GET", path)[0] == 404)
    st, _, e = srv.json("DELETE", path, headers={"Authorization": "Bearer " + a["delete_token"]})
    c.check("deleting twice is 404", st == 404, st)
    st, _, e = srv.json("DELETE", "/api/v1/results/" + o["id"], headers={"Authorization": "Bearer " + admin})
    c.check("the admin token deletes any result", st == 200, st)
    st, _, g = srv.json("GET", "/api/v1/gpus")
    counts = {x["key"]: x["uploads"] for x in g["gpus"]}
    c.check("gpus counts follow deletions", counts == {"nvidia-h200-cc9.0-140gib-6016bit": 4}, counts)
    st, _, agg = srv.json("GET", "/api/v1/gpus/nvidia-h200-cc9.0-140gib-6016bit/experiments/stream")
    n = [s for s in agg["series"] if s["name"] == "copy"][0]["points"][0]["n"]
    c.check("deleted results leave the aggregate", n == 4, n)

    # Pages where built in; JSON 404 otherwise.
    st, h, body = srv.request("GET", "/")
    c.check("home is an HTML page (or a JSON 404 without pages)",
            (st == 200 and h.get("content-type", "").startswith("text/html") and b"NVIDIA H200" in body) or
            (st == 404 and h.get("content-type", "").startswith("application/json")), st)
    st, _, e = srv.json("GET", "/api/v1/nothing-here")
    c.check("unknown paths are JSON 404", st == 404 and e and e.get("code") == "not_found", (st, e))


if __name__ == "__main__":
    sys.exit(main())
