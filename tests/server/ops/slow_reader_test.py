#!/usr/bin/env python3
"""Clients that ask and then stop reading. An export (streamed from a worker)
whose client reads nothing frees its worker once --send-grace-ms has passed
and the client falls below --min-send-rate, as nginx's send_timeout would.
A page is written by the I/O thread and never holds a worker; what of it the
kernel's buffers do not take must go at the same rate. One address holds at most one
export at a time (its second is 429 export_running), so it cannot keep the
exports closed to everyone else; another address exports meanwhile, and the
first can export again once its stalled one is cut. A reader above the
minimum rate is never cut.

The database is filled with gmlab-server-fill (beside --server): an export
of several MB, more than the sockets' buffers hold."""
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import time

SERVER_TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, SERVER_TESTS)
from harness import Checks, Server, arguments, default_db, fresh_workdir, load_document, trimmed  # noqa: E402

MIN_RATE = 262144
GRACE_MS = 500
FILLED = 120


def metric(port, name, **labels):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/metrics")
    text = conn.getresponse().read().decode()
    conn.close()
    want = name + ("{" + ",".join('%s="%s"' % kv for kv in sorted(labels.items())) + "}" if labels else "")
    for line in text.splitlines():
        if line.startswith(want + " "):
            return float(line.split()[-1])
    return 0.0


