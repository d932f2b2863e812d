#!/usr/bin/env python3
"""The memory a gmlab-server holds for bodies that stop arriving.

Starts a server on a fresh SQLite file on 127.0.0.1 and opens --connections
connections (96) that each declare a body of --body-bytes (16 MiB - 2), send
all of it but the last two bytes as fast as loopback takes it, and then send
nothing. Meanwhile the server's resident memory is read from
/proc/PID/status (VmRSS, and VmHWM, its peak) every 0.1 s, and a GET
/api/v1/stats is timed every 0.5 s. After --hold seconds (20) the connections
are closed. Prints the memory before, at its peak, at the end of the hold and
after the close, what each connection was answered (and when), and the
slowest GET.

    python3 bench/server_stalled_bodies.py --server build/tools/server/gmlab-server
    python3 bench/server_stalled_bodies.py --server OLD_BINARY --label before

Only 127.0.0.1 is contacted; the whole run takes --hold seconds and about 20
more."""
import argparse
import http.client
import os
import socket
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "server"))
from harness import Server  # noqa: E402

MIB = 1 << 20


def memory(pid):
    """(VmRSS, VmHWM) of a process, in bytes."""
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0]) * 1024
    return out.get("VmRSS", 0), out.get("VmHWM", 0)


class Sampler(threading.Thread):
    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid = pid
        self.peak_rss = 0
        self.hwm = 0
        self.stop = threading.Event()

    def run(self):
        while not self.stop.is_set():
            try:
                rss, hwm = memory(self.pid)
            except OSError:
                return
            self.peak_rss = max(self.peak_rss, rss)
            self.hwm = max(self.hwm, hwm)
            time.sleep(0.1)


def first_line(data):
    return data.split(b"\r\n", 1)[0].decode(errors="replace")


def error_code(data):
    return data.split(b'"code":"', 1)[1].split(b'"', 1)[0].decode() if b'"code":"' in data else ""


def stalled_body(port, declared, send, t0, out, i, closing):
    """Declares `declared` bytes, sends `send` of them, waits for an answer
    (until the bench closes the connection: `closing`)."""
    head = (b"POST /api/v1/results HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % declared)
    body = b"x" * send
    s = socket.create_connection(("127.0.0.1", port), timeout=120)
    out[i] = {"socket": s, "sent": 0}
    try:
        s.sendall(head)
        view = memoryview(body)
        while out[i]["sent"] < send:
            n = s.send(view[out[i]["sent"]:out[i]["sent"] + MIB])
            out[i]["sent"] += n
        out[i]["sent_at"] = time.monotonic() - t0
        data = s.recv(4096)
    except OSError as e:
        # The server answered early (503) and stopped reading: the send fails.
        try:
            data = s.recv(4096)
        except OSError:
            data = b""
        if not data:
            data = type(e).__name__.encode()
    if closing.is_set():
        out[i]["answer"] = "no answer before the end of the hold"
        return
    out[i]["answer"] = first_line(data) if data else "closed without an answer"
    out[i]["code"] = error_code(data)
    out[i]["answered_at"] = time.monotonic() - t0


def timed_get(port):
    t = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", "/api/v1/stats")
        status = conn.getresponse().status
    except OSError:
        status = None
    finally:
        conn.close()
    return status, time.monotonic() - t


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--server", required=True, help="the gmlab-server binary")
    p.add_argument("--connections", type=int, default=96)
    p.add_argument("--body-bytes", type=int, default=16 * MIB - 2, help="the Content-Length each declares")
    p.add_argument("--hold", type=float, default=20, help="seconds the connections stay open after sending")
    p.add_argument("--label", default="", help="a name for this run in the output")
    p.add_argument("server_args", nargs="*", help="more options for the server (after --)")
    a = p.parse_args()
    work = tempfile.mkdtemp(prefix="gm-stalled-")
    srv = Server(a.server, "sqlite:" + os.path.join(work, "r.sqlite"), work,
                 ["--write-rate", "0", "--read-rate", "0", "--access-log", "off"] + a.server_args)
    pid = srv.proc.pid
    try:
        time.sleep(0.5)
        rss0, _ = memory(pid)
        sampler = Sampler(pid)
        sampler.start()
        t0 = time.monotonic()
        out = {}
        closing = threading.Event()
        threads = [threading.Thread(target=stalled_body, args=(srv.port, a.body_bytes, a.body_bytes - 2, t0, out, i, closing),
                                    daemon=True)
                   for i in range(a.connections)]
        for t in threads:
            t.start()
        gets = []
        end = None
        while True:
            gets.append(timed_get(srv.port))
            now = time.monotonic() - t0
            sending = [o for o in out.values() if "sent_at" not in o and "answered_at" not in o]
            if end is None and len(out) == a.connections and not sending:
                end = now + a.hold
            if (end is not None and now >= end) or now > a.hold + 60:
                break
            time.sleep(0.5)
        rss_hold, _ = memory(pid)
        closing.set()
        for o in out.values():
            try:
                o["socket"].shutdown(socket.SHUT_RDWR)  # wakes the thread blocked in recv
            except OSError:
                pass
            o["socket"].close()
        for t in threads:
            t.join(timeout=5)
        time.sleep(2)
        rss_after, hwm = memory(pid)
        took = time.monotonic() - t0
        sampler.stop.set()
        sampler.join()
    finally:
        srv.stop()
    sent = sum(o["sent"] for o in out.values())
    answers = {}
    for o in out.values():
        key = "%s %s" % (o.get("answer", "no answer"), o.get("code", ""))
        answers.setdefault(key.strip(), []).append(o.get("answered_at"))
    name = (a.label + ": ") if a.label else ""
    sent_by = max([o.get("sent_at", 0) for o in out.values()] + [0])
    print("%s%d connections, each declaring %d bytes and sending %d; %.0f MiB sent in all (the last at %.1f s); "
          "%.0f s in all" % (name, a.connections, a.body_bytes, a.body_bytes - 2, sent / MIB, sent_by, took))
    print("%sserver VmRSS: %.1f MiB before, %.1f MiB peak (VmHWM %.1f MiB), %.1f MiB at the end of the %.0f s hold, "
          "%.1f MiB after the connections closed" %
          (name, rss0 / MIB, sampler.peak_rss / MIB, max(hwm, sampler.hwm) / MIB, rss_hold / MIB, a.hold, rss_after / MIB))
    for key, times in sorted(answers.items()):
        at = sorted(t for t in times if t is not None)
        when = " (at %.1f-%.1f s)" % (at[0], at[-1]) if at else ""
        print("%s  %3d answered %s%s" % (name, len(times), key, when))
    slow = max(dt for _, dt in gets)
    failed = sum(1 for st, _ in gets if st != 200)
    print("%sGET /api/v1/stats meanwhile: %d requests, slowest %.3f s, %d not 200" % (name, len(gets), slow, failed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
