#!/usr/bin/env python3
"""What an operator runs gmlab-server with, tested as an operator would:

- /healthz and /readyz answer on both addresses, skip the rate limits, stay
  out of the access log, and /readyz says 503 with the reason when the
  refresher's backlog passes --ready-max-backlog (and, on PostgreSQL, when the
  database refuses connections);
- /metrics, served only on --metrics-listen, parses with the Prometheus
  client's own parser (Debian's python3-prometheus-client), and its counters
  move as requests are made: requests by route and status, latency
  histograms, refusals by reason (408, 413, 429, 431, 503), uploads stored,
  duplicate and refused, open connections;
- the access log has one JSON line per request with the route pattern and
  the client address through --trusted-proxy, never a token, a query string
  or a body; SIGHUP reopens it after logrotate moved or deleted it, and says
  so when it cannot;
- requests on the wrong address and bad flags get a clear message.

Hostile clients come from other loopback addresses (127.0.0.2 and up)."""
import json
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
import urllib.parse

SERVER_TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, SERVER_TESTS)
from harness import Checks, Server, arguments, as_new_run, default_db, fresh_workdir, load_document, settled, trimmed, wait_until  # noqa: E402

from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

ADMIN = "admin-token-NEVER-LOGGED-1234567890"
MODERATOR = "moderator-token-NEVER-LOGGED-0987654321"
BODY_MARKER = "BODY-MARKER-never-in-the-log"
QUERY_SECRET = "QUERY-SECRET-never-in-the-log"
REASON_MARKER = "REASON-MARKER-never-in-the-log"


def scrape(port):
    """{(sample name, frozenset(labels)): value} of one scrape, parsed by the
    Prometheus client's parser; and the families' types."""
    srv = Server.__new__(Server)
    srv.port = port
    st, hdrs, body = srv.request("GET", "/metrics")
    assert st == 200, (st, body[:300])
    samples, types = {}, {}
    for fam in text_string_to_metric_families(body.decode()):
        types[fam.name] = fam.type
        for s in fam.samples:
            samples[(s.name, frozenset(s.labels.items()))] = s.value
    return samples, types, hdrs


def value(samples, name, **labels):
    return samples.get((name, frozenset(labels.items())), 0.0)


def settled_scrape(port):
    """A scrape once the requests already answered are all counted (harness.settled)."""
    return settled(lambda: scrape(port), lambda m: sum(
        v for k, v in m[0].items() if k[0] in ("gmlab_http_requests_total", "gmlab_http_refusals_total")))


def raw(port, source, data, timeout=10, rcvbuf=None):
    s = socket.socket()
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(timeout)
    s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    if data:
        s.sendall(data)
    return s


def read_status(s):
    data = b""
    try:
        while b"\r\n\r\n" not in data:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    m = re.match(rb"HTTP/1\.[01] (\d+)", data)
    return (int(m.group(1)) if m else None), data


def ready(srv, seconds=10):
    """/readyz's answer once it is 200, or the last one after `seconds`."""
    last = []

    def answer():
        last.append(srv.json("GET", "/readyz"))
        return last[-1][0] == 200

    wait_until(answer, seconds)
    return last[-1]


def as_client(addr):
    return {"X-Forwarded-For": addr}


def health(c, srv, metrics_port):
    st, _, h = srv.json("GET", "/healthz")
    c.check("GET /healthz answers 200 alive on the public address", st == 200 and h == {"status": "alive"}, (st, h))
    st, _, r = ready(srv)
    c.check("GET /readyz answers 200 ready with the backlog", st == 200 and r.get("status") == "ready" and "backlog" in r, (st, r))
    probe = Server.__new__(Server)
    probe.port = metrics_port
    st1, _, _ = probe.json("GET", "/healthz")
    st2, _, r2 = probe.json("GET", "/readyz")
    c.check("both are served on the metrics address too", st1 == 200 and st2 == 200 and r2.get("status") == "ready", (st1, st2))
    # Probes skip the rate limits: 30 from one client whose burst is 4.
    probes = [srv.request("GET", "/readyz" if i % 2 else "/healthz", headers=as_client("198.51.100.90"))[0] for i in range(30)]
    c.check("30 probes from one client with a burst of 4 all answer 200 (no rate limit)", probes == [200] * 30, probes)
    reads = [srv.request("GET", "/api/v1/gpus", headers=as_client("198.51.100.90"))[0] for _ in range(5)]
    c.check("... and took none of its tokens: its next reads are 4 x 200, then 429", reads == [200] * 4 + [429], reads)


