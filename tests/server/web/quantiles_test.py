"""GET /api/v1/gpus/{model}/quantiles against a real gmlab-server on
127.0.0.1 (SQLite): the quantiles of the figures gmlab check judges, from the
stored uploads of committed runs (by model name in any case, or by key), a
404 for a model without uploads, and, with --gmlab, gmlab check judging
recorded figures against this crowd, and without it where the server does
not answer or answers garbage."""
import argparse
import http.server
import json
import os
import subprocess
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import harness  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--server", required=True)
p.add_argument("--document", required=True, help="a standard-suite run (stream, memory_spaces, transfer)")
p.add_argument("--other", required=True, help="a standard-suite run of another model")
p.add_argument("--gmlab", default="")
p.add_argument("--workdir", required=True)
args = p.parse_args()
harness.fresh_workdir(args.workdir)
c = harness.Checks()

doc_text = open(args.document).read()
doc = json.loads(doc_text)
other_text = open(args.other).read()
model = doc["device"]["name"]
summary = {r["experiment"]["name"]: r["summary"] for r in doc["results"]}


def quantile7(values, q):
    v = sorted(values)
    h = (len(v) - 1) * q
    lo = int(h)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (h - lo) * (v[hi] - v[lo])


# Copies of the committed run whose stream figures differ, as uploads of
# several GPUs of one model would: the quantiles must follow them.
SCALES = [1.0, 0.97, 1.02, 0.99, 1.01, 0.96, 1.03, 1.0, 0.98, 1.04]
srv = harness.Server(args.server, "sqlite:" + os.path.join(args.workdir, "q.sqlite"), args.workdir)
try:
    for i, s in enumerate(SCALES):
        # A run of its own (the same run is stored once).
        d = json.loads(harness.as_new_run(doc_text, "scale-%d" % i))
        for r in d["results"]:
            if r["experiment"]["name"] == "stream":
                for k in ("copy_gbs", "triad_gbs"):
                    r["summary"][k] = summary["stream"][k] * s
        status, _, body = srv.request("POST", "/api/v1/results", json.dumps(d))
        c.check(f"upload {i} accepted", status == 201, (status, body[:300]))
    status, _, body = srv.request("POST", "/api/v1/results", other_text)
    c.check("upload of another model accepted", status == 201, (status, body[:300]))

    path = "/api/v1/gpus/" + urllib.parse.quote(model) + "/quantiles"
    status, _, q = srv.json("GET", path)
    c.check("quantiles by model name: 200", status == 200, (status, q))
    q = q or {}
    figs = q.get("figures", {})
    c.check("the model and its uploads", q.get("model") == model and q.get("uploads") == len(SCALES), (q.get("model"), q.get("uploads")))
    copies = [summary["stream"]["copy_gbs"] * s for s in SCALES]
    got = figs.get("stream/copy_gbs", {})
    c.check("stream/copy_gbs: n", got.get("n") == len(SCALES), got.get("n"))
    for level in ("0.05", "0.5", "0.95"):
        want = quantile7(copies, float(level))
        have = got.get("quantiles", {}).get(level)
        c.check(f"stream/copy_gbs quantile {level} (type 7)", have is not None and abs(have - want) < 1e-6 * want, (have, want))
    theo = doc["device"]["theoretical_bandwidth_gbs"]
    frac = got.get("fraction_quantiles", {}).get("0.5")
    c.check("stream/copy_gbs as a fraction of theoretical", frac is not None and abs(frac - quantile7(copies, 0.5) / theo) < 1e-9, frac)
    for f, key in (("memory_spaces/l2_ns", ("memory_spaces", "l2_ns")), ("transfer/pinned_h2d_peak_gbs", ("transfer", "pinned_h2d_peak_gbs"))):
        v = figs.get(f, {}).get("quantiles", {}).get("0.5")
        c.check(f"{f}: every upload's figure", v is not None and abs(v - summary[key[0]][key[1]]) < 1e-9 * v, v)
    status, _, by_key = srv.json("GET", "/api/v1/gpus/" + urllib.parse.quote(q.get("keys", ["?"])[0]) + "/quantiles")
    c.check("by key: the same figures", status == 200 and by_key.get("figures") == figs, status)
    status, _, low = srv.json("GET", "/api/v1/gpus/" + urllib.parse.quote(model.lower()) + "/quantiles")
    c.check("by name in lower case", status == 200 and low.get("uploads") == len(SCALES), status)
    status, _, missing = srv.json("GET", "/api/v1/gpus/No%20Such%20GPU/quantiles")
    c.check("a model without uploads: 404 not_found", status == 404 and (missing or {}).get("code") == "not_found", (status, missing))

    if args.gmlab:
        base = f"http://127.0.0.1:{srv.port}"
        s = summary
        def gpu(o, dram):
            return {"ordinal": o, "name": model, "uuid": f"GPU-{o}", "theoretical": {"dram_gbs": theo},
                    "figures": {"dram_copy_gbs": s["stream"]["copy_gbs"] * dram, "dram_triad_gbs": s["stream"]["triad_gbs"] * dram},
                    "health": {"source": "nvml"}, "errors": []}
        figures = os.path.join(args.workdir, "figures.json")
        json.dump({"schema": "gmlab.check/1", "gpus": [gpu(0, 1.0), gpu(1, 1.0), gpu(2, 1.0)]}, open(figures, "w"))
        r = subprocess.run([args.gmlab, "check", "--figures", figures, "--server", base, "--json"], capture_output=True, text=True, timeout=30)
        out = json.loads(r.stdout) if r.returncode in (0, 11) else {}
        f0 = out.get("verdicts", {}).get("gpus", [{}])[0].get("figures", [{}])[0]
        c.check("gmlab check fetched the crowd: n and percentile", f0.get("distribution", {}).get("n") == len(SCALES)
                and 0 < f0["distribution"]["percentile"] < 100, (r.returncode, r.stderr, f0.get("distribution")))
        c.check("a node at the crowd's median is healthy", r.returncode == 0, (r.returncode, r.stderr))
        json.dump({"schema": "gmlab.check/1", "gpus": [gpu(0, 0.9)]}, open(figures, "w"))
        r = subprocess.run([args.gmlab, "check", "--figures", figures, "--server", base], capture_output=True, text=True, timeout=30)
        c.check("one GPU below the crowd's 5th percentile: degraded (exit 11), named", r.returncode == 11 and "GPU 0: dram_copy_gbs" in r.stdout
                and "percentile" in r.stdout, (r.returncode, r.stdout, r.stderr))

        class Garbage(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.end_headers()
                self.wfile.write(b"<html>not a quantiles document")

            def log_message(self, *a):
                pass
        g = http.server.HTTPServer(("127.0.0.1", 0), Garbage)
        threading.Thread(target=g.serve_forever, daemon=True).start()
        for what, url in (("answers garbage", f"http://127.0.0.1:{g.server_port}"), ("does not answer", "http://127.0.0.1:9")):
            t = time.time()
            r = subprocess.run([args.gmlab, "check", "--figures", figures, "--server", url], capture_output=True, text=True, timeout=30)
            c.check(f"a server that {what}: judged without the crowd, said, no hang",
                    r.returncode == 0 and "judged without the crowd" in r.stderr and time.time() - t < 15, (r.returncode, r.stderr))
        g.shutdown()
finally:
    srv.stop()
sys.exit(c.finish())
