#!/usr/bin/env python3
"""What operating gmlab-server costs, on a database of --stored uploads
(default 10,000, filled with gmlab-server-fill, the storage code the server
runs):

- a scrape of /metrics on --metrics-listen and a /readyz probe: median, p99
  and max over many, with the metrics' series filled by real traffic first;
- a backup while uploads go on at --upload-rate (SQLite: gmlab-server
  backup; PostgreSQL: pg_dump --format=custom --compress=1, as
  deploy/README.md says): its time and size, and
  the restore into a fresh database verified: every upload acknowledged
  before the backup began is there, and once the uploads acknowledged after
  the snapshot are deleted from the original (with the admin token), both
  answer the same counts, aggregates, experiment tables and GPU pages (the
  comparison of tests/server/ops/backup_test.py).

    bench/server_ops.py --server build/tools/server/gmlab-server [--db URL] [--stored 10000] [--full-documents]

For PostgreSQL run it under tests/server/postgres/run_with_postgres.sh with
--db @PGURL@. Only 127.0.0.1 is contacted; every loop is bounded."""
import argparse
import http.client
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "server"))
from harness import Checks, Server, as_new_run, compact, load_document, wait_folded  # noqa: E402
sys.path.insert(0, os.path.join(HERE, "..", "tests", "server", "ops"))
from backup_test import same  # noqa: E402

ADMIN = "server-ops-bench-admin-token-0123456789"


def timed(port, path, n, pause=0.0):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    times = []
    for _ in range(n):
        time.sleep(pause)
        t0 = time.perf_counter()
        conn.request("GET", path)
        r = conn.getresponse()
        r.read()
        times.append(time.perf_counter() - t0)
        assert r.status == 200, (path, r.status)
    conn.close()
    times.sort()
    return times


