#!/usr/bin/env python3
"""How gmlab-server holds up while thousands of connections stall.

Starts a server on a fresh database (SQLite, or --db URL for PostgreSQL),
measures GET /api/v1/gpus latency and upload throughput with nobody else
connected, then opens --stalled connections that each send the headers of a
100 KB POST and one byte of its body and then nothing (from 40 loopback
addresses, as if from 40 machines), and measures the same again while they
are held open. Prints one table.

  python3 bench/server_slow_clients.py --server build/tools/server/gmlab-server \\
      --document results/nvidia-h200.json [--db postgresql://...] [--stalled 2000]
"""
import argparse
import http.client
import json
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "server"))
from harness import as_new_run, load_document, trimmed  # noqa: E402


def percentile(values, q):
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def start_server(binary, db, workdir, extra):
    log = open(os.path.join(workdir, "server.log"), "ab")
    proc = subprocess.Popen([binary, "--db", db, "--listen", "127.0.0.1:0", "--write-rate", "0", "--read-rate", "0",
                             *extra], stdout=subprocess.PIPE, stderr=log)
    line = proc.stdout.readline().decode()
    if "listening on http://127.0.0.1:" not in line:
        proc.kill()
        raise SystemExit("server did not start: " + line)
    return proc, int(line.split("http://127.0.0.1:")[1].split()[0])


def measure(port, body, seconds):
    """GETs from one visitor (a new connection each) and uploads from two
    clients (kept-alive connections), side by side for `seconds`."""
    stop = time.monotonic() + seconds
    gets, uploads, failures = [], [], []

    def visitor():
        while time.monotonic() < stop:
            t0 = time.monotonic()
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                conn.request("GET", "/api/v1/gpus")
                r = conn.getresponse()
                r.read()
                conn.close()
                if r.status == 200:
                    gets.append(time.monotonic() - t0)
                else:
                    failures.append(("GET", r.status))
            except OSError as e:
                failures.append(("GET", repr(e)))
            time.sleep(0.01)

    def uploader():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        while time.monotonic() < stop:
            t0 = time.monotonic()
            try:
                # A run of its own each time (the same run is stored once).
                conn.request("POST", "/api/v1/results", as_new_run(body, "%d-%f" % (threading.get_ident(), t0)),
                             {"Content-Type": "application/json"})
                r = conn.getresponse()
                r.read()
                if r.status == 201:
                    uploads.append(time.monotonic() - t0)
                else:
                    failures.append(("POST", r.status))
            except OSError as e:
                failures.append(("POST", repr(e)))
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.close()

    threads = [threading.Thread(target=visitor)] + [threading.Thread(target=uploader) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return gets, uploads, failures


def stall(port, count):
    socks = []
    for i in range(count):
        src = "127.0.%d.%d" % (10 + (i % 40) // 250, 2 + (i % 40))
        s = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(src, 0))
        s.sendall(b"POST /api/v1/results HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{")
        socks.append(s)
    return socks


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--server", required=True)
    p.add_argument("--document", required=True)
    p.add_argument("--db", default="")
    p.add_argument("--stalled", type=int, default=2000)
    p.add_argument("--seconds", type=float, default=8.0, help="per phase; under the server's 10 s grace time")
    args = p.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    workdir = tempfile.mkdtemp(prefix="gmlab-slow-")
    db = args.db or "sqlite:" + os.path.join(workdir, "r.sqlite")
    body = json.dumps(trimmed(load_document(args.document)))
    proc, port = start_server(args.server, db, workdir, [])
    rows = []
    try:
        for phase in ("nobody else connected", "%d stalled connections" % args.stalled):
            socks = stall(port, args.stalled) if "stalled" in phase else []
            time.sleep(0.5)
            gets, uploads, failures = measure(port, body, args.seconds)
            still_open = 0
            for s in socks:
                s.setblocking(False)
                try:
                    still_open += 0 if s.recv(1) == b"" else 0
                except BlockingIOError:
                    still_open += 1
                except OSError:
                    pass
                s.close()
            rows.append((phase, len(gets), percentile(gets, 0.5), percentile(gets, 0.99), max(gets or [0]),
                         len(uploads) / args.seconds, percentile(uploads, 0.99), len(failures), still_open))
    finally:
        proc.terminate()
        proc.wait()
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"backend: {'PostgreSQL' if args.db.startswith('postgres') else 'SQLite'}; "
          f"document {len(body) // 1024} KiB; {args.seconds:.0f} s per phase")
    print(f"{'phase':28} {'GETs':>5} {'GET p50 ms':>10} {'GET p99 ms':>10} {'GET max ms':>10} "
          f"{'uploads/s':>9} {'upload p99 ms':>13} {'failed':>6} {'stalled held':>12}")
    for r in rows:
        print(f"{r[0]:28} {r[1]:5d} {r[2] * 1e3:10.1f} {r[3] * 1e3:10.1f} {r[4] * 1e3:10.1f} {r[5]:9.1f} "
              f"{r[6] * 1e3:13.1f} {r[7]:6d} {r[8]:12d}")
    return 0 if all(r[7] == 0 for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