def ready_backlog(c, args, workdir, doc):
    """--ready-max-backlog 0: an upload not yet folded makes /readyz 503."""
    srv = Server(args.server, default_db(args, "backlog.sqlite"), workdir,
                 ["--ready-max-backlog", "0", "--write-rate", "0", "--read-rate", "0"], "backlog")
    try:
        srv.json("POST", "/api/v1/results", as_new_run(json.dumps(dict(doc, submission_id="backlog-1")), "backlog-1"))
        st, _, r = srv.json("GET", "/readyz")
        c.check("an upload not yet folded, with --ready-max-backlog 0: /readyz is 503 naming the bound",
                st == 503 and r.get("code") == "not_ready" and "--ready-max-backlog" in r.get("message", "") and r.get("backlog", 0) >= 1,
                (st, r))
        st, _, r = ready(srv)
        c.check("... and 200 again once the refresher has folded it", st == 200 and r.get("backlog") == 0, (st, r))
    finally:
        srv.stop()
    err = open(srv.log_path, errors="replace").read().splitlines()
    said = [l for l in err if not l.startswith("{") and ("readyz" in l or "not_ready" in l or "error" in l.lower())]
    probes = [l for l in err if l.startswith("{") and "/readyz" in l]
    c.check("a 503 from /readyz is not logged, as an error or at all", not said and not probes, (said, probes))


