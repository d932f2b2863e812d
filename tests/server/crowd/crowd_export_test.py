#!/usr/bin/env python3
"""The export at scale: 10,000 SYNTHETIC uploads over 8 GPU models, then
GET /api/v1/export (CSV, every experiment) read to the end. Checks that every
accepted point comes out exactly once (row count) and that the server's
resident memory stays under 100 MB while it streams; prints the rate."""
import argparse
import http.client
import os
import sys
import threading
import time

# tests/server, where the shared helpers are (harness.py, zstd_codec.py, fixtures/).
SERVER_TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, SERVER_TESTS)
sys.path.insert(0, os.path.join(SERVER_TESTS, "fixtures"))
from harness import Checks, Server, default_db, fresh_workdir, rss_bytes  # noqa: E402
import crowd_fill  # noqa: E402


def rss_mb(pid):
    return rss_bytes(pid) / (1024 * 1024)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--server", required=True)
    p.add_argument("--db", default="")
    p.add_argument("--document", required=True)
    p.add_argument("--workdir", required=True)
    p.add_argument("--uploads", type=int, default=10000)
    args = p.parse_args()
    fresh_workdir(args.workdir)
    c = Checks()
    srv = Server(args.server, default_db(args), args.workdir, ["--write-rate", "0", "--read-rate", "0"])
    try:
        t0 = time.time()
        by_key, points = crowd_fill.fill(srv.port, args.document, args.uploads)
        print(f"filled {args.uploads} uploads over {len(by_key)} models in {time.time() - t0:.1f} s; {points} accepted points")
        held = sum(1 for ids in by_key.values() for _, s in ids if s != "accepted")
        c.check("10,000 uploads over 8 models stored", sum(map(len, by_key.values())) == args.uploads and len(by_key) == 8, len(by_key))
        c.check("similar uploads are hardly ever held", held < args.uploads // 100, held)

        peak = [rss_mb(srv.proc.pid)]
        done = threading.Event()

        def sample():
            while not done.is_set():
                peak[0] = max(peak[0], rss_mb(srv.proc.pid))
                time.sleep(0.05)

        sampler = threading.Thread(target=sample)
        sampler.start()
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=600)
        t0 = time.time()
        conn.request("GET", "/api/v1/export?format=csv")
        r = conn.getresponse()
        rows, size, tail = 0, 0, b""
        while True:
            chunk = r.read(1 << 16)
            if not chunk:
                break
            size += len(chunk)
            rows += chunk.count(b"\n")
            tail = (tail + chunk)[-200:]
        seconds = time.time() - t0
        done.set()
        sampler.join()
        conn.close()
        rows -= 1  # the header
        print(f"export: {rows} rows, {size / 1e6:.1f} MB in {seconds:.2f} s = {rows / seconds:,.0f} points/s; "
              f"server RSS peak {peak[0]:.1f} MB while streaming")
        c.check("export: 200 and complete", r.status == 200 and tail.endswith(b"\n"), r.status)
        c.check("export: one row per accepted point", rows == points, (rows, points))
        c.check("export: resident memory under 100 MB while streaming", peak[0] < 100, f"{peak[0]:.1f} MB")
    finally:
        srv.stop()
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
