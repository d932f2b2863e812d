#!/usr/bin/env python3
"""SIGTERM under continuous uploads and page requests: the server stops
accepting, answers every request it had received (a body still arriving
included), closes idle kept-alive connections, lets the refresher finish its
batch and exits 0 within --drain-seconds. Every client request ends in an
answer or a refused connection, never a reset or a cut answer; every upload
answered 2xx is stored (checked on a fresh start on the same database), and
none twice. A second SIGTERM says the drain goes on and loses nothing; a
connection still busy at the drain deadline is closed and said so.

Each request opens its own connection, as a client behind a load balancer
would after the balancer's own connection to the server closed."""
import http.client
import json
import os
import signal
import socket
import sys
import threading
import time

SERVER_TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, SERVER_TESTS)
from harness import Checks, Server, arguments, as_new_run, default_db, fresh_workdir, load_document, trimmed, wait_folded  # noqa: E402

UPLOADERS = 4
READERS = 2
OPTS = ["--write-rate", "0", "--read-rate", "0"]


class Ledger:
    def __init__(self):
        self.lock = threading.Lock()
        self.acked = {}      # submission id -> result id
        self.answers = {}    # status -> count
        self.refused = 0
        self.failures = []   # anything but an answer or a refused connection

    def note(self, outcome):
        with self.lock:
            kind = outcome[0]
            if kind == "refused":
                self.refused += 1
            elif kind == "answer":
                self.answers[outcome[1]] = self.answers.get(outcome[1], 0) + 1
            else:
                self.failures.append(outcome[1])