def postgres_down(c, srv, metrics_port, db):
    """The database refusing connections: /readyz 503 with libpq's reason,
    database errors counted, and ready again once it takes them again."""
    psql = shutil.which("psql") or "/usr/bin/psql"
    u = urllib.parse.urlsplit(db)
    admin = urllib.parse.urlunsplit((u.scheme, u.netloc, "/postgres", u.query, ""))
    name = u.path.lstrip("/")

    def sql(q):
        subprocess.run([psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", admin, "-c", q], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    before, _, _ = scrape(metrics_port)
    sql(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
    sql(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}' AND pid <> pg_backend_pid()")
    try:
        time.sleep(0.3)
        st, _, r = srv.json("GET", "/readyz")
        c.check("PostgreSQL refusing connections: /readyz is 503 saying the database does not answer",
                st == 503 and "database does not answer" in r.get("message", ""), (st, r))
        st, _, _ = srv.json("GET", "/healthz")
        c.check("... while /healthz still answers 200 (the process is alive)", st == 200, st)
        after, _, _ = scrape(metrics_port)
        c.check("... and gmlab_database_errors_total counts the failures",
                value(after, "gmlab_database_errors_total") > value(before, "gmlab_database_errors_total"),
                (value(before, "gmlab_database_errors_total"), value(after, "gmlab_database_errors_total")))
    finally:
        sql(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
    st, _, r = ready(srv)
    c.check("... and 200 again once the database takes connections again", st == 200, (st, r))


def metrics(c, srv, metrics_port, doc):
    m0, types, hdrs = settled_scrape(metrics_port)
    c.check("/metrics is served on --metrics-listen in the text format 0.0.4",
            hdrs.get("content-type", "").startswith("text/plain; version=0.0.4"), hdrs.get("content-type"))
    expected_types = {
        "gmlab_http_requests": "counter", "gmlab_http_request_duration_seconds": "histogram",
        "gmlab_http_refusals": "counter", "gmlab_http_responses_cut": "counter", "gmlab_http_open_connections": "gauge",
        "gmlab_http_requests_waiting": "gauge", "gmlab_http_workers_busy": "gauge", "gmlab_http_draining": "gauge",
        "gmlab_uploads": "counter", "gmlab_uploads_refused": "counter", "gmlab_refresher_backlog": "gauge",
        "gmlab_refresher_lag_seconds": "gauge", "gmlab_database_errors": "counter", "gmlab_schema_version": "gauge"}
    wrong = {k: types.get(k) for k, v in expected_types.items() if types.get(k) != v}
    c.check("every family is there with its type, as the Prometheus parser reads it", not wrong, wrong)

    made = {}  # what this part sent, for the access log's checks
    body = lambda sid: as_new_run(json.dumps(dict(doc, submission_id=sid, note=BODY_MARKER)), sid)
    ids, tokens = [], []
    for i in range(3):
        st, _, r = srv.json("POST", "/api/v1/results", body(f"metrics-{i}"), as_client("198.51.100.1"))
        ids.append(r.get("id"))
        tokens.append(r.get("delete_token"))
    st_dup, _, _ = srv.json("POST", "/api/v1/results", body("metrics-0"), as_client("198.51.100.1"))
    st_bad, _, _ = srv.json("POST", "/api/v1/results", "{}", as_client("198.51.100.1"))
    s = raw(srv.port, "127.0.0.1", b"POST /api/v1/results HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 198.51.100.1\r\nContent-Type: application/json\r\n"
                                    b"Content-Length: 3000000\r\n\r\n")
    st_big, _ = read_status(s)
    s.close()
    c.check("uploads: 3 stored, a retried submission 200, an invalid one 422, a declared 3 MB one 413",
            all(ids) and st_dup == 200 and st_bad == 422 and st_big == 413, (ids, st_dup, st_bad, st_big))
    gets = [srv.request("GET", f"/api/v1/results/{ids[0]}?format=document&token={QUERY_SECRET}", headers=as_client("198.51.100.2"))[0],
            srv.request("GET", f"/api/v1/results/{ids[1]}", headers=as_client("198.51.100.2"))[0],
            srv.request("GET", "/api/v1/results/" + "f" * 32, headers=as_client("198.51.100.2"))[0]]
    st_del, _, _ = srv.json("DELETE", f"/api/v1/results/{ids[2]}", headers=dict(as_client("198.51.100.3"), Authorization="Bearer " + tokens[2]))
    st_mod, _, _ = srv.json("POST", f"/api/v1/moderation/{ids[1]}", json.dumps({"action": "hold", "reason": REASON_MARKER}),
                            dict(as_client("198.51.100.3"), Authorization="Bearer " + MODERATOR))
    st_admin, _, _ = srv.json("DELETE", "/api/v1/results/" + "e" * 32, headers=dict(as_client("198.51.100.3"), Authorization="Bearer " + ADMIN))
    st_404 = srv.request("GET", "/no/such/page", headers=as_client("198.51.100.4"))[0]
    limited = [srv.request("GET", "/api/v1/stats", headers=as_client("198.51.100.50"))[0] for _ in range(6)]
    c.check("reads: 200, 200, 404; delete 200; moderation 200; unknown path 404; 6 reads with a burst of 4: 4 x 200, 2 x 429",
            gets == [200, 200, 404] and st_del == 200 and st_mod == 200 and st_admin == 404 and st_404 == 404
            and limited == [200] * 4 + [429] * 2, (gets, st_del, st_mod, st_admin, st_404, limited))
    s = raw(srv.port, "127.0.0.2", b"GET /api/v1/gpus HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 20000 + b"\r\n\r\n")
    st_431, _ = read_status(s)
    s.close()
    s = raw(srv.port, "127.0.0.2", b"GET /api/v1/gpus HTTP/1.1\r\nHost: x\r\n")
    st_408, _ = read_status(s)
    s.close()
    held = [raw(srv.port, "127.0.0.3", b"") for _ in range(40)]
    time.sleep(0.2)
    during, _, _ = scrape(metrics_port)
    extra = raw(srv.port, "127.0.0.4", b"")
    st_503, _ = read_status(extra)
    extra.close()
    # A held connection that waited past --header-timeout-ms (a slow
    # machine) was answered 408: counted below.
    timed_out = 0
    for h in held:
        try:
            timed_out += h.recv(64, socket.MSG_DONTWAIT).startswith(b"HTTP/1.1 408")
        except OSError:
            pass
        h.close()
    c.check("refusals: headers over 16 KiB 431, headers that never end 408, a connection past --max-connections 503",
            st_431 == 431 and st_408 == 408 and st_503 == 503, (st_431, st_408, st_503))
    c.check("gmlab_http_open_connections counts the 40 connections held open",
            value(during, "gmlab_http_open_connections") >= 40, value(during, "gmlab_http_open_connections"))
    m1, _, _ = settled_scrape(metrics_port)

    def delta(name, **labels):
        return value(m1, name, **labels) - value(m0, name, **labels)

    req = "gmlab_http_requests_total"
    moved = {
        "POST /api/v1/results 201": delta(req, route="/api/v1/results", method="POST", status="201"),
        "POST /api/v1/results 200": delta(req, route="/api/v1/results", method="POST", status="200"),
        "POST /api/v1/results 422": delta(req, route="/api/v1/results", method="POST", status="422"),
        "POST /api/v1/results 413": delta(req, route="/api/v1/results", method="POST", status="413"),
        "GET /api/v1/results/{} 200": delta(req, route="/api/v1/results/{}", method="GET", status="200"),
        "GET /api/v1/results/{} 404": delta(req, route="/api/v1/results/{}", method="GET", status="404"),
        "DELETE /api/v1/results/{} 200": delta(req, route="/api/v1/results/{}", method="DELETE", status="200"),
        "GET unmatched 404": delta(req, route="unmatched", method="GET", status="404"),
        "GET /api/v1/stats 429": delta(req, route="/api/v1/stats", method="GET", status="429"),
    }
    want = {"POST /api/v1/results 201": 3, "POST /api/v1/results 200": 1, "POST /api/v1/results 422": 1,
            "POST /api/v1/results 413": 1, "GET /api/v1/results/{} 200": 2, "GET /api/v1/results/{} 404": 1,
            "DELETE /api/v1/results/{} 200": 1, "GET unmatched 404": 1, "GET /api/v1/stats 429": 2}
    c.check("gmlab_http_requests_total moved by exactly the requests made, by route pattern, method and status",
            moved == want, moved)
    ref = "gmlab_http_refusals_total"
    refusals = {k: delta(ref, status=st, reason=why) for k, (st, why) in {
        "429": ("429", "rate_limited"), "413": ("413", "too_large"), "431": ("431", "headers_too_large"),
        "408": ("408", "header_timeout"), "503": ("503", "too_many_connections")}.items()}
    c.check("gmlab_http_refusals_total counts each refusal by status and reason",
            refusals == {"429": 2, "413": 1, "431": 1, "408": 1 + timed_out, "503": 1}, (refusals, timed_out))
    up = {"stored": delta("gmlab_uploads_total", outcome="stored"), "duplicate": delta("gmlab_uploads_total", outcome="duplicate"),
          "422": sum(v - value(m0, k[0], **dict(k[1])) for k, v in m1.items()
                     if k[0] == "gmlab_uploads_refused_total" and dict(k[1]).get("status") == "422"),
          "413": delta("gmlab_uploads_refused_total", status="413", reason="too_large")}
    c.check("gmlab_uploads_total and gmlab_uploads_refused_total: 3 stored, 1 duplicate, 1 refused 422, 1 refused 413",
            up == {"stored": 3, "duplicate": 1, "422": 1, "413": 1}, up)
    hist = "gmlab_http_request_duration_seconds"
    count = value(m1, hist + "_count", route="/api/v1/results") - value(m0, hist + "_count", route="/api/v1/results")
    inf = value(m1, hist + "_bucket", route="/api/v1/results", le="+Inf")
    buckets = sorted((float(dict(k[1])["le"]), v) for k, v in m1.items()
                     if k[0] == hist + "_bucket" and dict(k[1]).get("route") == "/api/v1/results")
    c.check("the latency histogram of POST /api/v1/results counted its 6 requests, buckets rising to +Inf = count",
            count == 6 and inf == value(m1, hist + "_count", route="/api/v1/results")
            and all(a[1] <= b[1] for a, b in zip(buckets, buckets[1:])) and value(m1, hist + "_sum", route="/api/v1/results") > 0,
            (count, buckets[-3:]))
    probes = value(m1, req, route="/readyz", method="GET", status="200")
    c.check("probes are counted as requests, never as refusals", probes >= 15 and value(m1, ref, status="503", reason="not_ready") == 0,
            probes)
    c.check("gauges: nothing waiting, not draining, schema version 2, backlog and lag present",
            value(m1, "gmlab_http_requests_waiting") == 0 and value(m1, "gmlab_http_draining") == 0
            and value(m1, "gmlab_schema_version") == 2 and ("gmlab_refresher_backlog", frozenset()) in m1
            and ("gmlab_refresher_lag_seconds", frozenset()) in m1, {k[0]: v for k, v in m1.items() if not k[1]})
    times = []
    for _ in range(30):
        t0 = time.perf_counter()
        scrape(metrics_port)
        times.append(time.perf_counter() - t0)
    times.sort()
    print(f"scrape: median {times[15] * 1000:.2f} ms (client included)")
    c.check("a scrape takes under 50 ms", times[15] < 0.05, times[15])
    made.update(ids=ids, tokens=tokens)
    return made


def wrong_port(c, srv, metrics_port):
    st, _, r = srv.json("GET", "/metrics")
    c.check("/metrics on the public address: 404 wrong_port, naming neither the metrics address nor its port",
            st == 404 and r.get("code") == "wrong_port" and str(metrics_port) not in r.get("message", "x")
            and "127.0.0.1" not in r.get("message", "x"), (st, r))
    mp = Server.__new__(Server)
    mp.port = metrics_port
    st, _, r = mp.json("GET", "/api/v1/gpus")
    c.check("the API on the metrics address: 404 wrong_port naming the public address",
            st == 404 and r.get("code") == "wrong_port" and "--listen" in r.get("message", ""), (st, r))
    st, _, r = mp.json("POST", "/api/v1/results", "{}")
    c.check("an upload sent to the metrics address is refused the same way, nothing stored", st == 404 and r.get("code") == "wrong_port", (st, r))
    # Stalled clients on the metrics address do not stop scrapes.
    stalled = [raw(metrics_port, "127.0.0.5", b"GET /metrics HTTP/1.1\r\nHost: x\r\n") for _ in range(10)]
    t0 = time.time()
    samples, _, _ = scrape(metrics_port)
    c.check("10 stalled clients on the metrics address: a scrape still answers at once", time.time() - t0 < 1.0, time.time() - t0)
    for s in stalled:
        s.close()


def access_log(c, srv, log_path, made):
    lines = [l for l in open(log_path).read().splitlines() if l.strip()]
    parsed = []
    bad = []
    for l in lines:
        try:
            parsed.append(json.loads(l))
        except ValueError:
            bad.append(l)
    c.check("every access log line is one JSON object", lines and not bad, bad[:2])
    keys = {"time", "client", "method", "route", "status", "bytes_in", "bytes_out", "ms", "submission_id", "error"}
    c.check("each has time, client, method, route, status, bytes in and out, ms, submission id, error",
            all(keys <= set(p) for p in parsed), [sorted(p) for p in parsed if not keys <= set(p)][:1])
    now = time.time()
    times_ok = all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", p["time"]) and
                   abs(time.mktime(time.strptime(p["time"][:19], "%Y-%m-%dT%H:%M:%S")) - time.timezone - now) < 600
                   for p in parsed)
    c.check("times are UTC, ISO 8601 with milliseconds", times_ok, parsed[0]["time"] if parsed else None)
    uploads = [p for p in parsed if p["route"] == "/api/v1/results" and p["method"] == "POST"]
    c.check("one line per upload request (3 stored, 1 retry, 1 invalid, 1 too large)",
            sorted(p["status"] for p in uploads) == [200, 201, 201, 201, 413, 422], [p["status"] for p in uploads])
    sids = sorted(p["submission_id"] for p in uploads if p["status"] in (200, 201))
    c.check("stored uploads and the retry carry their submission id",
            sids == ["metrics-0", "metrics-0", "metrics-1", "metrics-2"], sids)
    big = [p for p in uploads if p["status"] == 201]
    c.check("an upload's bytes in are at least its body, bytes out and ms are counted",
            all(p["bytes_in"] > 5000 and p["bytes_out"] > 100 and p["ms"] > 0 for p in big), big[:1])
    c.check("the client is the address X-Forwarded-For names when the peer is a trusted proxy",
            all(p["client"] == "198.51.100.1" for p in uploads), {p["client"] for p in uploads})
    routes = {p["route"] for p in parsed}
    c.check("routes are patterns, not paths: /api/v1/results/{} and 'unmatched' for an unknown path",
            "/api/v1/results/{}" in routes and "unmatched" in routes and not any("/no/such" in r for r in routes if r), routes)
    text = open(log_path).read()
    secrets = {"delete tokens": made["tokens"], "the admin token": [ADMIN], "the moderator token": [MODERATOR],
               "the request body": [BODY_MARKER], "a query string": [QUERY_SECRET], "the moderation reason": [REASON_MARKER],
               "result ids (raw paths)": made["ids"]}
    leaked = {k: [v for v in vs if v and v in text] for k, vs in secrets.items()}
    c.check("grep: no delete token, admin or moderator token, body, query string or raw path in the log",
            not any(leaked.values()), leaked)
    c.check("health probes are not in the access log", not any(p["route"] in ("/healthz", "/readyz") for p in parsed), routes)
    errors = {p["error"] for p in parsed if p["status"] >= 400}
    c.check("error answers carry their code", {"rate_limited", "too_large", "headers_too_large", "header_timeout"} <= errors, errors)
    st, _, _ = srv.json("GET", "/api/v1/gpus", headers={"X-Forwarded-For": "203.0.113.99"})
    s = raw(srv.port, "127.0.0.6", b"GET /api/v1/stats HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 203.0.113.98\r\nConnection: close\r\n\r\n")
    read_status(s)
    s.close()
    time.sleep(0.2)
    last = [json.loads(l) for l in open(log_path).read().splitlines() if l.strip()][-1]
    c.check("an untrusted peer's X-Forwarded-For is ignored: its own address is logged",
            last["client"] == "127.0.0.6" and last["route"] == "/api/v1/stats", last)


def count_lines(path):
    try:
        return sum(1 for l in open(path) if l.strip())
    except FileNotFoundError:
        return -1


def sighup(c, srv, log_path):
    log_dir = os.path.dirname(log_path)
    rotated = log_path + ".1"
    os.rename(log_path, rotated)
    before = count_lines(rotated)
    srv.proc.send_signal(signal.SIGHUP)
    time.sleep(0.3)
    srv.request("GET", "/api/v1/gpus", headers=as_client("198.51.100.71"))
    time.sleep(0.2)
    c.check("after logrotate's rename and SIGHUP, new lines go to a new file at the path",
            count_lines(log_path) == 1 and count_lines(rotated) == before, (count_lines(log_path), count_lines(rotated), before))
    os.unlink(log_path)
    srv.proc.send_signal(signal.SIGHUP)
    time.sleep(0.3)
    srv.request("GET", "/api/v1/gpus", headers=as_client("198.51.100.72"))
    time.sleep(0.2)
    c.check("with the log file deleted, SIGHUP makes a new one and the next line is in it", count_lines(log_path) == 1,
            count_lines(log_path))
    moved = log_dir + ".gone"
    os.rename(log_dir, moved)
    srv.proc.send_signal(signal.SIGHUP)
    time.sleep(0.3)
    st, _, _ = srv.json("GET", "/api/v1/gpus", headers=as_client("198.51.100.73"))
    err = open(srv.log_path, errors="replace").read()
    c.check("with its folder gone, SIGHUP says it cannot reopen and keeps the file it had; requests are still answered",
            "cannot reopen the access log" in err and "still writing" in err and st == 200, err[-400:])
    os.rename(moved, log_dir)
    srv.proc.send_signal(signal.SIGHUP)
    time.sleep(0.3)
    n = count_lines(log_path)
    srv.request("GET", "/api/v1/gpus", headers=as_client("198.51.100.74"))
    time.sleep(0.2)
    c.check("... and once the folder is back, the next SIGHUP reopens it", count_lines(log_path) == n + 1, (n, count_lines(log_path)))
    c.check("the server is still running after four SIGHUPs", srv.proc.poll() is None, srv.proc.poll())


def stderr_log(c, args, workdir):
    srv = Server(args.server, default_db(args, "stderr.sqlite"), workdir, ["--read-rate", "0"], "stderr-log")
    try:
        srv.request("GET", "/api/v1/stats")
        time.sleep(0.2)
    finally:
        srv.stop()
    lines = [l for l in open(srv.log_path, errors="replace").read().splitlines() if l.startswith("{")]
    ok = any(json.loads(l).get("route") == "/api/v1/stats" for l in lines)
    c.check("without --access-log the lines go to stderr", ok, lines[:2])


def bad_flags(c, args, workdir):
    def run(extra):
        return subprocess.run([args.server, "--db", default_db(args, "flags.sqlite"), "--listen", "127.0.0.1:0", *extra],
                              capture_output=True, text=True, timeout=30)

    r = run(["--access-log", "/nonexistent-folder/access.log"])
    c.check("--access-log in a folder that does not exist: exit 2 with the reason",
            r.returncode == 2 and "access log" in r.stderr and "No such file" in r.stderr, (r.returncode, r.stderr))
    r = run(["--metrics-listen", "nonsense"])
    c.check("--metrics-listen without a port: exit 2", r.returncode == 2 and "--metrics-listen" in r.stderr, (r.returncode, r.stderr))
    r = run(["--drain-seconds", "soon"])
    c.check("--drain-seconds that is not a number: exit 2", r.returncode == 2 and "soon" in r.stderr, (r.returncode, r.stderr))
    r = run(["--workers", "-1"])
    c.check("--workers below 0: exit 2, naming the option and its range",
            r.returncode == 2 and "--workers" in r.stderr and "0 or more" in r.stderr, (r.returncode, r.stderr))
    r = run(["--listen"])
    c.check("--listen without its value: exit 2 with the usage", r.returncode == 2 and "usage" in r.stderr, (r.returncode, r.stderr))
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    r = run(["--metrics-listen", "127.0.0.1:%d" % busy.getsockname()[1]])
    busy.close()
    c.check("a metrics address already taken: exit 1 naming it", r.returncode == 1 and "cannot listen" in r.stderr, (r.returncode, r.stderr))
    out = subprocess.run([args.server, "--help"], capture_output=True, text=True).stdout
    flags = ["--metrics-listen", "--access-log", "--drain-seconds", "--min-send-rate", "--send-grace-ms", "--ready-max-backlog"]
    c.check("--help lists the new flags", all(f in out for f in flags), [f for f in flags if f not in out])


def main():
    args = arguments(__doc__)
    workdir = fresh_workdir(os.path.abspath(args.workdir))
    c = Checks()
    doc = trimmed(load_document(args.document), 2)
    config = os.path.join(workdir, "server.json")
    with open(config, "w") as f:
        json.dump({"moderator_token": MODERATOR}, f)
    os.chmod(config, stat.S_IRUSR | stat.S_IWUSR)
    log_path = os.path.join(workdir, "logs", "access.log")
    os.makedirs(os.path.dirname(log_path))
    opts = ["--metrics-listen", "127.0.0.1:0", "--access-log", log_path, "--trusted-proxy", "127.0.0.1",
            "--read-rate", "0.01", "--read-burst", "4", "--write-rate", "0", "--admin-token", ADMIN, "--config", config,
            "--max-body-bytes", "2000000", "--header-timeout-ms", "800", "--max-connections", "40"]
    srv = Server(args.server, default_db(args), workdir, opts)
    try:
        c.check("the first line names the metrics address", srv.metrics_port is not None)
        health(c, srv, srv.metrics_port)
        made = metrics(c, srv, srv.metrics_port, doc)
        wrong_port(c, srv, srv.metrics_port)
        access_log(c, srv, log_path, made)
        sighup(c, srv, log_path)
        if args.db.startswith("postgres"):
            postgres_down(c, srv, srv.metrics_port, args.db)
    finally:
        srv.stop()
    c.check("SIGTERM: exit 0", srv.proc.returncode == 0, srv.proc.returncode)
    ready_backlog(c, args, workdir, doc)
    stderr_log(c, args, workdir)
    bad_flags(c, args, workdir)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
