#!/usr/bin/env python3
"""Whether uploads can multiply a page's size: starts gmlab-server on a fresh
SQLite file (or --db URL) with its default rate limits, uploads --document
once and --other once (a second GPU model, for /compare), and times the first
model's GPU page (/gpu/KEY: bytes, median ms of --repeat) and /compare of the
two models. Then --shifted more uploads of --document (20: within the default
write burst of 20 with the refill of its rate) with every x times
1 + 0.001 k and a submission id of its own, waits until the refresher has
folded them, and measures again. Prints both rows and their ratio.

    python3 bench/server_page_growth.py --server build/tools/server/gmlab-server

Only 127.0.0.1 is contacted.
"""
import argparse
import copy
import http.client
import json
import os
import statistics
import sys
import tempfile
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "server"))
from harness import Server, load_document, wait_folded  # noqa: E402


def post(srv, doc):
    """Stores doc, waiting out a 429 (at most a minute); the answer's JSON."""
    body = json.dumps(doc)
    for _ in range(60):
        st, hdrs, data = srv.request("POST", "/api/v1/results", body, {"Content-Type": "application/json"})
        if st == 429:
            time.sleep(float(hdrs.get("retry-after", "1")))
            continue
        if st not in (200, 201):
            raise SystemExit("upload refused: %d %s" % (st, data[:300].decode(errors="replace")))
        return json.loads(data)
    raise SystemExit("upload still rate limited after a minute")


def timed(port, path, repeat):
    """(bytes, median ms) of GET path, after one request to warm it."""
    times, size = [], 0
    for i in range(repeat + 1):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        t0 = time.perf_counter()
        conn.request("GET", path)
        r = conn.getresponse()
        body = r.read()
        ms = (time.perf_counter() - t0) * 1e3
        conn.close()
        if r.status != 200:
            raise SystemExit("%s: %d" % (path, r.status))
        size = len(body)
        if i:
            times.append(ms)
    return size, statistics.median(times)


def shifted(doc, k):
    d = copy.deepcopy(doc)
    for r in d["results"]:
        for s in r.get("series", []):
            for p in s["points"]:
                p["x"] = p["x"] * (1 + 0.001 * k)
    d["submission_id"] = "page-growth-shifted-%d" % k
    return d


def key_of(answer):
    return urllib.parse.unquote(answer["gpu_url"].rsplit("/gpu/", 1)[1])


def measure(srv, gpu_path, compare_path, repeat):
    wait_folded(srv, 120)
    size, ms = timed(srv.port, gpu_path, repeat)
    csize, cms = timed(srv.port, compare_path, repeat)
    return {"gpu_bytes": size, "gpu_ms": ms, "compare_bytes": csize, "compare_ms": cms}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--server", required=True)
    ap.add_argument("--db", default="")
    ap.add_argument("--document", default=os.path.join(HERE, "..", "results", "nvidia-h200.json"))
    ap.add_argument("--other", default=os.path.join(HERE, "..", "results", "nvidia-h100-80gb-hbm3.json"))
    ap.add_argument("--shifted", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="gmlab-page-growth-")
    db = args.db or "sqlite:" + os.path.join(work, "results.sqlite")
    doc, other = load_document(args.document), load_document(args.other)
    doc["submission_id"], other["submission_id"] = "page-growth-first", "page-growth-other"
    srv = Server(args.server, db, work)
    try:
        first, second = post(srv, doc), post(srv, other)
        if key_of(first) == key_of(second):
            raise SystemExit("--document and --other are the same GPU model")
        gpu_path = "/gpu/" + urllib.parse.quote(key_of(first), safe="")
        compare_path = "/compare?a=%s&b=%s" % (urllib.parse.quote(key_of(first), safe=""), urllib.parse.quote(key_of(second), safe=""))
        rows = [("1 upload", measure(srv, gpu_path, compare_path, args.repeat))]
        t0 = time.perf_counter()
        for k in range(1, args.shifted + 1):
            post(srv, shifted(doc, k))
        upload_s = time.perf_counter() - t0
        rows.append(("%d uploads" % (args.shifted + 1), measure(srv, gpu_path, compare_path, args.repeat)))
    finally:
        srv.stop()
    print("server %s, %s; %s and %s; %d shifted uploads in %.1f s" % (args.server, db.split(":")[0], os.path.basename(args.document),
                                                                     os.path.basename(args.other), args.shifted, upload_s))
    print("%-12s %12s %10s %14s %12s" % ("", "GPU page", "GPU ms", "/compare bytes", "/compare ms"))
    for name, m in rows:
        print("%-12s %12d %10.1f %14d %12.1f" % (name, m["gpu_bytes"], m["gpu_ms"], m["compare_bytes"], m["compare_ms"]))
    a, b = rows[0][1], rows[1][1]
    print("%-12s %11.2fx %9.2fx %13.2fx %11.2fx" % ("ratio", b["gpu_bytes"] / a["gpu_bytes"], b["gpu_ms"] / a["gpu_ms"],
                                                   b["compare_bytes"] / a["compare_bytes"], b["compare_ms"] / a["compare_ms"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