def report(label, times):
    print("%s: median %.3f ms, p99 %.3f ms, max %.3f ms over %d (kept-alive connection, client time included)" %
          (label, statistics.median(times) * 1000, times[int(len(times) * 0.99)] * 1000, times[-1] * 1000, len(times)))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--server", required=True)
    p.add_argument("--db", default="", help="database URL (default: a fresh SQLite file)")
    p.add_argument("--document", default=os.path.join(HERE, "..", "results", "nvidia-h200.json"))
    p.add_argument("--stored", type=int, default=10000)
    p.add_argument("--full-documents", action="store_true", help="fill with full documents (a realistic backup size)")
    p.add_argument("--uploaders", type=int, default=4)
    p.add_argument("--upload-rate", type=float, default=50, help="uploads per second during the backup, in all")
    a = p.parse_args()
    work = tempfile.mkdtemp(prefix="gmlab-ops-")
    pg = a.db.startswith("postgres")
    db = a.db or "sqlite:" + os.path.join(work, "ops.sqlite")
    doc = compact(load_document(a.document))
    docfile = os.path.join(work, "document.json")
    with open(docfile, "w") as f:
        json.dump(doc, f)
    fill = os.path.join(os.path.dirname(os.path.abspath(a.server)), "gmlab-server-fill")
    t0 = time.time()
    r = subprocess.run([fill, "--db", db, "--document", docfile, "--count", str(a.stored), "--threads", "2"] +
                       (["--full-documents"] if a.full_documents else []), capture_output=True, text=True)
    if r.returncode:
        print(r.stderr)
        return 1
    print("filled %d uploads (%s documents) in %.1f s; database: %s" %
          (a.stored, "full" if a.full_documents else "stub", time.time() - t0, "postgres" if pg else "sqlite"))
    srv = Server(a.server, db, work, ["--write-rate", "0", "--read-rate", "0", "--admin-token", ADMIN, "--metrics-listen", "127.0.0.1:0",
                                      "--access-log", os.path.join(work, "access.log")], "ops")
    restored = None
    try:
        key = json.loads(srv.request("GET", "/api/v1/gpus")[2])["gpus"][0]["key"]
        # Real traffic first, so that the metrics have their series.
        body = json.dumps(doc)[:-1]
        for i in range(20):
            srv.request("POST", "/api/v1/results", as_new_run(body + ', "submission_id": "warm-%d"}' % i, "warm-%d" % i))
        for path in ["/", "/gpu/" + key, "/api/v1/gpus", "/api/v1/stats", "/experiments", "/nothing", "/api/v1/results/x"]:
            srv.request("GET", path)
        wait_folded(srv)
        metrics = srv.request("GET", "/metrics")  # the public address refuses it
        assert metrics[0] == 404
        scrape = timed(srv.metrics_port, "/metrics", 300)
        conn = http.client.HTTPConnection("127.0.0.1", srv.metrics_port, timeout=30)
        conn.request("GET", "/metrics")
        text = conn.getresponse().read()
        conn.close()
        report("/metrics with %d stored (%d KiB, %d lines)" % (a.stored, len(text) // 1024, text.count(b"\n")), scrape)
        report("/readyz on the public address, back to back (mostly the answer kept for 100 ms)",
               timed(srv.port, "/readyz", 1000))
        report("/readyz as a probe sees it (one every 150 ms: the database asked each time)",
               timed(srv.port, "/readyz", 100, pause=0.15))
        report("/readyz on the metrics address, a probe every 150 ms", timed(srv.metrics_port, "/readyz", 100, pause=0.15))
        report("/healthz", timed(srv.port, "/healthz", 1000))
        report("/healthz, one every 150 ms (what waking an idle server costs, without the database)",
               timed(srv.port, "/healthz", 100, pause=0.15))

        # A backup while uploads go on.
        acked, lock, stop = {}, threading.Lock(), threading.Event()

        def uploader(tag):
            i = 0
            conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=60)
            interval = a.uploaders / a.upload_rate
            next_at = time.monotonic()
            while not stop.is_set():
                next_at += interval
                time.sleep(max(0.0, next_at - time.monotonic()))
                sid = "%s-%d" % (tag, i)
                conn.request("POST", "/api/v1/results", body=as_new_run(body + ', "submission_id": "%s"}' % sid, sid),
                             headers={"Content-Type": "application/json"})
                r = conn.getresponse()
                data = r.read()
                if r.status in (200, 201):
                    with lock:
                        acked["%s-%d" % (tag, i)] = json.loads(data)["id"]
                i += 1
            conn.close()

        threads = [threading.Thread(target=uploader, args=("b%d" % k,)) for k in range(a.uploaders)]
        for t in threads:
            t.start()
        time.sleep(2)
        with lock:
            before = dict(acked)
        target = os.path.join(work, "backup.pgdump" if pg else "backup.sqlite")
        t0 = time.time()
        cmd = (["pg_dump", "--format=custom", "--compress=1", "--file", target, "--dbname", db] if pg
               else [a.server, "backup", "--db", db, "--to", target])
        r = subprocess.run(cmd, capture_output=True, text=True)
        took = time.time() - t0
        with lock:
            during = len(acked) - len(before)
        stop.set()
        for t in threads:
            t.join()
        if r.returncode:
            print(r.stderr)
            return 1
        print("backup (%s) while uploads went on at %.0f/s: %.2f s, %.1f MB; %d uploads acknowledged during it%s" %
              (" ".join(cmd[:3]) if pg else "gmlab-server backup", a.upload_rate, took, os.path.getsize(target) / 1e6, during,
               "; " + r.stdout.strip() if r.stdout.strip() else ""))
        t0 = time.time()
        if pg:
            u = urllib.parse.urlsplit(db)
            admin = urllib.parse.urlunsplit((u.scheme, u.netloc, "/postgres", u.query, ""))
            url = urllib.parse.urlunsplit((u.scheme, u.netloc, "/ops_restored", u.query, ""))
            subprocess.run(["psql", "-X", "-q", "-d", admin, "-c", "CREATE DATABASE ops_restored"], check=True)
            r = subprocess.run(["pg_restore", "--no-owner", "--exit-on-error", "--dbname", url, target], capture_output=True, text=True)
        else:
            url = "sqlite:" + os.path.join(work, "restored.sqlite")
            r = subprocess.run([a.server, "restore", "--from", target, "--db", url], capture_output=True, text=True)
        restore_took = time.time() - t0
        if r.returncode:
            print(r.stderr)
            return 1
        if pg:
            # What pg_dump's compression levels cost and buy: uncompressed,
            # a dump writes the bytea columns as hex text.
            for flags in (["--compress=0"], ["--compress=1"], []):
                dump = os.path.join(work, "compare.pgdump")
                t0 = time.time()
                subprocess.run(["pg_dump", "--format=custom"] + flags + ["--file", dump, "--dbname", db], check=True)
                print("pg_dump --format=custom %s (no uploads meanwhile): %.2f s, %.1f MB" %
                      (" ".join(flags) or "(gzip level 6, its default)", time.time() - t0, os.path.getsize(dump) / 1e6))
                os.unlink(dump)
        restored = Server(a.server, url, work, ["--write-rate", "0", "--read-rate", "0"], "restored")
        missing = [sid for sid, rid in before.items() if restored.request("GET", "/api/v1/results/" + rid)[0] != 200]
        stats = json.loads(restored.request("GET", "/api/v1/stats")[2])
        print("restore: %.2f s; %d uploads in the restored database (%d stored before the load, %d acknowledged "
              "before the backup began: %d missing)" % (restore_took, stats["results"], a.stored + 20, len(before), len(missing)))
        # The original brought back to the snapshot: what was acknowledged
        # after it is deleted there; then both must answer the same.
        later = [rid for sid, rid in acked.items() if sid not in before and restored.request("GET", "/api/v1/results/" + rid)[0] != 200]
        for rid in later:
            srv.request("DELETE", "/api/v1/results/" + rid, headers={"Authorization": "Bearer " + ADMIN})
        c = Checks()
        t0 = time.time()
        same(c, srv, restored, doc)
        print("restored database compared with the original less the %d uploads acknowledged after the snapshot: "
              "%d checks passed, %d failed (%.1f s)" % (len(later), c.passed, c.failed, time.time() - t0))
        return 1 if missing or c.failed else 0
    finally:
        srv.stop()
        if restored:
            restored.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