def one_request(port, method, path, body=None, headers=None):
    """('answer', status, body), ('refused',) or ('failure', what happened)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        try:
            conn.connect()
        except ConnectionRefusedError:
            return ("refused",)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            r = conn.getresponse()
            data = r.read()
            return ("answer", r.status, data)
        except (OSError, http.client.HTTPException) as e:
            return ("failure", "%s %s: %r" % (method, path, e))
    finally:
        conn.close()


def uploader(port, doc_head, tag, ledger, stop):
    i = 0
    while not stop.is_set():
        sid = "%s-%d" % (tag, i)
        i += 1
        out = one_request(port, "POST", "/api/v1/results", as_new_run(doc_head + ', "submission_id": "%s"}' % sid, sid),
                          {"Content-Type": "application/json"})
        ledger.note(out)
        if out[0] == "answer" and out[1] in (200, 201):
            with ledger.lock:
                ledger.acked[sid] = json.loads(out[2])["id"]
        if out[0] == "refused":
            return


def reader(port, paths, ledger, stop):
    i = 0
    while not stop.is_set():
        out = one_request(port, "GET", paths[i % len(paths)])
        i += 1
        ledger.note(out)
        if out[0] == "refused":
            return


def slow_upload(port, body, seconds, result):
    """A body sent in pieces over `seconds` (well above the minimum rate)."""
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=30)
        s.sendall(b"POST /api/v1/results HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: %d\r\n\r\n" % len(body))
        pieces = 10
        step = (len(body) + pieces - 1) // pieces
        for k in range(pieces):
            s.sendall(body[k * step:(k + 1) * step])
            time.sleep(seconds / pieces)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        length = int([l.split(b":")[1] for l in head.split(b"\r\n") if l.lower().startswith(b"content-length")][0])
        while len(rest) < length:
            chunk = s.recv(65536)
            if not chunk:
                break
            rest += chunk
        result["status"] = int(head.split(b" ")[1])
        result["body"] = json.loads(rest[:length])
        result["close"] = b"connection: close" in head.lower()
        s.close()
    except (OSError, ValueError, IndexError) as e:
        result["error"] = repr(e)


def drain_under_load(c, args, workdir, doc):
    db = default_db(args)
    head = json.dumps(doc)[:-1]
    srv = Server(args.server, db, workdir, OPTS + ["--drain-seconds", "10"], "drain")
    port = srv.port
    # One upload first, so that the GPU page exists.
    st, _, first = srv.json("POST", "/api/v1/results", as_new_run(head + ', "submission_id": "first"}', "first"))
    key = first["gpu_url"].rsplit("/", 1)[1]
    ledger = Ledger()
    ledger.acked["first"] = first["id"]
    stop = threading.Event()
    threads = [threading.Thread(target=uploader, args=(port, head, "up%d" % k, ledger, stop)) for k in range(UPLOADERS)]
    threads += [threading.Thread(target=reader, args=(port, ["/gpu/" + key, "/api/v1/gpus", "/", "/api/v1/stats"], ledger, stop))
                for _ in range(READERS)]
    for t in threads:
        t.start()
    time.sleep(1.0)
    slow = {}
    slow_body = as_new_run(head + ', "submission_id": "slow-1"}', "slow-1").encode()
    slow_thread = threading.Thread(target=slow_upload, args=(port, slow_body, 1.5, slow))
    slow_thread.start()
    idle = socket.create_connection(("127.0.0.1", port), timeout=10)
    idle.sendall(b"GET /api/v1/stats HTTP/1.1\r\nHost: x\r\n\r\n")
    idle_first = idle.recv(65536)
    time.sleep(0.3)
    t_term = time.time()
    srv.proc.send_signal(signal.SIGTERM)
    idle.settimeout(5)
    try:
        idle_after = idle.recv(65536)
    except OSError as e:
        idle_after = repr(e)
    idle_closed_in = time.time() - t_term
    time.sleep(0.3)
    srv.proc.send_signal(signal.SIGTERM)  # the second one
    try:
        code = srv.proc.wait(timeout=20)
    except Exception:
        code = None
    exited_in = time.time() - t_term
    slow_thread.join(timeout=30)
    stop.set()
    for t in threads:
        t.join(timeout=60)
    srv.stop()
    c.check("SIGTERM under load: exit 0", code == 0, code)
    c.check("... within the drain time (the slow upload's 1.5 s and a margin, not --drain-seconds' 10 s)",
            exited_in < 8, exited_in)
    c.check("an idle kept-alive connection was answered once, then closed by the drain (end of stream, no bytes)",
            idle_first.startswith(b"HTTP/1.1 200") and idle_after == b"" and idle_closed_in < 2,
            (idle_first[:20], idle_after, idle_closed_in))
    c.check("a body still arriving at SIGTERM was read to its end and answered 201 with Connection: close",
            slow.get("status") == 201 and slow.get("close"), slow)
    if slow.get("status") == 201:
        ledger.acked["slow-1"] = slow["body"]["id"]
    total = sum(ledger.answers.values())
    print("answers %s, refused connections %d, failures %d, acknowledged uploads %d" %
          (ledger.answers, ledger.refused, len(ledger.failures), len(ledger.acked)))
    c.check("every request got an answer or a refused connection: no reset, no cut answer",
            not ledger.failures, ledger.failures[:5])
    c.check("every answer was a success", set(ledger.answers) <= {200, 201}, ledger.answers)
    c.check("the load ran (answers before the drain, refusals after it)", total > 20 and ledger.refused >= 1,
            (total, ledger.refused))
    err = open(srv.log_path, errors="replace").read()
    c.check("stderr says it drains, that a second SIGTERM changes nothing, and that it stopped",
            "draining" in err and "SIGTERM again" in err and "drained" in err, err[-1200:])

    again = Server(args.server, db, workdir, OPTS, "after-drain")
    try:
        missing = [sid for sid, rid in ledger.acked.items() if again.request("GET", "/api/v1/results/" + rid)[0] != 200]
        c.check("every upload answered 2xx is stored (%d)" % len(ledger.acked), not missing, missing[:5])
        _, _, s = again.json("GET", "/api/v1/stats")
        c.check("and nothing else: stored count = acknowledged submissions", s["results"] == len(ledger.acked),
                (s["results"], len(ledger.acked)))
        s = wait_folded(again)
        _, _, gpus = again.json("GET", "/api/v1/gpus")
        c.check("the restarted server folded what was queued: the model counts every upload once",
                s["pending"] == 0 and gpus["gpus"][0]["uploads"] == len(ledger.acked), (s, gpus["gpus"][0]["uploads"]))
    finally:
        again.stop()


def drain_deadline(c, args, workdir, doc):
    """A connection still sending its body at the deadline is answered 503
    draining with Connection: close, then closed; the server still exits 0,
    and says so."""
    srv = Server(args.server, default_db(args, "deadline.sqlite") if not args.db else args.db, workdir,
                 OPTS + ["--drain-seconds", "1"], "deadline")
    body = as_new_run(json.dumps(doc)[:-1] + ', "submission_id": "deadline-1"}', "deadline-1").encode()
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
    s.sendall(b"POST /api/v1/results HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
              % len(body))
    s.sendall(body[:1000])
    time.sleep(0.2)
    t0 = time.time()
    srv.proc.send_signal(signal.SIGTERM)
    answer = b""
    try:
        s.settimeout(5)
        while b"}" not in answer:
            chunk = s.recv(4096)
            if not chunk:
                break
            answer += chunk
    except OSError as e:
        answer += repr(e).encode()
    answered_in = time.time() - t0
    s.close()
    code = srv.proc.wait(timeout=15)
    took = time.time() - t0
    srv.stop()
    head = answer.split(b"\r\n\r\n")[0].lower()
    err = open(srv.log_path, errors="replace").read()
    c.check("--drain-seconds 1 with a body still arriving: exit 0 after about 1 s", code == 0 and 0.8 < took < 4, (code, took))
    c.check("... the upload still arriving is answered 503 draining with Connection: close at the deadline",
            answer.startswith(b"HTTP/1.1 503") and b"connection: close" in head and b"retry-after: 1" in head
            and b'"code":"draining"' in answer and 0.8 < answered_in < 2.5, (answer[:300], answered_in))
    c.check("... the connection is closed and stderr says so", "still open at the drain deadline" in err, err[-600:])
    # Nothing else is wrong with the server: it starts again on the database, and answers at once.
    again = Server(args.server, default_db(args, "deadline.sqlite") if not args.db else args.db, workdir, OPTS, "deadline-after")
    try:
        t0 = time.time()
        st, _, _ = again.request("GET", "/api/v1/stats", timeout=5)
        c.check("... and a server started after it answers a GET within 1 s", st == 200 and time.time() - t0 < 1, st)
    finally:
        again.stop()


def main():
    args = arguments(__doc__)
    workdir = fresh_workdir(os.path.abspath(args.workdir))
    c = Checks()
    doc = trimmed(load_document(args.document), 2)
    drain_under_load(c, args, workdir, doc)
    drain_deadline(c, args, workdir, doc)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
