"""Shared pieces of the gmlab-server tests: start a real server process on a
free 127.0.0.1 port, talk HTTP to it with http.client (no proxies: only
loopback is ever contacted), count checks and print the closing line."""
import argparse
import copy
import gzip
import hashlib
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, name, ok, detail=""):
        if ok:
            self.passed += 1
            print(f"PASS {name}")
        else:
            self.failed += 1
            print(f"FAIL {name} {detail}")
        sys.stdout.flush()
        return ok

    def finish(self):
        print(f"{self.passed} passed, {self.failed} failed")
        return 0 if self.failed == 0 and self.passed > 0 else 1


def arguments(description):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--server", required=True, help="the gmlab-server binary")
    p.add_argument("--db", default="", help="database URL; default: a fresh SQLite file in --workdir")
    p.add_argument("--document", required=True, help="a real gmlab.run/1 document (results/nvidia-h200.json)")
    p.add_argument("--workdir", required=True)
    return p.parse_args()


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on just now."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def fresh_workdir(path):
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


class Server:
    """A gmlab-server child process; port 0 lets the server pick a free port,
    which it prints on its first line."""

    def __init__(self, binary, db, workdir, extra=(), name="server", listen="127.0.0.1:0"):
        self.log_path = os.path.join(workdir, name + ".log")
        self.log = open(self.log_path, "ab")
        self.proc = subprocess.Popen([binary, "--db", db, "--listen", listen, *extra],
                                     stdout=subprocess.PIPE, stderr=self.log)
        line = self.proc.stdout.readline().decode()
        if "listening on http://127.0.0.1:" not in line:
            self.proc.kill()
            self.proc.wait()
            self.log.close()
            raise RuntimeError("server did not start: " + line + open(self.log_path).read())
        self.port = int(line.split("http://127.0.0.1:")[1].split()[0])
        # With --metrics-listen: "...; metrics on http://127.0.0.1:PORT/metrics".
        self.metrics_port = int(line.split("metrics on http://127.0.0.1:")[1].split("/")[0]) if "metrics on http://127.0.0.1:" in line else None

    def request(self, method, path, body=None, headers=None, timeout=60):
        """A body goes with Content-Type: application/json, as gmlab-upload
        sends it, unless headers name another (or None: no such header)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            if isinstance(body, str):
                body = body.encode()
            headers = dict(headers or {})
            if body is not None and not any(k.lower() == "content-type" for k in headers):
                headers["Content-Type"] = "application/json"
            headers = {k: v for k, v in headers.items() if v is not None}
            conn.request(method, path, body=body, headers=headers)
            r = conn.getresponse()
            data = r.read()
            return r.status, dict((k.lower(), v) for k, v in r.getheaders()), data
        finally:
            conn.close()

    def json(self, method, path, body=None, headers=None):
        status, hdrs, data = self.request(method, path, body, headers)
        try:
            return status, hdrs, json.loads(data)
        except ValueError:
            return status, hdrs, None

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.log.close()


def rss_bytes(pid):
    """The process's resident memory (VmRSS), in bytes; 0 once it is gone."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def wait_until(check, seconds=10, step=0.1):
    """The first true value of check() within `seconds`, else its last value."""
    deadline = time.time() + seconds
    while True:
        v = check()
        if v or time.time() > deadline:
            return v
        time.sleep(step)


def settled(take, counted, seconds=10, step=0.25):
    """take()'s result once counted() of it has stopped moving (two takes
    `step` apart agree), or the last one after `seconds`. The server counts a
    request when its last byte is written or its connection ends, which on a
    busy machine can come after the client has read the answer and moved on:
    a scrape of the metrics compares only once what was answered is counted."""
    last = take()
    deadline = time.time() + seconds
    while time.time() < deadline:
        time.sleep(step)
        now = take()
        if counted(now) == counted(last):
            return now
        last = now
    return last


def wait_folded(srv, seconds=60):
    """/api/v1/stats once the refresher has folded every queued upload (or
    after `seconds`)."""
    last = {}

    def folded():
        last["stats"] = srv.json("GET", "/api/v1/stats")[2]
        return last["stats"]["pending"] == 0

    wait_until(folded, seconds)
    return last["stats"]


def default_db(args, name="results.sqlite"):
    return args.db or ("sqlite:" + os.path.join(args.workdir, name))


def load_document(path):
    with open(path) as f:
        return json.load(f)


def trimmed(doc, keep=10):
    """The document with each point's raw samples cut to `keep` (n stays):
    what a realistic small upload looks like."""
    d = copy.deepcopy(doc)
    for r in d["results"]:
        for s in r["series"]:
            for p in s["points"]:
                t = p.get("time_ms", {})
                if "samples" in t:
                    t["samples"] = t["samples"][:keep]
    return d


def gz(text):
    return gzip.compress(text.encode() if isinstance(text, str) else text)


def deciles(samples):
    """The nine deciles of the samples (type 7, as the library computes them),
    rounded to 6 significant digits."""
    v = sorted(samples)
    out = []
    for k in range(1, 10):
        pos = k / 10 * (len(v) - 1)
        lo = int(pos)
        hi = min(lo + 1, len(v) - 1)
        out.append(float(f"{v[lo] + (v[hi] - v[lo]) * (pos - lo):.6g}"))
    return out


def compact(doc):
    """The document in the compact form that `gmlab run` writes by default:
    each point's deciles in place of its raw samples. A document that is
    already compact (gmlab.run/1.1 or later) is returned as it is."""
    d = copy.deepcopy(doc)
    if d.get("schema") != "gmlab.run/1":
        return d
    d["schema"] = "gmlab.run/1.1"
    for r in d["results"]:
        if r.get("schema") == "gmlab.result/1":
            r["schema"] = "gmlab.result/1.1"
        for s in r.get("series", []):
            for p in s["points"]:
                t = p.get("time_ms", {})
                samples = t.pop("samples", None)
                if samples and "quantiles" not in t:
                    q = deciles(samples)
                    t["quantiles"] = [min(max(x, t["min"]), t["max"]) for x in q]
    return d


CREATED_AT = re.compile(r'"created_at":\s*"[^"]*"')


def as_new_run(text, tag):
    """The run document's text (whole, or without its closing brace) as
    another run: its created_at set from `tag`. The server stores a run once,
    keyed by its own digest of its GPU model, created_at and figures, whatever
    submission_id it comes with; a test that needs several stored copies of one
    document makes each a run of its own with this."""
    h = int(hashlib.sha256(str(tag).encode()).hexdigest()[:16], 16)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(1_700_000_000 + h % 100_000_000)) + ".%06dZ" % ((h >> 32) % 1_000_000)
    out, n = CREATED_AT.subn('"created_at": "%s"' % stamp, text, count=1)
    assert n == 1, "the document has no created_at"
    return out
