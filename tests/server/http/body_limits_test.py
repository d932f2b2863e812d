#!/usr/bin/env python3
"""gmlab-server's bounds on request bodies that are still arriving:

- a body that stops arriving is cut off after --body-idle-ms (408
  body_stalled), however fast it started (the average rate alone would wait
  for minutes), while pauses shorter than that pass;
- the bodies being received at once may declare --max-pending-body-bytes in
  all (a chunked one counts what has arrived): beyond it 503 body_budget with
  Retry-After, released when a body ends or its connection closes, and the
  server's resident memory stays near the bound however many connections try;
- a client that hangs up mid-body is counted as an aborted request
  (gmlab_http_requests_aborted_total, "aborted" in the access log), not as a
  refused upload.

After each hostile case a normal GET must answer within 1 s. Every
connection is to 127.0.0.1 (hostile ones from other loopback addresses)."""
import json
import os
import re
import socket
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
from harness import Checks, Server, arguments, as_new_run, default_db, fresh_workdir, load_document, settled, trimmed, rss_bytes  # noqa: E402
from slow_client_test import connect, raise_fd_limit, read_response  # noqa: E402

MIB = 1 << 20
IDLE_MS = 1000
BUDGET = 4 * MIB
MAX_BODY = MIB


def upload_head(length, source_headers=b""):
    return (b"POST /api/v1/results HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" + source_headers +
            b"Content-Length: %d\r\n\r\n" % length)


def scrape(port):
    """{(name, frozenset(labels)): value} of the metrics address."""
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10) as r:
        text = r.read().decode()
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$', line)
        if not m:
            continue
        labels = frozenset(re.findall(r'([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"', m.group(2) or ""))
        out[(m.group(1), labels)] = float(m.group(3))
    return out


def value(samples, name, **labels):
    return samples.get((name, frozenset(labels.items())), 0.0)


def family_sum(samples, name, **labels):
    """The family's samples summed, over those carrying every label given."""
    want = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and want <= ls)


def settled_scrape(port):
    """A scrape once what was already answered or cut is all counted (harness.settled)."""
    return settled(lambda: scrape(port), lambda m: sum(
        family_sum(m, f) for f in ("gmlab_http_requests_total", "gmlab_http_refusals_total", "gmlab_http_requests_aborted_total")))


def get_within_a_second(c, srv, after):
    t0 = time.monotonic()
    st, _, _ = srv.request("GET", "/api/v1/stats", timeout=5)
    dt = time.monotonic() - t0
    c.check("after %s: a normal GET answers within 1 s" % after, st == 200 and dt < 1.0, (st, dt))



class Trickle(threading.Thread):
    """Keeps bodies arriving, a byte every 0.3 s (within --body-idle-ms, and
    within the average rule's 10 s of grace), until stopped."""

    def __init__(self, socks):
        super().__init__(daemon=True)
        self.socks = list(socks)
        self.stop = threading.Event()

    def run(self):
        while not self.stop.wait(0.3):
            for s in list(self.socks):
                try:
                    s.sendall(b" ")
                except OSError:
                    self.socks.remove(s)


def stalled_after_fast_start(c, srv):
    s = connect(srv.port, "127.0.5.1")
    s.sendall(upload_head(MAX_BODY) + b" " * 900000)
    t0 = time.monotonic()
    st, text = read_response(s, timeout=10)
    waited = time.monotonic() - t0
    c.check("900 kB of a 1 MiB body sent at once, then nothing: 408 body_stalled naming the bytes",
            st == 408 and "body_stalled" in text and "900000 of 1048576" in text, (st, text))
    c.check("... %d ms after the last bytes (the average rule would wait for the grace time and 55 s more)" % IDLE_MS,
            IDLE_MS / 1000 - 0.1 < waited < IDLE_MS / 1000 + 1.0, waited)
    s.close()
    get_within_a_second(c, srv, "a stalled body")


def pauses_below_idle(c, srv, doc_text):
    body = as_new_run(doc_text, "pauses").encode()
    s = connect(srv.port, "127.0.5.2", timeout=30)
    s.sendall(upload_head(len(body)))
    pieces = 5
    step = (len(body) + pieces - 1) // pieces
    for k in range(pieces):
        time.sleep(0.5)
        s.sendall(body[k * step:(k + 1) * step])
    st, text = read_response(s, timeout=30)
    c.check("a body sent in 5 pieces 0.5 s apart (pauses below --body-idle-ms) is stored", st == 201, (st, text[:200]))
    s.close()


