#!/usr/bin/env python3
"""What one hostile client costs gmlab-server (issue 47, items 1-4), and the
ingest rate of genuine uploads, against the server binary given (run it
against two builds, same machine, same run, to compare):

  compare   8 clients loop on GET /compare?a=ID&b=ID of the largest upload the
            server accepts (2 series of 8,000 points, else 64 of 256) for
            --seconds; meanwhile another client GETs /api/v1/gpus every 50 ms:
            its latency p50 / p99 / max and the GETs that failed or timed out
            (10 s); then the comparison's own time.
  memory    the server's RSS after --rounds genuine uploads, after the zstd
            request (16 MiB of "[1,1,..." compressed to ~1.5 KB) x8 at once,
            and after --rounds of them (8 at once).
  trickle   20 connections from 127.0.1.0/24 each declare 16777214 bytes and
            send a byte every 3 s, reconnecting when cut; genuine uploads
            from other networks, one after the other for --seconds: how many
            were stored, and the refusals by code.
  pages     the GPU page and /experiment/offset_copy (bytes, median ms of 5)
            after one genuine upload, after the 50,000-point upload, and after
            220 invented experiment names and 100 invented model names.
  ingest    genuine uploads per second, one client, --rounds of them.

    python3 bench/server_request_costs.py --server build/tools/server/gmlab-server --parts compare,memory
    (--db postgresql://... for PostgreSQL: an empty database per part)

Every server runs with --write-rate 0 --read-rate 0 (the probe's own clients
must not be rate limited) and otherwise its defaults. Only 127.0.0.0/8 is
contacted.
"""
import argparse
import copy
import http.client
import json
import os
import socket
import statistics
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "server"))
from harness import Server, as_new_run, load_document, trimmed  # noqa: E402
import zstd_codec  # noqa: E402

OPEN = ["--write-rate", "0", "--read-rate", "0"]


def request(port, method, path, body=None, headers=None, source="127.0.0.1", timeout=10):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(source, 0))
    try:
        h = dict(headers or {})
        if body is not None:
            h.setdefault("Content-Type", "application/json")
        conn.request(method, path, body=body, headers=h)
        r = conn.getresponse()
        data = r.read()
        return r.status, data
    except (OSError, http.client.HTTPException) as e:
        return None, repr(e).encode()
    finally:
        conn.close()


def post(port, doc, source="127.0.0.1", timeout=60):
    """Posts the document; one with a submission_id is made a run of its own
    by it (its created_at): the server stores the same run once."""
    text = json.dumps(doc)
    if "submission_id" in doc:
        text = as_new_run(text, doc["submission_id"])
    st, data = request(port, "POST", "/api/v1/results", text.encode(), source=source, timeout=timeout)
    try:
        return st, json.loads(data)
    except ValueError:
        return st, {"raw": data[:200].decode(errors="replace")}


def rss_mib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0


def offset_copy(doc, series, points, sid, suffix="", lean=False):
    """The document with only its offset_copy result: `series` series of
    `points` points each (copies of its own at x 0, 1, ...); lean: without
    counters, predictions, samples and deciles (50,000 points in 15 MB)."""
    d = copy.deepcopy(doc)
    d["results"] = [r for r in d["results"] if r["experiment"]["name"] == "offset_copy"][:1]
    one = d["results"][0]["series"][0]
    base = one["points"]
    pts = []
    for i in range(points):
        p = copy.deepcopy(base[i % len(base)])
        p["x"] = i
        if lean:
            for k in ("counters", "predicted"):
                p.pop(k, None)
            for k in ("samples", "quantiles"):
                p["time_ms"].pop(k, None)
        pts.append(p)
    d["results"][0]["series"] = [dict(one, name="%s %d" % (one["name"], k), points=pts) for k in range(series)]
    d["submission_id"] = sid
    d["device"]["name"] += suffix
    return d


class Probe:
    def __init__(self, args, name):
        self.args = args
        self.dir = tempfile.mkdtemp(prefix="gm-costs-")
        db = args.db or "sqlite:" + os.path.join(self.dir, "results.sqlite")
        self.srv = Server(args.server, db, self.dir, OPEN + args.extra.split(), name)
        self.port = self.srv.port

    def stop(self):
        self.srv.stop()


def percentile(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * (len(v) - 1) + 0.5))] if v else float("nan")


