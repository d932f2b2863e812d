#!/usr/bin/env python3
"""A bounded load generator for gmlab-server on loopback.

Starts gmlab-server on a fresh database (SQLite file by default, or --db
postgres://...), then for --seconds (default 30) posts realistic run documents
from --clients threads: the committed run in the compact gmlab.run/1.1 form
that `gmlab run` writes by default (or, --form trimmed, with --samples raw
samples per point), each with its own submission_id. Prints uploads/s, p50
and p99 latency, failures, CPU per upload and the server's resident memory,
and checks that every acknowledged upload is stored, once.

Then, for each count in --stored (default 10,000 and 100,000), fills the
database up to that many results with gmlab-server-fill (the storage code
without HTTP, folding the aggregates as the servers' refreshers do), starts a
fresh server and times the GPU page, the per-experiment aggregates, the GPU
list and the home page the first time (cold) and after, then posts uploads for
--again-seconds (default 10) and times the GPU page at once, and prints the
resident memory.

--compare-observability runs only the uploads, in rounds of --seconds with
the access log and the metrics off (--access-log off, no --metrics-listen)
and on (--access-log to a file, --metrics-listen, a scrape every second),
in the order off, on, on, off (so that a database growing under the rounds
favours neither), each on a fresh server on the same database (or, with
--fresh-database, each on a new, empty one, so that no round inherits what
the rounds before it stored), and prints uploads/s and server CPU per upload
of each and the cost of having them on. On a machine of few cores the load
generator, the server and the database share them: compare several rounds,
not one.

Only 127.0.0.1 is contacted; every loop is bounded in time and count.
"""
import argparse
import http.client
import json
import multiprocessing
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "server"))
from harness import Server, compact, load_document, trimmed  # noqa: E402
import zstd_codec  # noqa: E402


def rss_mb(pid, field="VmRSS"):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def cpu_seconds(pid):
    """User + system CPU time of a process so far (from /proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def own_cpu_seconds():
    """CPU time of this process and of its finished load generator children."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def pct(values, q):
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, int(round(q * (len(v) - 1))))]


