"""gmlab check on recorded figures, without a GPU: the exit codes (0 healthy,
11 degraded, 12 unusable, 13 not checked, 14 unjudged, 2 bad usage), the table
naming the GPU and figure, --json, and the Prometheus text parsed by the
Prometheus client's own parser. The figures are an H200's (results/
nvidia-h200-standard-suite.json: stream, memory_spaces, transfer) on every GPU
of a node, with the faults the check must find planted in them; and issue 49's
lone H100, idle and under load (tests/cli/data), judged by the reference built
into gmlab and the theoretical floors, with no server."""
import argparse
import copy
import json
import os
import subprocess
import sys
import time

p = argparse.ArgumentParser()
p.add_argument("--gmlab", required=True)
p.add_argument("--committed", required=True, help="a standard-suite run document")
p.add_argument("--workdir", required=True)
args = p.parse_args()
os.makedirs(args.workdir, exist_ok=True)
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else " " + str(detail)))
    if ok:
        passed += 1
    else:
        failed += 1


run = json.load(open(args.committed))
summary = {r["experiment"]["name"]: r["summary"] for r in run["results"]}
device = run["device"]


def gpu(ordinal, scale=1.0, dram=1.0):
    s = summary
    return {"ordinal": ordinal, "name": device["name"], "uuid": f"GPU-{ordinal:04d}", "pci_bus_id": f"0000:{ordinal + 10:02X}:00.0",
            "theoretical": {"dram_gbs": device["theoretical_bandwidth_gbs"], "host_link_gbs": device["host_link"]["theoretical_gbs"]},
            "figures": {"dram_copy_gbs": s["stream"]["copy_gbs"] * scale * dram, "dram_triad_gbs": s["stream"]["triad_gbs"] * scale * dram,
                        "l2_hit_latency_ns": s["memory_spaces"]["l2_ns"] / scale,
                        "h2d_pinned_gbs": s["transfer"]["pinned_h2d_peak_gbs"] * scale,
                        "d2h_pinned_gbs": s["transfer"]["pinned_d2h_peak_gbs"] * scale},
            "health": {"source": "nvml", "ecc": {"enabled": True, "volatile_uncorrected": 0, "volatile_corrected": 0},
                       "pcie": {"current_generation": 5, "max_generation": 5, "current_width": 16, "max_width": 16},
                       "nvlink": {"active_links": 18, "links": []}},
            "errors": []}


SPREAD = [1.0, 0.996, 1.003, 0.998]


def node(gpus):
    return {"schema": "gmlab.check/1", "gpus": gpus, "wall_s": 24.0, "finished_unix": 1.7e9}


def write(name, doc):
    path = os.path.join(args.workdir, name)
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def gmlab(*a, timeout=30):
    t = time.time()
    r = subprocess.run([args.gmlab, "check", *a], capture_output=True, text=True, timeout=timeout)
    return r.returncode, r.stdout, r.stderr, time.time() - t


healthy = write("healthy.json", node([gpu(i, SPREAD[i]) for i in range(4)]))
slow = write("slow.json", node([gpu(i, SPREAD[i], 0.55 if i == 2 else 1.0) for i in range(4)]))
two_slow = write("two.json", node([gpu(0), gpu(1, 1.0, 0.5)]))
ecc = node([gpu(i, SPREAD[i]) for i in range(4)])
ecc["gpus"][3]["health"]["ecc"]["volatile_uncorrected"] = 2
ecc = write("ecc.json", ecc)
mig = node([gpu(i, SPREAD[i]) for i in range(4)])
mig["gpus"][1] = {"ordinal": 1, "mig": True, "figures": {}, "health": {"source": "nvml", "mig": {"enabled": True}}}
mig = write("mig.json", mig)

rc, out, err, _ = gmlab("--figures", healthy, "--prometheus", os.path.join(args.workdir, "healthy.prom"))
check("a healthy node exits 0", rc == 0, (rc, out, err))
check("the table says healthy", "node: healthy (exit 0)" in out, out)

prom = os.path.join(args.workdir, "slow.prom")
rc, out, err, _ = gmlab("--figures", slow, "--prometheus", prom)
check("one slow GPU of four exits 11 (degraded)", rc == 11, (rc, err))
named = [l for l in out.splitlines() if l.startswith("  GPU ")]
check("the slow GPU and its figures are named, no other GPU", len(named) == 2 and all(l.startswith("  GPU 2: dram_") for l in named), named)