def part_compare(args, doc):
    p = Probe(args, "compare")
    try:
        ids, shape = [], None
        for series, points in ((2, 8000), (64, 256)):
            st, r = post(p.port, offset_copy(doc, series, points, "cmp-%d-a" % points, " cmp"))
            if st == 201:
                st2, r2 = post(p.port, offset_copy(doc, series, points, "cmp-%d-b" % points, " cmp"))
                ids, shape = [r["id"], r2["id"]], (series, points)
                break
        if not ids:
            return print("compare: no upload accepted")
        path = "/compare?a=%s&b=%s" % tuple(ids)
        t0 = time.monotonic()
        one_status, body = request(p.port, "GET", path, timeout=60)
        one = time.monotonic() - t0
        stop = threading.Event()
        answers = []

        def loop(k):
            while not stop.is_set():
                st = request(p.port, "GET", path, source="127.0.3.%d" % (k + 2), timeout=600)[0]
                answers.append(st)
                if st != 200:
                    time.sleep(0.05)  # refused at once: again soon, without taking the probe's CPU

        loops = [threading.Thread(target=loop, args=(k,), daemon=True) for k in range(8)]
        for t in loops:
            t.start()
        lat, failed = [], 0
        end = time.monotonic() + args.seconds
        while time.monotonic() < end:
            t1 = time.monotonic()
            st, _ = request(p.port, "GET", "/api/v1/gpus", source="127.0.4.2", timeout=10)
            dt = time.monotonic() - t1
            if st == 200:
                lat.append(dt)
            else:
                failed += 1
            time.sleep(max(0.0, 0.05 - dt))
        stop.set()
        print("compare: upload %d series x %d points; one /compare alone: %.2f s (%s, %d bytes; the client waits 60 s at most)"
              % (shape[0], shape[1], one, one_status, len(body)))
        print("compare: others' GET /api/v1/gpus during 8 comparison loops (%d s): %d answered, %d failed or timed out; "
              "p50 %.0f ms, p99 %.0f ms, max %.0f ms; comparisons answered: %s"
              % (args.seconds, len(lat), failed, 1e3 * percentile(lat, 0.5), 1e3 * percentile(lat, 0.99),
                 1e3 * (max(lat) if lat else float("nan")), {s: answers.count(s) for s in set(answers)}))
    finally:
        t0 = time.monotonic()
        p.stop()
        print("compare: SIGTERM to exit %.1f s" % (time.monotonic() - t0))


