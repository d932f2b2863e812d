#!/usr/bin/env python3
"""A rolling restart of two gmlab-server replicas behind nginx, with the site
we ship (deploy/nginx/gmlab-server.conf), under steady uploads and page
requests: each replica in turn gets SIGTERM, drains and exits 0, starts again
on its port and answers /readyz, and only then is the other one restarted.
Every client request must succeed (0 failed), every acknowledged upload must
be stored (0 lost) and none twice (the stored count equals the acknowledged
submissions).

With --db postgres://... the replicas share a PostgreSQL database; without,
they share one SQLite file (WAL lets two processes on one host use it; each
keeps its own rate-limit buckets, so the limits are off here).

    rolling_restart_test.py --server B --nginx /usr/sbin/nginx --document D --workdir W
        [--db URL] [--uploads-per-second 20] [--pages-per-second 60]

The closing benchmark runs it with 50 uploads/s and 200 page requests/s."""
import argparse
import http.client
import json
import os
import random
import signal
import ssl
import sys
import threading
import time

SERVER_TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, SERVER_TESTS)
sys.path.insert(0, os.path.join(SERVER_TESTS, "fixtures"))
from harness import Checks, Server, as_new_run, free_port, fresh_workdir  # noqa: E402
from proxy_test import make_certificate, start_nginx  # noqa: E402
import crowd_fill  # noqa: E402
import make_fixtures as fx  # noqa: E402

OPTS = ["--write-rate", "0", "--read-rate", "0", "--trusted-proxy", "127.0.0.1", "--drain-seconds", "10"]


class Load:
    """Paced clients on kept-alive HTTPS connections to nginx."""

    def __init__(self, port, cert):
        self.port, self.ctx = port, ssl.create_default_context(cafile=cert)
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.acked = {}        # submission id -> result id
        self.duplicates = 0    # 200 answers: the upload had been stored by an earlier attempt
        self.ok = {"upload": 0, "page": 0}
        self.failed = []
        self.latencies = []

    def connection(self):
        return http.client.HTTPSConnection("127.0.0.1", self.port, timeout=60, context=self.ctx)

    def run(self, kind, rate, make, tag):
        conn = self.connection()
        interval = 1.0 / rate
        next_at = time.monotonic()
        i = 0
        while not self.stop.is_set():
            next_at += interval
            delay = next_at - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            method, path, body, headers, sid = make(tag, i)
            i += 1
            t0 = time.perf_counter()
            try:
                conn.request(method, path, body=body, headers=headers)
                r = conn.getresponse()
                data = r.read()
            except (OSError, http.client.HTTPException) as e:
                with self.lock:
                    self.failed.append((kind, path, repr(e)))
                conn.close()
                conn = self.connection()
                continue
            with self.lock:
                self.latencies.append(time.perf_counter() - t0)
                if r.status in (200, 201):
                    self.ok[kind] += 1
                    if sid:
                        self.acked[sid] = json.loads(data)["id"]
                        self.duplicates += r.status == 200
                else:
                    self.failed.append((kind, path, r.status, data[:200]))
        conn.close()


