"""scripts/check-reference.py on a small results folder made here: a run
document's summary figures, a scripts/multi-gpu.sh log whose idle checks count
and whose loaded ones do not, a saved figures document of an idle check (gzip),
quantiles as the server computes them (type 7), the figures no run measured
listed per model, and --verify failing on a reference that differs."""
import gzip
import json
import os
import subprocess
import sys
import tempfile

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "check-reference.py")
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else " " + str(detail)))
    passed, failed = passed + ok, failed + (not ok)


d = tempfile.mkdtemp()
run = {"schema": "gmlab.run/1.3",
       "device": {"name": "Test GPU", "theoretical_bandwidth_gbs": 1000.0, "host_link": {"theoretical_gbs": 32.0}},
       "results": [{"experiment": {"name": "stream"}, "summary": {"copy_gbs": 800.0, "triad_gbs": 820.0}},
                   {"experiment": {"name": "memory_spaces"}, "summary": {"l2_ns": 200.0}},
                   {"experiment": {"name": "stream"}, "quick": True, "summary": {"copy_gbs": 1.0}}]}
json.dump(run, open(os.path.join(d, "test-gpu-standard-suite.json"), "w"))
ROW = "  {:<18} {:>10} GB/s        800   0.0%    ok          -     -    80.0%     -\n"
log = ("=== [1 s] A1: gmlab check, no load\nGPU 0 Test GPU (GPU-a): healthy\n" + ROW.format("dram_copy_gbs", 810) +
       ROW.format("dram_sustained_gbs", 700) + "node: healthy (exit 0)\n"
       "=== [9 s] B1: gmlab check with a memory-streaming load on GPU 0\nGPU 0 Test GPU (GPU-a): degraded\n" +
       ROW.format("dram_sustained_gbs", 100) + "node: degraded (exit 11)\n")
with gzip.open(os.path.join(d, "test-gpu-x1-multi-gpu.log.gz"), "wt") as f:
    f.write(log)
figures = {"schema": "gmlab.check/1", "gpus": [{"ordinal": 0, "name": "Test GPU", "errors": [],
                                                "figures": {"dram_sustained_gbs": 720.0, "dram_copy_gbs": 790.0}}]}
with gzip.open(os.path.join(d, "test-gpu-check-idle-1.figures.json.gz"), "wt") as f:
    json.dump(figures, f)
out = os.path.join(d, "ref.json")
r = subprocess.run([sys.executable, SCRIPT, "--results", d, "--out", out], capture_output=True, text=True)
check("the script writes the reference", r.returncode == 0, r.stderr)
model = json.load(open(out))["models"]["Test GPU"] if r.returncode == 0 else {}
figs = model.get("figures", {})
copy = figs.get("stream/copy_gbs", {})
check("copy: the run's summary and both idle checks, not the quick result", copy.get("n") == 3, copy)
check("quantiles of type 7 (median of 790, 800, 810; q0.25 = 795)",
      copy.get("quantiles", {}).get("0.5") == 800 and copy.get("quantiles", {}).get("0.25") == 795, copy.get("quantiles"))
check("fractions of the theoretical DRAM figure", copy.get("fraction_quantiles", {}).get("0.5") == 0.8, copy.get("fraction_quantiles"))
sustained = figs.get("check/dram_sustained_gbs", {})
check("sustained: the idle log table and the figures document, never the loaded run",
      sustained.get("n") == 2 and sustained.get("quantiles", {}).get("0.01", 0) >= 700, sustained)
check("the figures no run measured are listed with the reason",
      sorted(model.get("not_covered", {})) == ["d2h_pinned_gbs", "h2d_pinned_gbs", "l2_copy_gbs"], model.get("not_covered"))
check("every source is named", model.get("uploads") == 3, model.get("sources"))
json.dump({"models": {}}, open(os.path.join(d, "stale.json"), "w"))
r = subprocess.run([sys.executable, SCRIPT, "--results", d, "--verify", os.path.join(d, "stale.json")], capture_output=True, text=True)
check("--verify fails on a reference that differs, and says how to fix it", r.returncode == 1 and "check-reference.py" in r.stderr, r)
r = subprocess.run([sys.executable, SCRIPT, "--results", d, "--verify", out], capture_output=True, text=True)
check("--verify passes on what the script makes", r.returncode == 0, r.stderr)
print(f"{passed} passed, {failed} failed")
sys.exit(0 if failed == 0 and passed > 0 else 1)