def budget(c, srv):
    metrics = srv.metrics_port
    held = []
    for i in range(4):
        s = connect(srv.port, "127.0.6.%d" % (i + 1))
        s.sendall(upload_head(MAX_BODY) + b" " * 1000)
        held.append(s)
    trickle = Trickle(held)
    trickle.start()
    time.sleep(0.3)
    m = scrape(metrics)
    c.check("4 bodies of 1 MiB under way count 4 MiB: gmlab_http_pending_body_bytes",
            value(m, "gmlab_http_pending_body_bytes") == BUDGET, value(m, "gmlab_http_pending_body_bytes"))
    refused_before = value(m, "gmlab_http_refusals_total", status="503", reason="body_budget")

    s = connect(srv.port, "127.0.6.10")
    s.sendall(upload_head(1000))
    st, text = read_response(s, timeout=5)
    s.close()
    c.check("a fifth body, 1000 bytes, beyond the 4 MiB budget: 503 body_budget naming --max-pending-body-bytes",
            st == 503 and "body_budget" in text and "--max-pending-body-bytes" in text, (st, text))
    s = connect(srv.port, "127.0.6.11")
    s.sendall(upload_head(1000))
    s.settimeout(5)
    head = s.recv(4096).split(b"\r\n\r\n")[0].lower()
    s.close()
    c.check("... with Retry-After: 1 and Connection: close", b"retry-after: 1" in head and b"connection: close" in head, head)
    s = connect(srv.port, "127.0.6.12")
    s.sendall(b"POST /api/v1/results HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              b"Transfer-Encoding: chunked\r\n\r\n400\r\n" + b" " * 1024 + b"\r\n")
    st, text = read_response(s, timeout=5)
    s.close()
    c.check("a chunked body counts what arrives: its first KiB beyond the budget is 503 body_budget",
            st == 503 and "body_budget" in text, (st, text))
    get_within_a_second(c, srv, "a full body budget")
    m = scrape(metrics)
    c.check("gmlab_http_refusals_total{status=503,reason=body_budget} counted the 3",
            value(m, "gmlab_http_refusals_total", status="503", reason="body_budget") - refused_before == 3,
            value(m, "gmlab_http_refusals_total", status="503", reason="body_budget") - refused_before)

    trickle.socks.remove(held[0])
    held[0].close()
    time.sleep(0.3)
    c.check("a connection that closes gives its body's bytes back",
            value(scrape(metrics), "gmlab_http_pending_body_bytes") == BUDGET - MAX_BODY)
    st, _, r = srv.json("POST", "/api/v1/results", json.dumps({"not": "a run"}))
    c.check("... and the next upload is received again (422 for its body)", st == 422, (st, r))
    trickle.stop.set()
    trickle.join()
    for s in held[1:]:
        s.close()
    time.sleep(0.3)
    c.check("once every body has ended, nothing is counted", value(scrape(metrics), "gmlab_http_pending_body_bytes") == 0)


def memory_bound(c, srv):
    """96 connections each try to send 1 MiB - 2 bytes and stall: with a
    budget of 4 MiB the server holds about that, not 96 MiB."""
    before = rss_bytes(srv.proc.pid)
    peak = [before]
    stop = threading.Event()

    def sample():
        while not stop.wait(0.05):
            peak[0] = max(peak[0], rss_bytes(srv.proc.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    answers = [None] * 96

    def one(i):
        try:
            s = connect(srv.port, "127.0.7.%d" % (i + 1), timeout=15)
        except OSError as e:
            answers[i] = (None, repr(e))
            return
        try:
            s.sendall(upload_head(MAX_BODY) + b" " * (MAX_BODY - 2))
        except OSError:
            pass  # refused early: the server stopped reading
        answers[i] = read_response(s, timeout=10)
        s.close()

    threads = [threading.Thread(target=one, args=(i,)) for i in range(96)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    stop.set()
    sampler.join()
    statuses = [a[0] if a else None for a in answers]
    codes = {}
    for a in answers:
        if a and a[0]:
            code = re.search(r'"code":"([a-z_]+)"', a[1])
            codes[code.group(1) if code else a[0]] = codes.get(code.group(1) if code else a[0], 0) + 1
    print("96 stalled 1 MiB bodies: answers %s; VmRSS %.1f MiB before, %.1f MiB at most" % (codes, before / MIB, peak[0] / MIB))
    c.check("96 bodies of 1 MiB - 2 bytes that stall: at most 4 are received (408 body_stalled), the rest 503 body_budget",
            codes.get("body_stalled", 0) <= 4 and codes.get("body_stalled", 0) + codes.get("body_budget", 0) == 96, codes)
    c.check("... and the server's resident memory grew by less than 40 MiB (96 MiB were sent at it)",
            peak[0] - before < 40 * MIB, (before / MIB, peak[0] / MIB))
    get_within_a_second(c, srv, "96 stalled bodies")


def aborted(c, srv, access_log):
    m0 = settled_scrape(srv.metrics_port)
    s = connect(srv.port, "127.0.8.1")
    s.sendall(upload_head(500000) + b" " * 100000)
    time.sleep(0.2)
    s.close()
    s = connect(srv.port, "127.0.8.2")
    s.sendall(upload_head(500000) + b" " * 1000)
    time.sleep(0.2)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")  # a reset
    s.close()
    time.sleep(0.3)
    m1 = settled_scrape(srv.metrics_port)
    aborted_n = value(m1, "gmlab_http_requests_aborted_total", route="/api/v1/results") - \
        value(m0, "gmlab_http_requests_aborted_total", route="/api/v1/results")
    c.check("two uploads whose clients hung up mid-body (closed, reset): gmlab_http_requests_aborted_total +2",
            aborted_n == 2, aborted_n)
    c.check("... and not counted as refused uploads",
            family_sum(m1, "gmlab_uploads_refused_total") == family_sum(m0, "gmlab_uploads_refused_total"),
            {k: v for k, v in m1.items() if k[0] == "gmlab_uploads_refused_total"})
    # The scrapes go to the metrics address, whose requests are not counted;
    # on the upload route only (the previous section's GETs may still be
    # counted when the first scrape is taken).
    c.check("... nor as answered requests or refusals (no 400 bad_request)",
            family_sum(m1, "gmlab_http_requests_total", route="/api/v1/results")
            == family_sum(m0, "gmlab_http_requests_total", route="/api/v1/results")
            and family_sum(m1, "gmlab_http_refusals_total") == family_sum(m0, "gmlab_http_refusals_total"),
            {k: v for k, v in m1.items() if k[0] == "gmlab_http_requests_total" and m0.get(k) != v})
    lines = [json.loads(l) for l in open(access_log) if l.strip()]
    # (The bodies the budget's check held and then closed were aborted too.)
    gone = [l for l in lines if l.get("aborted") and l["client"] in ("127.0.8.1", "127.0.8.2")]
    c.check("the access log has them as status 0, aborted, on their route",
            len(gone) == 2 and all(l["status"] == 0 and l["route"] == "/api/v1/results" and l["method"] == "POST" for l in gone),
            gone)
    get_within_a_second(c, srv, "uploads that hung up")


def main():
    args = arguments(__doc__)
    fresh_workdir(args.workdir)
    raise_fd_limit()
    doc_text = json.dumps(trimmed(load_document(args.document)))
    c = Checks()
    access_log = os.path.join(args.workdir, "access.log")
    srv = Server(args.server, default_db(args), args.workdir,
                 ["--body-idle-ms", str(IDLE_MS), "--max-pending-body-bytes", str(BUDGET), "--max-body-bytes",
                  str(MAX_BODY), "--write-rate", "0", "--read-rate", "0", "--metrics-listen", "127.0.0.1:0",
                  "--access-log", access_log,
                  # The budget as a whole, its bodies all from one network:
                  # no share per network (costs_test.py tests the share).
                  "--max-pending-body-share", "1"])
    try:
        stalled_after_fast_start(c, srv)
        pauses_below_idle(c, srv, doc_text)
        budget(c, srv)
        memory_bound(c, srv)
        aborted(c, srv, access_log)
    finally:
        srv.stop()
    # A budget below the largest body could never receive one: refused at start.
    try:
        Server(args.server, default_db(args, "refused.sqlite"), args.workdir,
               ["--max-pending-body-bytes", "1000", "--max-body-bytes", "2000"], name="refused").stop()
        started = True
    except RuntimeError as e:
        started = "--max-pending-body-bytes (1000) is less than --max-body-bytes (2000)" not in str(e)
    c.check("--max-pending-body-bytes below --max-body-bytes is refused at start, naming both", not started)
    return c.finish()


if __name__ == "__main__":
    raise SystemExit(main())