rc, out, err, _ = gmlab("--figures", two_slow, "--json")
doc = json.loads(out) if out.strip().startswith("{") else {}
check("two GPUs: the slower is degraded (exit 11)", rc == 11 and doc["verdicts"]["gpus"][1]["verdict"] == "degraded"
      and doc["verdicts"]["gpus"][0]["verdict"] == "healthy", (rc, err))
check("--json holds the figures and the verdicts", "figures" in doc and doc["verdicts"]["node"]["exit_code"] == 11)
check("two GPUs: the node rule says what it can judge", "two GPUs" in doc.get("verdicts", {}).get("judged_with", {}).get("node", ""))

rc, out, err, _ = gmlab("--figures", ecc)
check("uncorrectable ECC errors exit 12 (unusable)", rc == 12 and "GPU 3: 2 uncorrectable ECC errors" in out, (rc, out))
rc, out, err, _ = gmlab("--figures", mig)
check("a GPU in MIG mode exits 13 (not checked) and says why", rc == 13 and "MIG mode is enabled" in out, (rc, out))

# Bad input: each a clear message and exit 2, at once.
rc, out, err, dt = gmlab("--devices", "0,0")
check("--devices naming a GPU twice: exit 2 with the reason", rc == 2 and "twice" in err and dt < 10, (rc, err))
rc, out, err, _ = gmlab("--devices", "0,x")
check("--devices with a non-ordinal: exit 2", rc == 2 and "--devices" in err, (rc, err))
rc, out, err, _ = gmlab("--figures", os.path.join(args.workdir, "missing.json"))
check("a missing figures file: exit 2 naming it", rc == 2 and "missing.json" in err, (rc, err))
garbage = os.path.join(args.workdir, "garbage.json")
open(garbage, "w").write("{\"schema\": \"gmlab.check/1\", \"gpus\": 7}")
rc, out, err, _ = gmlab("--figures", garbage)
check("a malformed figures document: exit 2 naming what is wrong", rc == 2 and "gpus" in err, (rc, err))
other = write("other-model.json", {"model": "NVIDIA H100 80GB HBM3", "uploads": 30, "figures": {}})
rc, out, err, _ = gmlab("--figures", healthy, "--baseline", other)
check("a baseline of another GPU model: exit 2 naming both models", rc == 2 and "H100" in err and device["name"] in err, (rc, err))
base = write("baseline.json", {"model": device["name"], "uploads": 40, "figures": {"stream/copy_gbs": {
    "n": 40, "quantiles": {"0.05": summary["stream"]["copy_gbs"] * 0.97, "0.5": summary["stream"]["copy_gbs"]}}}})
rc, out, err, _ = gmlab("--figures", healthy, "--baseline", base, "--json")
fig = json.loads(out)["verdicts"]["gpus"][0]["figures"][0] if rc == 0 else {}
check("a site's baseline judges the figure (percentile, source)", fig.get("distribution", {}).get("source") == "baseline", (rc, err))
rc, out, err, dt = gmlab("--figures", healthy, "--server", "http://127.0.0.1:9")
check("a server that does not answer: judged without the crowd, exit unchanged, no hang",
      rc == 0 and "judged without the crowd" in err and dt < 15, (rc, err, dt))

# Issue 49's lone H100 without a server: the reference built into gmlab judges.
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
lone_idle = os.path.join(DATA, "nvidia-h100-80gb-hbm3-lone-check-idle.figures.json")
lone_load = os.path.join(DATA, "nvidia-h100-80gb-hbm3-lone-check-load.figures.json")
rc, out, err, _ = gmlab("--figures", lone_idle, "--prometheus", os.path.join(args.workdir, "lone-idle.prom"))
check("a lone idle H100 without a server: healthy, exit 0", rc == 0 and "node: healthy (exit 0)" in out, (rc, out, err))
check("the table says which reference judged", "judged with reference: the embedded reference of NVIDIA H100 80GB HBM3" in out, out)
l2_row = [l for l in out.splitlines() if l.startswith("  l2_copy_gbs")]
check("the L2 copy, which has no theoretical figure, is judged by the committed idle check runs of the model",
      len(l2_row) == 1 and "not judged" not in l2_row[0] and " ok " in l2_row[0], l2_row)