class Poster(threading.Thread):
    def __init__(self, port, make_body, deadline, max_uploads, tag):
        super().__init__()
        self.port, self.make_body, self.deadline, self.max_uploads, self.tag = port, make_body, deadline, max_uploads, tag
        self.latencies, self.ids, self.failures = [], [], []

    def run(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        i = 0
        while time.monotonic() < self.deadline and i < self.max_uploads:
            body, headers = self.make_body(f"{self.tag}-{i}")
            i += 1
            t0 = time.perf_counter()
            try:
                conn.request("POST", "/api/v1/results", body=body, headers=headers)
                r = conn.getresponse()
                data = r.read()
            except (OSError, http.client.HTTPException) as e:
                self.failures.append(str(e))
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                continue
            self.latencies.append(time.perf_counter() - t0)
            if r.status == 201:
                self.ids.append(json.loads(data)["id"])
            else:
                self.failures.append(r.status)
        conn.close()


def load_threads(port, make_body, deadline, clients, max_uploads, tag):
    # Spread max_uploads over the clients so that they add up exactly.
    threads = [Poster(port, make_body, deadline, max_uploads // clients + (k < max_uploads % clients), f"{tag}{k}")
               for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return ([x for t in threads for x in t.latencies], [x for t in threads for x in t.ids],
            [x for t in threads for x in t.failures])


def load_process(queue, *args):
    queue.put(load_threads(*args))


def load(port, make_body, seconds, clients, max_uploads, tag, processes=1):
    """clients threads spread over `processes` processes: one Python process
    cannot drive many connections at once (its threads share one interpreter
    lock), so on a machine with few cores it, not the server, sets the pace."""
    deadline = time.monotonic() + seconds
    t0 = time.monotonic()
    if processes <= 1:
        lat, ids, fails = load_threads(port, make_body, deadline, clients, max_uploads, tag)
        return time.monotonic() - t0, lat, ids, fails
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    procs = []
    for k in range(processes):
        n = clients // processes + (k < clients % processes)
        m = max_uploads // processes + (k < max_uploads % processes)
        procs.append(ctx.Process(target=load_process, args=(queue, port, make_body, deadline, n, m, f"{tag}p{k}-")))
    for pr in procs:
        pr.start()
    parts = [queue.get() for _ in procs]
    for pr in procs:
        pr.join()
    wall = time.monotonic() - t0
    return (wall, [x for p in parts for x in p[0]], [x for p in parts for x in p[1]], [x for p in parts for x in p[2]])


class BodyMaker:
    """Upload bodies that differ only in their created_at and submission_id
    (the server stores one run once: each body must be a run of its own), as
    gmlab-upload sends them: minified JSON as one zstd frame at level 19 (or,
    encoding "gzip", as gmlab-upload sends to a server without zstd;
    "identity": plain).

    Compressing each body anew would cost the load generator more than the
    server, so the document's head is compressed once and each body appends its
    own tail, `"created_at":"...","submission_id":"..."}`: for zstd, the head's blocks and the
    tail as a raw last block under a header declaring the whole size; for
    gzip, the head ends on a byte boundary (a sync flush) and the tail's
    deflate blocks follow. Either is one valid frame or member of the whole
    text, decoded by the server as any other."""

    def __init__(self, doc, encoding):
        doc = {k: v for k, v in doc.items() if k not in ("created_at", "submission_id")}
        text = json.dumps(doc, separators=(",", ":"))
        self.head = text[:-1].encode() + b',"created_at":"2026-01-01T00:00:00Z/'
        self.encoding = encoding
        c = zlib.compressobj(6, zlib.DEFLATED, -15)
        self.deflated_head = c.compress(self.head) + c.flush(zlib.Z_SYNC_FLUSH)
        self.head_crc = zlib.crc32(self.head)
        self.zstd_head = zstd_codec.compress(self.head) if encoding == "zstd" else None

    def __call__(self, sid):
        tail = sid.encode() + b'","submission_id":"' + sid.encode() + b'"}'
        if self.encoding == "identity":
            return self.head + tail, {"Content-Type": "application/json"}
        if self.encoding == "zstd":
            body = zstd_codec.frame_with_raw_tail(self.zstd_head, len(self.head), tail)
            return body, {"Content-Type": "application/json", "Content-Encoding": "zstd"}
        c = zlib.compressobj(6, zlib.DEFLATED, -15)
        size = len(self.head) + len(tail)
        body = b"".join([b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff", self.deflated_head,
                         c.compress(tail) + c.flush(),
                         zlib.crc32(tail, self.head_crc).to_bytes(4, "little"),
                         (size & 0xFFFFFFFF).to_bytes(4, "little")])
        return body, {"Content-Type": "application/json", "Content-Encoding": "gzip"}


def timed_get(srv, path, repeat):
    times = []
    status = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        status, _, body = srv.request("GET", path, timeout=120)
        times.append(time.perf_counter() - t0)
    return status, times, len(body)


def time_pages(srv, key, label):
    """Each page the first time after the server started (nothing of it in
    memory: the cold case) and then a few times more."""
    pid = srv.proc.pid
    for name, path, n in [("GPU page", f"/gpu/{key}", 5),
                          ("aggregate stream (API)", f"/api/v1/gpus/{key}/experiments/stream", 5),
                          ("aggregate stride_copy (API)", f"/api/v1/gpus/{key}/experiments/stride_copy", 5),
                          ("GPU list (API)", "/api/v1/gpus", 5),
                          ("home page", "/", 5)]:
        st, times, size = timed_get(srv, path, n)
        print(f"[{label}] {name}: status {st}, {size / 1024:.0f} KiB, cold {times[0] * 1000:.1f} ms, "
              f"then median {statistics.median(times[1:]) * 1000:.1f} ms over {n - 1}; server RSS {rss_mb(pid):.1f} MB")


def fill(fill_binary, db, document_path, count, seed):
    """Adds `count` uploads through the storage directly (gmlab-server-fill),
    folded into the aggregates as the servers' refreshers fold them."""
    if count <= 0:
        return
    t0 = time.monotonic()
    out = subprocess.run([fill_binary, "--db", db, "--document", document_path, "--count", str(count),
                          "--seed", str(seed), "--threads", "4"], capture_output=True, text=True)
    sys.stdout.write("".join("  " + line + "\n" for line in out.stdout.splitlines()))
    if out.returncode != 0:
        raise RuntimeError("gmlab-server-fill failed: " + out.stderr[-2000:])
    print(f"  fill took {time.monotonic() - t0:.1f} s")


def scrape_loop(port, stop, times):
    """GET /metrics every second, as a Prometheus would, until stop."""
    while not stop.wait(1.0):
        t0 = time.perf_counter()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/metrics")
        conn.getresponse().read()
        conn.close()
        times.append(time.perf_counter() - t0)


def empty_database(db, work, k):
    """A new, empty database beside `db` for round k: an SQLite file in
    `work`, or a PostgreSQL database made on db's server (psql)."""
    if not db.startswith("postgres"):
        return "sqlite:" + os.path.join(work, "observe-%d.sqlite" % k)
    u = urllib.parse.urlsplit(db)
    admin = urllib.parse.urlunsplit((u.scheme, u.netloc, "/postgres", u.query, ""))
    name = "gmlab_observe_%d" % k
    subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", admin, "-c", "DROP DATABASE IF EXISTS %s" % name,
                    "-c", "CREATE DATABASE %s" % name], check=True, capture_output=True)
    return urllib.parse.urlunsplit((u.scheme, u.netloc, "/" + name, u.query, ""))


def drop_database(db):
    if not db.startswith("postgres"):
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(db[len("sqlite:"):] + suffix):
                os.unlink(db[len("sqlite:"):] + suffix)
        return
    u = urllib.parse.urlsplit(db)
    admin = urllib.parse.urlunsplit((u.scheme, u.netloc, "/postgres", u.query, ""))
    subprocess.run(["psql", "-X", "-q", "-d", admin, "-c", "DROP DATABASE IF EXISTS %s" % u.path.lstrip("/")],
                   check=True, capture_output=True)


def compare_observability(a, db, work, make_body, rounds):
    """Uploads with the access log and metrics off and on, alternated."""
    results = {"off": [], "on": []}
    order = ["off", "on", "on", "off"] * rounds
    shared = db
    for k, mode in enumerate(order):
        db = empty_database(shared, work, k) if a.fresh_database else shared
        opts = ["--write-rate", "0", "--read-rate", "0"]
        if mode == "on":
            opts += ["--access-log", os.path.join(work, "access-%d.log" % k), "--metrics-listen", "127.0.0.1:0"]
        else:
            opts += ["--access-log", "off"]
        srv = Server(a.server, db, work, opts, "observe-%d" % k)
        stop, scrapes = threading.Event(), []
        scraper = threading.Thread(target=scrape_loop, args=(srv.metrics_port, stop, scrapes)) if mode == "on" else None
        try:
            pid = srv.proc.pid
            if scraper:
                scraper.start()
            cpu0 = cpu_seconds(pid)
            wall, lat, ids, fails = load(srv.port, make_body, a.seconds, a.clients, 10**9, "obs%d-" % k, a.processes)
            cpu = cpu_seconds(pid) - cpu0
        finally:
            stop.set()
            if scraper:
                scraper.join()
            srv.stop()
            if a.fresh_database:
                drop_database(db)
        n = max(1, len(ids))
        results[mode].append((len(ids) / wall, cpu / n * 1000))
        extra = ", %d scrapes, median %.2f ms" % (len(scrapes), statistics.median(scrapes) * 1000) if scrapes else ""
        print(f"round {k + 1} ({mode}): {len(ids) / wall:.1f} uploads/s, p99 {pct(lat, 0.99) * 1000:.1f} ms, "
              f"server CPU {cpu / n * 1000:.3f} ms per upload, failures {len(fails)}{extra}")
    mean = lambda xs: sum(xs) / len(xs)
    off_rate, on_rate = mean([r for r, _ in results["off"]]), mean([r for r, _ in results["on"]])
    off_cpu, on_cpu = mean([c for _, c in results["off"]]), mean([c for _, c in results["on"]])
    print(f"access log and metrics off: {off_rate:.1f} uploads/s, {off_cpu:.3f} ms CPU per upload")
    print(f"access log and metrics on:  {on_rate:.1f} uploads/s, {on_cpu:.3f} ms CPU per upload")
    print(f"cost of having them on: throughput {100 * (off_rate - on_rate) / off_rate:+.1f} %, "
          f"CPU per upload {100 * (on_cpu - off_cpu) / off_cpu:+.1f} %")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--server", required=True)
    p.add_argument("--fill", default="", help="gmlab-server-fill (default: beside --server)")
    p.add_argument("--document", default=os.path.join(HERE, "..", "results", "nvidia-h200.json"))
    p.add_argument("--form", choices=("compact", "trimmed"), default="compact",
                   help="compact: the gmlab.run/1.1 form gmlab run writes by default (deciles, no samples); "
                        "trimmed: the document with --samples raw samples kept per point")
    p.add_argument("--encoding", choices=("zstd", "gzip", "identity"), default="zstd",
                   help="zstd: minified, one zstd frame, as gmlab-upload sends a document; gzip: as it sends to a "
                        "server that does not take zstd; identity: plain JSON")
    p.add_argument("--db", default="", help="database URL (default: a fresh SQLite file)")
    p.add_argument("--seconds", type=float, default=30)
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--processes", type=int, default=2, help="load generator processes sharing the clients")
    p.add_argument("--samples", type=int, default=10, help="raw samples kept per point (--form trimmed)")
    p.add_argument("--again-seconds", type=float, default=10,
                   help="seconds of uploads at each --stored count, after the pages")
    p.add_argument("--stored", default="10000,100000",
                   help="stored results at which the pages are timed, comma-separated (empty: skip)")
    p.add_argument("--fresh-database", action="store_true",
                   help="--compare-observability: each round on a new, empty database")
    p.add_argument("--compare-observability", type=int, default=0, metavar="ROUNDS",
                   help="only uploads: ROUNDS x (off, on, on, off) rounds of --seconds with the access log and "
                        "metrics off and on")
    a = p.parse_args()
    fill_binary = a.fill or os.path.join(os.path.dirname(os.path.abspath(a.server)), "gmlab-server-fill")

    work = tempfile.mkdtemp(prefix="gmlab-load-")
    db = a.db or "sqlite:" + os.path.join(work, "load.sqlite")
    raw = load_document(a.document)
    doc = compact(raw) if a.form == "compact" else trimmed(raw, a.samples)
    text = json.dumps(doc)
    document_path = os.path.join(work, "document.json")
    with open(document_path, "w") as f:
        f.write(text)
    make_body = BodyMaker(doc, a.encoding)
    sample, _ = make_body("x")
    npoints = sum(len(s["points"]) for r in doc["results"] for s in r["series"])
    print(f"document: {doc['schema']} ({a.form}), {len(make_body.head) / 1024:.0f} KiB of JSON sent as {a.encoding}, "
          f"{len(sample) / 1024:.0f} KiB per body, {len(doc['results'])} results, "
          f"{npoints} points; database: {'postgres' if db.startswith('postgres') else 'sqlite'}")
    if a.compare_observability:
        try:
            return compare_observability(a, db, work, make_body, a.compare_observability)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    opts = ["--write-rate", "0", "--read-rate", "0"]
    srv = Server(a.server, db, work, opts, "load")
    try:
        pid = srv.proc.pid
        cpu0, own0 = cpu_seconds(pid), own_cpu_seconds()
        wall, lat, ids, fails = load(srv.port, make_body, a.seconds, a.clients, 10**9, "load", a.processes)
        cpu1, own1 = cpu_seconds(pid), own_cpu_seconds()
        st, _, s = srv.json("GET", "/api/v1/stats")
        print(f"uploads: {len(ids)} in {wall:.1f} s = {len(ids) / wall:.1f} uploads/s with {a.clients} clients "
              f"in {a.processes} processes; "
              f"p50 {pct(lat, 0.5) * 1000:.1f} ms, p99 {pct(lat, 0.99) * 1000:.1f} ms, max {max(lat) * 1000:.1f} ms; "
              f"failures {len(fails)}; stored {s['results']} (acknowledged {len(ids)})")
        # CPU per upload does not depend on what else the machine runs; the
        # rate does. Both are printed: the load generator shares the machine.
        n = max(1, len(ids))
        print(f"CPU per upload: server {(cpu1 - cpu0) / n * 1000:.2f} ms, load generator {(own1 - own0) / n * 1000:.2f} ms "
              f"({os.cpu_count()} cores)")
        print(f"server resident memory after the load: {rss_mb(pid):.1f} MB")
        missing = [i for i in ids if srv.request("GET", f"/api/v1/results/{i}?format=document")[0] != 200]
        print(f"checked all {len(ids)} acknowledged ids: {len(missing)} missing")
        if s["results"] != len(ids) or missing:
            print("LOST OR EXTRA UPLOADS")
            return 1
        _, _, gpus = srv.json("GET", "/api/v1/gpus")
        key = gpus["gpus"][0]["key"]
        # Right after the load: uploads not yet folded are merged into the answer.
        time_pages(srv, key, f"{s['results']} stored, just after the load")
        stored = s["results"]
        for k, target in enumerate(int(x) for x in a.stored.split(",") if x.strip()):
            srv.stop()
            if target > stored:
                print(f"filling from {stored} to {target} stored results:")
                fill(fill_binary, db, document_path, target - stored, 1000 + k)
            # A fresh process: nothing of the pages is in its memory.
            srv = Server(a.server, db, work, opts, f"pages-{target}")
            pid = srv.proc.pid
            st, _, s = srv.json("GET", "/api/v1/stats")
            stored = s["results"]
            time_pages(srv, key, f"{stored} stored")
            # Uploads with this many stored (the refresher folds them into
            # large aggregates meanwhile), then the page at once: the answer
            # merges what is still queued.
            wall, lat, more, fails2 = load(srv.port, make_body, a.again_seconds, a.clients, 10**9, f"after{k}-",
                                           a.processes)
            print(f"[{stored} stored] uploads: {len(more) / wall:.1f}/s over {wall:.1f} s, p50 {pct(lat, 0.5) * 1000:.1f} ms, "
                  f"p99 {pct(lat, 0.99) * 1000:.1f} ms, failures {len(fails2)}")
            st, times, size = timed_get(srv, f"/gpu/{key}", 1)
            print(f"[{stored} stored] GPU page right after {len(more)} more uploads: status {st}, {times[0] * 1000:.1f} ms")
            print(f"[{stored} stored] server resident memory {rss_mb(pid):.1f} MB, peak {rss_mb(pid, 'VmHWM'):.1f} MB")
            stored += len(more)
    finally:
        srv.stop()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