def wait_ready(port, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            c.request("GET", "/readyz")
            if c.getresponse().status == 200:
                return True
        except OSError:
            pass
        time.sleep(0.05)
    return False


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--server", required=True)
    p.add_argument("--nginx", required=True)
    p.add_argument("--document", required=True)
    p.add_argument("--workdir", required=True)
    p.add_argument("--db", default="")
    p.add_argument("--uploads-per-second", type=float, default=20)
    p.add_argument("--pages-per-second", type=float, default=60)
    p.add_argument("--upload-clients", type=int, default=4)
    p.add_argument("--page-clients", type=int, default=6)
    p.add_argument("--settle", type=float, default=3.0, help="seconds between one replica ready and the next restart")
    args = p.parse_args()
    workdir = fresh_workdir(os.path.abspath(args.workdir))
    c = Checks()
    db = args.db or "sqlite:" + os.path.join(workdir, "shared.sqlite")
    cert, key = make_certificate(workdir)
    ports = [free_port(), free_port()]
    replicas = [Server(args.server, db, workdir, OPTS, "replica-%d-0" % k, listen="127.0.0.1:%d" % ports[k]) for k in range(2)]
    nginx = None
    load = None
    threads = []
    restarts = []
    try:
        nginx, port = start_nginx(args.nginx, workdir, ports, cert, key)
        # Small SYNTHETIC documents of two models: the pages stay cheap, so
        # that the two cores go to the restarts, not to drawing charts.
        base = crowd_fill.small_base(args.document)
        rng = random.Random(5)
        docs = [json.dumps(fx.make_document(base, fx.MODELS[m], rng, v)) for m in range(2) for v in range(4)]
        keys = sorted({fx.model_key(*fx.MODELS[m][:4]) for m in range(2)})
        load = Load(port, cert)
        pages = ["/", "/api/v1/gpus", "/gpu/" + keys[0], "/api/v1/gpus/%s/experiments/stream" % keys[1], "/api/v1/stats",
                 "/experiment/stream"]

        def upload(tag, i):
            sid = "%s-%d" % (tag, i)
            body = as_new_run(docs[i % len(docs)][:-1] + ', "submission_id": "%s"}' % sid, sid)
            return "POST", "/api/v1/results", body, {"Content-Type": "application/json"}, sid

        def page(tag, i):
            return "GET", pages[i % len(pages)], None, {}, None

        # One upload of each model first, so that every page exists.
        for i in range(2):
            conn = load.connection()
            conn.request("POST", "/api/v1/results", body=docs[i * 4], headers={"Content-Type": "application/json"})
            r = conn.getresponse()
            r.read()
            conn.close()
        threads = [threading.Thread(target=load.run, args=("upload", args.uploads_per_second / args.upload_clients, upload, "u%d" % k))
                   for k in range(args.upload_clients)]
        threads += [threading.Thread(target=load.run, args=("page", args.pages_per_second / args.page_clients, page, "p%d" % k))
                    for k in range(args.page_clients)]
        t_start = time.time()
        for t in threads:
            t.start()
        time.sleep(2.0)
        for k in range(2):
            old = replicas[k]
            t0 = time.time()
            old.proc.send_signal(signal.SIGTERM)
            code = old.proc.wait(timeout=30)
            drained = time.time() - t0
            old.stop()
            replicas[k] = Server(args.server, db, workdir, OPTS, "replica-%d-1" % k, listen="127.0.0.1:%d" % ports[k])
            ready = wait_ready(ports[k])
            restarts.append((k, code, drained, time.time() - t0, ready))
            time.sleep(args.settle)
        load.stop.set()
        for t in threads:
            t.join()
        wall = time.time() - t_start
        for k, code, drained, back, ready in restarts:
            print("replica %d: SIGTERM -> exit %s after %.2f s; ready again %.2f s after SIGTERM" % (k, code, drained, back))
        lat = sorted(load.latencies)
        print("%.1f s: %d uploads (%.1f/s, %d answered as duplicates of an earlier attempt), %d page requests (%.1f/s), "
              "%d failed; p50 %.1f ms, p99 %.1f ms" %
              (wall, load.ok["upload"], load.ok["upload"] / wall, load.duplicates, load.ok["page"], load.ok["page"] / wall,
               len(load.failed), lat[len(lat) // 2] * 1000, lat[int(len(lat) * 0.99)] * 1000))
        c.check("both replicas drained, exited 0 and were ready again",
                len(restarts) == 2 and all(r[1] == 0 and r[4] for r in restarts), restarts)
        c.check("0 failed client requests", not load.failed, load.failed[:5])
        c.check("the load ran throughout (uploads and pages answered)", load.ok["upload"] > 20 and load.ok["page"] > 50, load.ok)
        srv = replicas[0]
        missing = [sid for sid, rid in load.acked.items() if srv.request("GET", "/api/v1/results/" + rid)[0] != 200]
        c.check("0 lost: every acknowledged upload is stored (%d)" % len(load.acked), not missing, missing[:5])
        _, _, stats = srv.json("GET", "/api/v1/stats")
        c.check("0 duplicated: stored = acknowledged submissions + the 2 first uploads",
                stats["results"] == len(load.acked) + 2, (stats, len(load.acked)))
        for k in range(2):
            old_log = open(os.path.join(workdir, "replica-%d-0.log" % k), errors="replace").read()
            c.check("replica %d said it drained" % k, "drained" in old_log, old_log[-300:])
    finally:
        if load:
            load.stop.set()
        for t in threads:
            t.join(timeout=60)
        if nginx:
            nginx.terminate()
            nginx.wait(timeout=10)
        for r in replicas:
            r.stop()
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
