#!/usr/bin/env python3
"""The view across models at scale: starts gmlab-server on a fresh database
(SQLite by default, or --db postgres://...), fills it with --uploads SYNTHETIC
uploads over 8 GPU models (tests/server/fixtures/crowd_fill.py), then times

  - after the aggregates' refresher has caught up, the experiment page (/experiment/offset_copy) and the comparison of four
    models (/compare?a=..&b=..&c=..&d=..): cold (first request after the server
    was restarted on the filled database) and warm (median of 10 after that);
  - the export of every accepted point (CSV): points/s and the server's peak
    resident memory while it streams.

Targets (issue 17): pages <= 100 ms warm and cold at 10,000 uploads over 8
models; export >= 100,000 points/s with RSS under 100 MB. Only 127.0.0.1 is
contacted.
"""
import argparse
import http.client
import os
import statistics
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "server"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "server", "fixtures"))
from harness import Server  # noqa: E402
import crowd_fill  # noqa: E402


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def timed_get(port, path):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    t0 = time.perf_counter()
    conn.request("GET", path)
    r = conn.getresponse()
    r.read()
    ms = (time.perf_counter() - t0) * 1e3
    conn.close()
    if r.status != 200:
        raise RuntimeError(f"{path}: {r.status}")
    return ms


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--server", required=True)
    ap.add_argument("--db", default="")
    ap.add_argument("--document", default=os.path.join(HERE, "..", "results", "nvidia-h200.json"))
    ap.add_argument("--uploads", type=int, default=10000)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="gmlab-crowd-bench-")
    db = args.db or "sqlite:" + os.path.join(work, "results.sqlite")
    opts = ["--write-rate", "0", "--read-rate", "0"]
    srv = Server(args.server, db, work, opts)
    t0 = time.time()
    by_key, points = crowd_fill.fill(srv.port, args.document, args.uploads)
    print(f"filled: {args.uploads} uploads over {len(by_key)} models in {time.time() - t0:.0f} s, {points} accepted points")
    # Timed once the refresher has folded every upload into the aggregates
    # (readers merge queued uploads meanwhile, which is not the steady state).
    t0 = time.time()
    while time.time() - t0 < 600:
        st, _, stats = srv.json("GET", "/api/v1/stats")
        if st == 200 and stats.get("pending") == 0:
            break
        time.sleep(0.5)
    print(f"aggregates caught up {time.time() - t0:.1f} s after the fill")
    # The table must hold every model and every accepted upload, not just answer.
    accepted = {k: sum(1 for _, st in v if st == "accepted") for k, v in by_key.items()}
    st, _, table = srv.json("GET", "/api/v1/experiments/offset_copy")
    shown = {m["key"]: m["uploads"] for m in table["models"]} if st == 200 else {}
    print(f"experiment table: {len(shown)} models, {sum(shown.values())} uploads (accepted: {sum(accepted.values())})")
    if shown != accepted:
        print(f"experiment table does not match the accepted uploads: {shown} vs {accepted}")
        return 1
    srv.stop()
    keys = sorted(by_key, key=lambda k: -len(by_key[k]))
    pages = {"experiment": "/experiment/offset_copy",
             "compare": "/compare?" + "&".join(f"{p}={k}" for p, k in zip("abcd", keys[:4]))}
    for name, path in pages.items():
        srv = Server(args.server, db, work, opts, name="server-" + name)
        cold = timed_get(srv.port, path)
        warm = statistics.median(timed_get(srv.port, path) for _ in range(10))
        print(f"{name} page: cold {cold:.1f} ms, warm {warm:.1f} ms")
        srv.stop()
    srv = Server(args.server, db, work, opts, name="server-export")
    peak = [rss_mb(srv.proc.pid)]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], rss_mb(srv.proc.pid))
            time.sleep(0.05)

    threading.Thread(target=sample, daemon=True).start()
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=600)
    t0 = time.perf_counter()
    conn.request("GET", "/api/v1/export?format=csv")
    r = conn.getresponse()
    rows = 0
    while True:
        chunk = r.read(1 << 16)
        if not chunk:
            break
        rows += chunk.count(b"\n")
    seconds = time.perf_counter() - t0
    done.set()
    print(f"export: {rows - 1} points in {seconds:.2f} s = {(rows - 1) / seconds:,.0f} points/s, server RSS peak {peak[0]:.1f} MB")
    srv.stop()


if __name__ == "__main__":
    sys.exit(main())