def part_memory(args, doc):
    p = Probe(args, "memory")
    try:
        start = rss_mib(p.srv.proc.pid)
        for i in range(args.rounds):
            post(p.port, doc | {"submission_id": "mem-%d" % i})
        genuine = rss_mib(p.srv.proc.pid)
        bomb = zstd_codec.compress(b"[" + b"1," * ((16 << 20) // 2 - 2) + b"1]", level=3)
        # The same padded to one value per 7 bytes: a body a cheap check of
        # its density lets through to the parser.
        padded = zstd_codec.compress(b"[" + b"1,     " * ((16 << 20) // 7 - 2) + b"1]", level=3)
        codes = {}

        def hostile(k, n, body):
            for _ in range(n):
                st, data = request(p.port, "POST", "/api/v1/results", body, {"Content-Encoding": "zstd"},
                                   source="127.0.5.%d" % (k + 2), timeout=120)
                codes[st] = codes.get(st, 0) + 1

        def wave(n, body):
            t0 = time.monotonic()
            ts = [threading.Thread(target=hostile, args=(k, n, body)) for k in range(8)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            took = time.monotonic() - t0
            time.sleep(0.5)
            return rss_mib(p.srv.proc.pid), took

        n = max(1, args.rounds // 8)
        after8, _ = wave(1, bomb)
        after_all, took = wave(n, bomb)
        after_padded, took_padded = wave(n, padded)
        print("memory: RSS %.0f MiB at start, %.0f MiB after %d genuine uploads; the zstd request (%d bytes) x8 at once: %.0f MiB; "
              "after %d more (8 at once, %.1f s): %.0f MiB (%.2f x the genuine); after %d padded ones (%d bytes, %.1f s): %.0f MiB "
              "(%.2f x); answers %s"
              % (start, genuine, args.rounds, len(bomb), after8, 8 * n, took, after_all, after_all / genuine, 8 * n, len(padded),
                 took_padded, after_padded, after_padded / genuine, codes))
    finally:
        p.stop()


def part_trickle(args, doc):
    p = Probe(args, "trickle")
    stop = threading.Event()

    def trickle(i):
        while not stop.is_set():
            try:
                s = socket.create_connection(("127.0.0.1", p.port), timeout=10, source_address=("127.0.1.%d" % (i + 2), 0))
                s.sendall(b"POST /api/v1/results HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                          b"Content-Length: 16777214\r\n\r\n")
                s.settimeout(3)
                while not stop.is_set():
                    try:
                        if not s.recv(4096):
                            break
                        break  # answered: reconnect
                    except socket.timeout:
                        s.sendall(b" ")
                s.close()
            except OSError:
                time.sleep(0.5)

    ts = [threading.Thread(target=trickle, args=(i,), daemon=True) for i in range(20)]
    try:
        for t in ts:
            t.start()
        time.sleep(2)
        stored, codes, i = 0, {}, 0
        end = time.monotonic() + args.seconds
        while time.monotonic() < end:
            st, r = post(p.port, doc | {"submission_id": "trickle-%d" % i}, source="127.0.%d.2" % (10 + i % 200))
            i += 1
            stored += st == 201
            key = "%s %s" % (st, r.get("code", "")) if st != 201 else "201"
            codes[key] = codes.get(key, 0) + 1
        print("trickle: %d of %d genuine uploads stored in %d s while 20 connections of one /24 trickled; answers %s"
              % (stored, i, args.seconds, codes))
    finally:
        stop.set()
        p.stop()


def timed_page(port, path, repeat=5):
    times, size, st = [], 0, None
    for k in range(repeat + 1):
        t0 = time.perf_counter()
        st, body = request(port, "GET", path, timeout=300)
        if k:
            times.append((time.perf_counter() - t0) * 1e3)
        size = len(body)
    return st, size, statistics.median(times)


def part_pages(args, doc):
    p = Probe(args, "pages")
    try:
        st, r = post(p.port, doc | {"submission_id": "pages-genuine"})
        key = r["gpu_url"].rsplit("/", 1)[1]

        def measure(what):
            for path in ("/gpu/" + key, "/experiment/offset_copy", "/"):
                st, size, ms = timed_page(p.port, path)
                print("pages: %-34s %-26s %d %8.0f KB %7.0f ms" % (what, path[:26], st, size / 1e3, ms))

        measure("one genuine upload")
        big = offset_copy(doc, 1, 50000, "pages-50k", lean=True)
        big["results"][0]["series"].append(doc_series(doc))
        body = json.dumps(big)
        st, r = post(p.port, big)
        print("pages: the 50,000-point upload (%.1f MB): %s %s" % (len(body) / 1e6, st, r.get("code", "")))
        time.sleep(2.5)
        measure("after the 50,000-point upload")
        invented = copy.deepcopy(doc)
        base = invented["results"][1]
        invented["results"] = [dict(base, experiment=dict(base["experiment"], name="invented_%03d" % i)) for i in range(220)]
        invented["submission_id"] = "pages-invented"
        st, r = post(p.port, invented)
        print("pages: 220 invented experiment names: %s %s" % (st, r.get("code", "")))
        stored = 0
        for i in range(100):
            d = copy.deepcopy(doc)
            d["device"]["name"] += " invented %03d" % i
            d["submission_id"] = "pages-model-%d" % i
            stored += post(p.port, d)[0] == 201
        print("pages: 100 invented model names: %d stored" % stored)
        time.sleep(2.5)
        measure("after invented names")
    finally:
        p.stop()


def doc_series(doc):
    return [r for r in doc["results"] if r["experiment"]["name"] == "offset_copy"][0]["series"][1]


def part_ingest(args, doc):
    p = Probe(args, "ingest")
    try:
        t0 = time.monotonic()
        ok = 0
        for i in range(args.rounds):
            ok += post(p.port, doc | {"submission_id": "ingest-%d" % i})[0] == 201
        dt = time.monotonic() - t0
        print("ingest: %d of %d genuine uploads (%d KB each) in %.1f s: %.1f uploads/s"
              % (ok, args.rounds, len(json.dumps(doc)) / 1e3, dt, ok / dt))
    finally:
        p.stop()


PARTS = {"compare": part_compare, "memory": part_memory, "trickle": part_trickle, "pages": part_pages, "ingest": part_ingest}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--server", required=True)
    ap.add_argument("--db", default="")
    ap.add_argument("--document", default=os.path.join(HERE, "..", "results", "nvidia-h200.json"))
    ap.add_argument("--parts", default=",".join(PARTS))
    ap.add_argument("--seconds", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--extra", default="", help='more server options, one string: --extra="--expensive-rate 0"')
    args = ap.parse_args()
    doc = trimmed(load_document(args.document))
    for name in args.parts.split(","):
        t0 = time.monotonic()
        PARTS[name](args, doc)
        print("(%s: %.0f s)" % (name, time.monotonic() - t0))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