def stalled(port, source, path):
    """A request from a client with a tiny receive buffer that never reads."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.bind((source, 0))
    s.settimeout(10)
    s.connect(("127.0.0.1", port))
    s.sendall(b"GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % path.encode())
    return s


def read_all(s, rate=None, limit=1 << 30):
    """Everything until the server closes (or `limit` bytes), at `rate` bytes/s if given."""
    out = bytearray()
    t0 = time.time()
    s.settimeout(15)
    while len(out) < limit:
        try:
            chunk = s.recv(65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
        if rate:
            ahead = len(out) / rate - (time.time() - t0)
            if ahead > 0:
                time.sleep(ahead)
    return bytes(out)


def get(port, source, path, rate=None):
    """(status, body, complete) of a request read to its end."""
    s = socket.create_connection(("127.0.0.1", port), timeout=15, source_address=(source, 0))
    s.sendall(b"GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path.encode())
    data = read_all(s, rate)
    s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    m = re.match(rb"HTTP/1\.1 (\d+)", head)
    chunked = b"transfer-encoding: chunked" in head.lower()
    length = re.search(rb"(?i)content-length: (\d+)", head)
    complete = body.endswith(b"0\r\n\r\n") if chunked else (length is not None and len(body) == int(length.group(1)))
    return (int(m.group(1)) if m else None), body, complete


def main():
    args = arguments(__doc__)
    workdir = fresh_workdir(os.path.abspath(args.workdir))
    c = Checks()
    db = default_db(args)
    fill = os.path.join(os.path.dirname(os.path.abspath(args.server)), "gmlab-server-fill")
    doc = trimmed(load_document(args.document), 2)
    docfile = os.path.join(workdir, "document.json")
    with open(docfile, "w") as f:
        json.dump(doc, f)
    r = subprocess.run([fill, "--db", db, "--document", docfile, "--count", str(FILLED), "--threads", "2"],
                       capture_output=True, text=True, timeout=300)
    c.check("gmlab-server-fill stored %d uploads" % FILLED, r.returncode == 0, r.stderr[-500:])
    srv = Server(args.server, db, workdir, ["--write-rate", "0", "--read-rate", "0", "--metrics-listen", "127.0.0.1:0",
                                           "--min-send-rate", str(MIN_RATE), "--send-grace-ms", str(GRACE_MS)])
    try:
        st, _, up = srv.json("POST", "/api/v1/results", json.dumps(doc))
        key = up["gpu_url"].rsplit("/", 1)[1]
        mp = srv.metrics_port
        cut0 = metric(mp, "gmlab_http_responses_cut_total", reason="send_too_slow")

        # 1. An export that is never read.
        t0 = time.time()
        a = stalled(srv.port, "127.0.0.2", "/api/v1/export?format=csv")
        time.sleep(0.2)
        st, body, _ = get(srv.port, "127.0.0.2", "/api/v1/export?format=csv")
        err = json.loads(body) if st == 429 else {}
        c.check("the same address asking for a second export at once: 429 export_running naming it",
                st == 429 and err.get("code") == "export_running" and "127.0.0.2" in err.get("message", ""), (st, body[:200]))
        st, body, complete = get(srv.port, "127.0.0.3", "/api/v1/export?format=csv")
        rows = body.count(b"\n")
        c.check("another address exports meanwhile, to the end", st == 200 and complete and rows > 1000, (st, complete, rows))
        cut_at = None
        while time.time() - t0 < 10:
            if metric(mp, "gmlab_http_responses_cut_total", reason="send_too_slow") > cut0:
                cut_at = time.time() - t0
                break
            time.sleep(0.05)
        bound = GRACE_MS / 1000 + 65536 / MIN_RATE + 1.5
        c.check("the export nobody reads is cut within the grace time and one chunk at the minimum rate (%.1f s)" % bound,
                cut_at is not None and cut_at < bound, cut_at)
        time.sleep(0.2)
        c.check("... and its worker is free again", metric(mp, "gmlab_http_workers_busy") == 0, metric(mp, "gmlab_http_workers_busy"))
        got = read_all(a)
        a.close()
        c.check("the stalled client gets what was sent before the cut, and no end of the chunked body",
                got.startswith(b"HTTP/1.1 200") and not got.endswith(b"0\r\n\r\n"), (len(got), got[-20:]))
        st, body, complete = get(srv.port, "127.0.0.2", "/api/v1/export?format=csv")
        c.check("once cut, the same address may export again", st == 200 and complete and body.count(b"\n") == rows,
                (st, complete, body.count(b"\n"), rows))

        # 2. A page that is never read: a plain answer is written by the I/O
        # thread, never a worker. The kernel takes what fits in the socket's
        # buffers (a 400 KiB page, often all of it); what does not must go
        # at the minimum rate or the connection is cut.
        cut1 = metric(mp, "gmlab_http_responses_cut_total", reason="send_too_slow")
        st, page, complete = get(srv.port, "127.0.0.4", "/gpu/" + key)
        size = len(page)
        p = stalled(srv.port, "127.0.0.5", "/gpu/" + key)
        time.sleep(0.3)
        busy = metric(mp, "gmlab_http_workers_busy")
        t0 = time.time()
        st2, _, _ = get(srv.port, "127.0.0.7", "/api/v1/stats")
        c.check("a page nobody reads holds no worker; other requests are answered meanwhile",
                busy == 0 and st2 == 200 and time.time() - t0 < 1, (busy, st2))
        bound = max(GRACE_MS / 1000, size / MIN_RATE) + 1.5
        time.sleep(bound)
        written = [l for l in (json.loads(x) for x in open(srv.log_path, errors="replace").read().splitlines() if x.startswith("{"))
                   if l.get("client") == "127.0.0.5"]
        cut = metric(mp, "gmlab_http_responses_cut_total", reason="send_too_slow") > cut1
        c.check("... and within the grace time and its size at the minimum rate (%.1f s) it was either taken whole by the "
                "kernel's buffers or cut" % bound, cut or (written and written[-1].get("cut") is None), (cut, written))
        p.close()
        st, got, complete = get(srv.port, "127.0.0.6", "/gpu/" + key, rate=3 * MIN_RATE)
        c.check("a reader at 3x the minimum rate gets the whole page", st == 200 and complete and len(got) == size,
                (st, complete, len(got), size))
    finally:
        srv.stop()
    lines = [json.loads(l) for l in open(srv.log_path, errors="replace").read().splitlines() if l.startswith("{")]
    cut = [l for l in lines if l.get("cut") == "send_too_slow"]
    c.check("the access log marks the cut export send_too_slow",
            "/api/v1/export" in {l["route"] for l in cut}, [(l["route"], l.get("cut")) for l in cut])
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