lone_prom = os.path.join(args.workdir, "lone-load.prom")
rc, out, err, _ = gmlab("--figures", lone_load, "--prometheus", lone_prom)
named = [l for l in out.splitlines() if l.startswith("  GPU ")]
check("a lone H100 under load without a server: degraded, exit 11", rc == 11 and "node: degraded (exit 11)" in out, (rc, out, err))
check("the loaded GPU and the figures that fell are named",
      [l.split(" ")[4] for l in named] == ["dram_sustained_gbs", "l2_copy_gbs", "l2_hit_latency_ns"]
      and all(l.startswith("  GPU 0: ") for l in named), named)
check("the verdict says it was judged against the theoretical floor",
      "below the theoretical floor of 60.0 %" in named[0] if named else False, named)
check("copy and triad are labelled burst figures", "burst: the median of single timed launches" in out, out)
unknown = json.load(open(lone_idle))
unknown["gpus"][0]["name"] = "A GPU the lab never measured"
unknown["gpus"][0]["theoretical"] = {}
unjudged_prom = os.path.join(args.workdir, "unjudged.prom")
rc, out, err, _ = gmlab("--figures", write("unjudged.json", unknown), "--prometheus", unjudged_prom)
check("a lone GPU nothing can judge is unjudged: exit 14, never healthy", rc == 14 and "node: unjudged (exit 14)" in out, (rc, out))

# The Prometheus text, read by the Prometheus client's parser.
try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:
    text_string_to_metric_families = None
check("the Prometheus client is installed (python3-prometheus-client)", text_string_to_metric_families is not None)
if text_string_to_metric_families:
    families = {f.name: f for f in text_string_to_metric_families(open(prom).read())}
    check("Prometheus: the families are there", {"gmlab_check_figure", "gmlab_check_gpu_status", "gmlab_check_node_status",
                                                  "gmlab_check_figure_flagged", "gmlab_check_duration_seconds"} <= set(families),
          sorted(families))
    status = {s.labels["gpu"]: s.value for s in families["gmlab_check_gpu_status"].samples}
    check("Prometheus: GPU 2 degraded (1), the others healthy (0)", status == {"0": 0, "1": 0, "2": 1, "3": 0}, status)
    flagged = sorted((s.labels["gpu"], s.labels["figure"]) for s in families["gmlab_check_figure_flagged"].samples if s.value == 1)
    check("Prometheus: the flagged figures", flagged == [("2", "dram_copy_gbs"), ("2", "dram_triad_gbs")], flagged)
    copy_fig = [s for s in families["gmlab_check_figure"].samples if s.labels["figure"] == "dram_copy_gbs" and s.labels["gpu"] == "2"]
    check("Prometheus: a figure's value", len(copy_fig) == 1 and abs(copy_fig[0].value - summary["stream"]["copy_gbs"] * 1.003 * 0.55) < 1e-6,
          copy_fig)
    check("Prometheus: the node's status", families["gmlab_check_node_status"].samples[0].value == 1)
    lone = {f.name: f for f in text_string_to_metric_families(open(lone_prom).read())}
    check("Prometheus, lone H100 under load: node status 1 (degraded)", lone["gmlab_check_node_status"].samples[0].value == 1)
    flagged = sorted(s.labels["figure"] for s in lone["gmlab_check_figure_flagged"].samples if s.value == 1)
    check("Prometheus, lone H100 under load: the flagged figures",
          flagged == ["dram_sustained_gbs", "l2_copy_gbs", "l2_hit_latency_ns"], flagged)
    unjudged = sorted(s.labels["figure"] for s in lone["gmlab_check_figure_judged"].samples if s.value == 0)
    check("Prometheus, lone H100 under load: every figure judged (1 in gmlab_check_figure_judged)", unjudged == [], unjudged)
    nothing_judged = {f.name: f for f in text_string_to_metric_families(open(unjudged_prom).read())}
    zeros = sorted(s.labels["figure"] for s in nothing_judged["gmlab_check_figure_judged"].samples if s.value == 0)
    check("Prometheus: a figure nothing judged is 0 in gmlab_check_figure_judged", "l2_copy_gbs" in zeros, zeros)
    idle = {f.name: f for f in text_string_to_metric_families(open(os.path.join(args.workdir, "lone-idle.prom")).read())}
    check("Prometheus, lone idle H100: node status 0", idle["gmlab_check_node_status"].samples[0].value == 0)
    nothing = {f.name: f for f in text_string_to_metric_families(open(unjudged_prom).read())}
    check("Prometheus: an unjudged node's status is 4", nothing["gmlab_check_node_status"].samples[0].value == 4)

print(f"{passed} passed, {failed} failed")
sys.exit(0 if failed == 0 and passed > 0 else 1)
