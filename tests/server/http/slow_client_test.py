#!/usr/bin/env python3
"""gmlab-server against slow and greedy clients: stalled headers, trickled
bodies, idle keep-alive connections, too many connections from one address or
in all, a full request queue, malformed and oversized requests. Each gets a
clear status, and other clients are served meanwhile.

Hostile clients connect from other loopback addresses (127.0.0.2 and up) than
the well-behaved one (127.0.0.1), as they would come from other machines."""
import json
import os
import resource
import socket
import sys
import threading
import time

# tests/server, where the shared helpers are (harness.py, zstd_codec.py, fixtures/).
SERVER_TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, SERVER_TESTS)
from harness import Checks, Server, arguments, as_new_run, default_db, fresh_workdir, load_document, trimmed  # noqa: E402

# Short limits keep the test quick; the defaults are 10 s.
HEADER_MS = 1500
GRACE_MS = 1500
MIN_RATE = 20000


def raise_fd_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def connect(port, source, timeout=10):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(source, 0))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


# Bytes read past the end of one response (a pipelined second one), per socket.
_leftover = {}


def read_response(s, timeout=10):
    """(status, body) of one response on a raw socket; (None, reason) if the
    server closed without answering."""
    s.settimeout(timeout)
    data = _leftover.pop(s.fileno(), b"")
    try:
        while b"\r\n\r\n" not in data:
            chunk = s.recv(65536)
            if not chunk:
                return None, "closed before a response: %r" % data
            data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        status = int(head.split(b" ")[1])
        length = 0
        for line in head.split(b"\r\n")[1:]:
            k, _, v = line.partition(b":")
            if k.strip().lower() == b"content-length":
                length = int(v.strip())
        while len(rest) < length:
            chunk = s.recv(65536)
            if not chunk:
                break
            rest += chunk
        if len(rest) > length:
            _leftover[s.fileno()] = rest[length:]
        return status, rest[:length].decode(errors="replace")
    except (socket.timeout, ConnectionResetError) as e:
        return None, repr(e)


