"""gmlab report --server against a real gmlab-server on 127.0.0.1 (SQLite):
the glance's crowd column carries the server's median of the model's uploads
(three uploads of the committed H100 run, their stream copy scaled), the
glance's own figures stay the run's, there is no crowd column without
--server, and a server that does not answer leaves the report whole, with the
reason, and quickly."""
import argparse
import json
import os
import socket
import subprocess
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server"))
import harness  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--gmlab", required=True)
p.add_argument("--server", required=True, help="the gmlab-server binary")
p.add_argument("--document", required=True, help="a standard-suite run with read_write (the H100 run of a983714)")
p.add_argument("--workdir", required=True)
args = p.parse_args()
harness.fresh_workdir(args.workdir)
c = harness.Checks()

doc_text = open(args.document).read()
doc = json.loads(doc_text)
model = doc["device"]["name"]
summary = {r["experiment"]["name"]: r.get("summary", {}) for r in doc["results"]}
SCALES = [1.0, 0.98, 1.03]


def report(*extra, timeout=60):
    t = time.time()
    r = subprocess.run([args.gmlab, "report", args.document, *extra], capture_output=True, text=True, timeout=timeout)
    return r.returncode, r.stdout, r.stderr, time.time() - t


def glance_of(text):
    """The glance's lines: from its heading to the first result's."""
    at = text.find("== This GPU at a glance")
    return text[at:text.find("\n== stream", at)] if at >= 0 else ""


def line_of(glance, label):
    return next((ln for ln in glance.splitlines() if label in ln), "")


rc, out, err, _ = report()
g = glance_of(out)
c.check("without --server: exit 0 and the glance", rc == 0 and g != "", (rc, err[-500:]))
c.check("without --server: no crowd column", "crowd median" not in out, g)
c.check("the read figure is the run's", f"{summary['read_write']['read_gbs']:.1f} GB/s" in line_of(g, "read (alone)"), line_of(g, "read (alone)"))

srv = harness.Server(args.server, "sqlite:" + os.path.join(args.workdir, "glance.sqlite"), args.workdir)
try:
    for i, s in enumerate(SCALES):
        d = json.loads(doc_text)
        for r in d["results"]:
            if r["experiment"]["name"] == "stream":
                r["summary"]["copy_gbs"] = summary["stream"]["copy_gbs"] * s
        status, _, body = srv.request("POST", "/api/v1/results", json.dumps(d))
        c.check(f"upload {i} accepted", status == 201, (status, body[:300]))

    def folded_model():
        status, _, t = srv.json("GET", "/api/v1/experiments/stream")
        for m in (t or {}).get("models", []) if status == 200 else []:
            if m.get("name") == model and m.get("uploads") == len(SCALES) and "copy_gbs" in m.get("figures", {}):
                return m
        return None

    m = harness.wait_until(folded_model, seconds=60, step=0.5)
    c.check("the server's table has the model's three uploads", m is not None, m)
    url = f"http://127.0.0.1:{srv.port}"
    copies = sorted(summary["stream"]["copy_gbs"] * s for s in SCALES)
    rc, out, err, _ = report("--server", url)
    g = glance_of(out)
    c.check("with --server: exit 0 and a crowd column", rc == 0 and "crowd median" in g, (rc, err[-500:], g))
    copy_line = line_of(g, "copy (STREAM copy kernel)")
    c.check("copy: the crowd's median of the three uploads", f"{copies[1]:.1f} GB/s (n 3)" in copy_line, copy_line)
    if m:
        c.check("copy: the server's own median", f"{m['figures']['copy_gbs']['median']:.1f} GB/s (n 3)" in copy_line, (m["figures"]["copy_gbs"], copy_line))
    c.check("copy: the run's own figure beside it", f"{summary['stream']['copy_gbs']:.1f} GB/s" in copy_line, copy_line)
    l1 = summary["latency"]["l1_ns"]
    c.check("L1 latency: every upload's figure", f"{l1:.3f} ns (n 3)" in line_of(g, "L1 hit"), line_of(g, "L1 hit"))
    c.check("the crowd's model and server named", f"model {model} from {url}" in g, g[-600:])
    html = os.path.join(args.workdir, "glance.html")
    rc, _, err, _ = report("--html", html, "--server", url)
    page = open(html).read() if rc == 0 else ""
    c.check("HTML with --server: the crowd column", "<th>crowd median</th>" in page and f"{copies[1]:.1f} GB/s (n 3)" in page, (rc, err[-300:]))
finally:
    srv.stop()

# A port nothing listens on: the report without the crowd's medians, saying why.
s = socket.socket()
s.bind(("127.0.0.1", 0))
dead = s.getsockname()[1]
s.close()
rc, out, err, took = report("--server", f"http://127.0.0.1:{dead}", timeout=60)
g = glance_of(out)
c.check("server not answering: exit 0, the whole report", rc == 0 and "== consistency" in out, (rc, err[-300:]))
c.check("server not answering: the reason in the glance", "crowd: stream: " in g and "not asked" in g, g[-800:])
c.check("server not answering: quickly", took < 15, took)
sys.exit(c.finish())