def sources(first, count, per_source):
    """count addresses 127.0.0.first.. repeated per_source times each."""
    out = []
    for i in range(count):
        out += ["127.0.%d.%d" % ((first + i) // 250, 2 + (first + i) % 250)] * per_source
    return out


def timed_get(srv, path="/api/v1/gpus"):
    t0 = time.monotonic()
    st, _, _ = srv.request("GET", path, timeout=10)
    return st, time.monotonic() - t0


def stalled_bodies(c, srv, doc_text):
    # The attack that took the earlier server down: 16 was enough for 8
    # threads; here 300 from 20 addresses.
    socks = []
    for src in sources(0, 20, 15):
        s = connect(srv.port, src)
        s.sendall(b"POST /api/v1/results HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 100000\r\n\r\n{")
        socks.append(s)
    time.sleep(0.2)
    times = []
    ok = True
    for _ in range(20):
        st, dt = timed_get(srv)
        ok = ok and st == 200
        times.append(dt)
    c.check("300 stalled bodies: GET /api/v1/gpus still answers", ok)
    c.check("300 stalled bodies: the slowest of 20 GETs took under 0.5 s", max(times) < 0.5, max(times))
    st, _, body = srv.json("POST", "/api/v1/results", as_new_run(doc_text, "stalled"))
    c.check("300 stalled bodies: an upload is still accepted", st == 201, (st, body))
    t0 = time.monotonic()
    answers = [read_response(s, timeout=10) for s in socks[:10]]
    waited = time.monotonic() - t0
    c.check("a stalled body is answered 408 body_too_slow",
            all(a[0] == 408 and "body_too_slow" in a[1] for a in answers), answers[:2])
    c.check("... once the grace time and the minimum rate are spent (within 3 s)", waited < 3.0, waited)
    for s in socks:
        s.close()


def stalled_headers(c, srv):
    socks = []
    first_sent = time.monotonic()
    for src in sources(20, 20, 15):
        s = connect(srv.port, src)
        s.sendall(b"GET /api/v1/gpus HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        socks.append(s)
    time.sleep(0.2)
    st, dt = timed_get(srv)
    c.check("300 stalled headers: other requests are answered at once", st == 200 and dt < 0.5, (st, dt))
    a = read_response(socks[0], timeout=10)
    waited = time.monotonic() - first_sent
    c.check("stalled headers are answered 408 header_timeout", a[0] == 408 and "header_timeout" in a[1], a)
    c.check("... at the header deadline (1.5 s; within 1 s after it)",
            HEADER_MS / 1000 - 0.1 < waited < HEADER_MS / 1000 + 1.0, waited)
    for s in socks:
        s.close()
    # A client that sends nothing at all is answered 408 as well.
    s = connect(srv.port, "127.0.0.200")
    a = read_response(s, timeout=10)
    c.check("a silent connection is answered 408 and closed", a[0] == 408, a)
    s.close()


def trickled_body(c, srv, doc_text):
    # One byte every 0.3 s is far below 20 kB/s: cut off after the grace time.
    s = connect(srv.port, "127.0.1.10")
    s.sendall(b"POST /api/v1/results HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50000\r\n\r\n")
    t0 = time.monotonic()
    answer = None
    s.settimeout(0.3)
    while time.monotonic() - t0 < 8:
        try:
            s.sendall(b" ")
        except OSError:
            break
        try:
            data = s.recv(65536)
            if data:
                answer = data.decode(errors="replace")
                break
        except socket.timeout:
            pass
    c.check("a body trickled at 3 bytes/s is answered 408", answer is not None and " 408 " in answer, answer)
    c.check("... within 3 s", time.monotonic() - t0 < 3.0, time.monotonic() - t0)
    s.close()
    # A slow but steady client (about 4x the minimum rate) gets through.
    body = as_new_run(doc_text, "steady").encode()
    s = connect(srv.port, "127.0.1.11", timeout=30)
    s.sendall(b"POST /api/v1/results HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
              % len(body))
    step = 8000
    t0 = time.monotonic()
    for i in range(0, len(body), step):
        s.sendall(body[i:i + step])
        # Pace to ~80 kB/s, but never beyond ~4 s in all.
        target = (i + step) / 80000.0
        if target < 4:
            time.sleep(max(0.0, target - (time.monotonic() - t0)))
    st, text = read_response(s, timeout=30)
    c.check("a steady body above the minimum rate is accepted", st == 201, (st, text[:200]))
    s.close()


def per_client_cap(c, srv):
    socks = [connect(srv.port, "127.0.2.50") for _ in range(40)]
    extra = connect(srv.port, "127.0.2.50")
    st, text = read_response(extra, timeout=5)
    c.check("connection 41 from one address is 429 too_many_connections naming it",
            st == 429 and "too_many_connections" in text and "127.0.2.50" in text, (st, text))
    extra.close()
    st, dt = timed_get(srv)
    c.check("another address is served meanwhile", st == 200 and dt < 0.5, (st, dt))
    other = connect(srv.port, "127.0.2.51")
    other.sendall(b"GET /api/v1/stats HTTP/1.1\r\nHost: x\r\n\r\n")
    c.check("... and so is a third address's raw request", read_response(other)[0] == 200)
    other.close()
    for s in socks:
        s.close()
    time.sleep(0.3)
    again = connect(srv.port, "127.0.2.50")
    again.sendall(b"GET /api/v1/stats HTTP/1.1\r\nHost: x\r\n\r\n")
    c.check("once its connections close, the address is served again", read_response(again)[0] == 200)
    again.close()


def idle_keepalive(c, srv):
    # Connections that made a request and then stay open cost no worker
    # (the server runs 2): 400 of them leave requests flowing.
    socks = []
    for src in sources(60, 20, 20):
        s = connect(srv.port, src)
        s.sendall(b"GET /api/v1/stats HTTP/1.1\r\nHost: x\r\n\r\n")
        socks.append(s)
    answered = sum(1 for s in socks if read_response(s)[0] == 200)
    c.check("400 keep-alive clients each got their answer", answered == 400, answered)
    times = [timed_get(srv)[1] for _ in range(10)]
    # Were the idle connections holding the two workers, a request would wait
    # for their idle timeout (HEADER_MS); the bound is far below that and far
    # above a request's time on a loaded machine.
    c.check("with 400 idle keep-alive connections open, requests answer well before the idle timeout",
            max(times) < 0.8 * HEADER_MS / 1000, max(times))
    for s in socks:
        s.close()


def malformed(c, srv):
    s = connect(srv.port, "127.0.3.1")
    s.sendall(b"THIS IS NOT HTTP\r\n\r\n")
    st, text = read_response(s)
    c.check("a malformed request line is 400", st == 400, (st, text))
    s.close()
    s = connect(srv.port, "127.0.3.2")
    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 40000 + b"\r\n\r\n")
    st, text = read_response(s)
    c.check("40 kB of headers is 431", st == 431 and "headers_too_large" in text, (st, text))
    s.close()
    s = connect(srv.port, "127.0.3.3")
    s.sendall(b"POST /api/v1/results HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 999999999999\r\n\r\n")
    st, text = read_response(s)
    c.check("a declared body beyond the limit is 413 before any of it is read", st == 413 and "too_large" in text,
            (st, text))
    s.close()
    s = connect(srv.port, "127.0.3.4")
    s.sendall(b"POST /api/v1/results HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Encoding: br\r\nContent-Length: 2\r\n\r\n{}")
    st, text = read_response(s)
    c.check("an unsupported Content-Encoding is 415", st == 415, (st, text))
    s.close()
    s = connect(srv.port, "127.0.3.5")
    s.sendall(b"POST /api/v1/results HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: 4\r\n\r\nnope")
    st, text = read_response(s)
    c.check("a corrupt gzip body is 400 bad_encoding", st == 400 and "bad_encoding" in text, (st, text))
    s.close()
    st, _, _ = srv.request("PUT", "/api/v1/gpus")
    c.check("a known path with another method is 405", st == 405, st)


def expect_continue(c, srv, doc_text):
    body = as_new_run(doc_text, "expect-continue").encode()
    s = connect(srv.port, "127.0.3.10")
    s.sendall(b"POST /api/v1/results HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n" % len(body))
    s.settimeout(5)
    first = s.recv(100)
    c.check("Expect: 100-continue is answered with 100 Continue", first.startswith(b"HTTP/1.1 100"), first)
    s.sendall(body)
    st, text = read_response(s)
    c.check("... and the body sent after it is stored", st == 201, (st, text[:200]))
    s.close()


def pipelined(c, srv):
    s = connect(srv.port, "127.0.3.20")
    s.sendall(b"GET /api/v1/stats HTTP/1.1\r\nHost: x\r\n\r\nGET /api/v1/gpus HTTP/1.1\r\nHost: x\r\n\r\n")
    a, b = read_response(s), read_response(s)
    c.check("two pipelined requests get two answers in order",
            a[0] == 200 and "results" in a[1] and b[0] == 200 and "gpus" in b[1], (a, b))
    s.close()


def total_cap(c, args, doc_text):
    srv = Server(args.server, "sqlite:" + args.workdir + "/cap.sqlite", args.workdir,
                 ["--max-connections", "20", "--header-timeout-ms", "5000"], name="cap")
    try:
        socks = [connect(srv.port, src) for src in sources(100, 20, 1)]
        time.sleep(0.2)
        extra = connect(srv.port, "127.0.4.1")
        st, text = read_response(extra, timeout=5)
        c.check("connection 21 of 20 allowed is 503 with the reason", st == 503 and "limit of 20" in text, (st, text))
        extra.close()
        for s in socks:
            s.close()
        time.sleep(0.3)
        st, _, _ = srv.request("GET", "/api/v1/stats")
        c.check("once they close, the server takes connections again", st == 200, st)
    finally:
        srv.stop()


def full_queue(c, args, doc_text):
    # One worker and a queue of one: of 16 uploads arriving together, some
    # must be turned away with 503 and Retry-After; all others are stored.
    srv = Server(args.server, "sqlite:" + args.workdir + "/queue.sqlite", args.workdir,
                 ["--workers", "1", "--queue", "1", "--write-rate", "0"], name="queue")
    try:
        # Sixteen runs (the same run would be stored once).
        bodies = [as_new_run(doc_text, "queue-%d" % i).encode() for i in range(16)]
        requests = [(b"POST /api/v1/results HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
                     % len(body)) + body for body in bodies]
        socks = [connect(srv.port, src) for src in sources(200, 16, 1)]
        results = [None] * len(socks)
        # Everything but the last byte first, then the last bytes together.
        for s, request in zip(socks, requests):
            s.sendall(request[:-1])
        time.sleep(0.3)
        for s, request in zip(socks, requests):
            s.sendall(request[-1:])

        def read(i):
            results[i] = read_response(socks[i], timeout=30)

        threads = [threading.Thread(target=read, args=(i,)) for i in range(len(socks))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        statuses = [r[0] for r in results]
        busy = [r for r in results if r[0] == 503]
        c.check("a full queue answers 503 busy", len(busy) >= 1 and all("busy" in r[1] for r in busy), statuses)
        c.check("every other upload of the burst is stored (201)", all(s in (201, 503) for s in statuses), statuses)
        stored = srv.json("GET", "/api/v1/stats")[2]["results"]
        c.check("the store holds exactly the 201s", stored == statuses.count(201), (stored, statuses))
        for s in socks:
            s.close()
    finally:
        srv.stop()


def main():
    args = arguments(__doc__)
    fresh_workdir(args.workdir)
    raise_fd_limit()
    doc_text = json.dumps(trimmed(load_document(args.document)))
    c = Checks()
    srv = Server(args.server, default_db(args), args.workdir,
                 ["--header-timeout-ms", str(HEADER_MS), "--body-grace-ms", str(GRACE_MS), "--min-body-rate",
                  str(MIN_RATE), "--max-connections-per-client", "40", "--workers", "2", "--write-rate", "0",
                  "--read-rate", "0"])
    try:
        stalled_bodies(c, srv, doc_text)
        stalled_headers(c, srv)
        trickled_body(c, srv, doc_text)
        per_client_cap(c, srv)
        idle_keepalive(c, srv)
        malformed(c, srv)
        expect_continue(c, srv, doc_text)
        pipelined(c, srv)
        st, _, _ = srv.request("GET", "/api/v1/stats")
        c.check("the server is alive at the end", st == 200)
    finally:
        srv.stop()
    total_cap(c, args, doc_text)
    full_queue(c, args, doc_text)
    return c.finish()


if __name__ == "__main__":
    raise SystemExit(main())
