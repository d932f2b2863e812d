#!/usr/bin/env bash
# gmlab check on a lone GPU without a server (issue 49), in one go on a GPU
# machine, in under 8 minutes with the build:
#   - builds gmlab alone for the GPU present (-DCMAKE_CUDA_ARCHITECTURES=native)
#     and bench/gpu_load.cu with nvcc;
#   - runs `gmlab check --devices D` three times on the idle GPU and three times
#     while bench/gpu_load.cu streams memory on the same GPU from another
#     process, with no --server and no --baseline: the embedded reference and
#     the theoretical floors judge;
#   - keeps each run's JSON, table, Prometheus text, figures, stderr, exit
#     code and wall time under $OUT/runs, everything in $OUT/lone-gpu-check.tar.gz;
#   - ends with a summary that says what was expected and what came.
#
#   OUT=dir bash scripts/gpu-check.sh lone      (the same as bash scripts/lone-gpu-check.sh)
#
# GM_CHECK_DEVICE: the GPU checked and loaded (default 0). The idle figures are
# saved as runs/<model>-check-idle-N.figures.json: committed to results/check/, they
# become part of the embedded reference (python3 scripts/check-reference.py).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=$(realpath -m "${OUT:-$PWD/lone-gpu-out}")
mkdir -p "$OUT/runs"
exec > >(tee -a "$OUT/lone-gpu-check.log") 2>&1
SECONDS=0
DEV=${GM_CHECK_DEVICE:-0}
step() { echo; echo "=== [$SECONDS s] $*"; }
command -v nvcc >/dev/null || export PATH="/usr/local/cuda/bin:$PATH"

echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'); $(nproc) cores; checking GPU $DEV"
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,power.draw,temperature.gpu,mig.mode.current --format=csv
MODEL=$(nvidia-smi -i "$DEV" --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]\{1,\}/-/g; s/-$//')

step "build gmlab (the CLI alone) for the GPU present"
extra=()
[ -d .carry/include ] && extra+=(-DGM_THIRD_PARTY_INCLUDE="$PWD/.carry/include")
B=${GM_BUILD_DIR:-/tmp/gm-lone-build}
if ! GM_BUILD_DIR=$B GM_BUILD_TARGETS=gmlab-cli timeout 360 bash scripts/build.sh -DCMAKE_CUDA_ARCHITECTURES=native \
     -DGM_BUILD_TESTS=OFF "${extra[@]}" >"$OUT/build.log" 2>&1; then
  tail -30 "$OUT/build.log"; echo "SUMMARY: the build failed (build.log)"; exit 1
fi
GMLAB=$(realpath "$B/tools/cli/gmlab")
"$GMLAB" --version || exit 1
LOAD=/tmp/gpu_load
nvcc -O2 -arch=native -o "$LOAD" bench/gpu_load.cu >"$OUT/load-build.log" 2>&1 || { cat "$OUT/load-build.log"; exit 1; }
echo "built in $SECONDS s: $GMLAB, $LOAD"

# check NAME: one measured check (JSON, Prometheus text, figures), then its
# table from the same figures judged again (--figures: the same judge and
# reference, nothing measured), and the exit code and wall time of each.
check() {
  local name=$1 s0 rc wall
  s0=$(date +%s.%N)
  "$GMLAB" check --devices "$DEV" --json --prometheus "$OUT/runs/$name.prom" --save-figures "$OUT/runs/$name.figures.json" \
    >"$OUT/runs/$name.json" 2>"$OUT/runs/$name.stderr"
  rc=$?
  wall=$(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $s0 }")
  echo "$rc" >"$OUT/runs/$name.rc"
  echo "$wall" >"$OUT/runs/$name.wall_s"
  "$GMLAB" check --figures "$OUT/runs/$name.figures.json" >"$OUT/runs/$name.txt" 2>>"$OUT/runs/$name.stderr"
  echo "$?" >"$OUT/runs/$name.table_rc"
  cat "$OUT/runs/$name.txt"
  echo "check $name: exit $rc, $wall s wall (the whole command)"
}

for i in 1 2 3; do
  step "idle-$i: gmlab check --devices $DEV, no load, no --server"
  check "idle-$i"
  cp "$OUT/runs/idle-$i.figures.json" "$OUT/runs/$MODEL-check-idle-$i.figures.json"
done

for i in 1 2 3; do
  step "load-$i: gmlab check --devices $DEV while bench/gpu_load.cu streams memory on GPU $DEV"
  "$LOAD" "$DEV" 120 >"$OUT/runs/load-$i.gpu_load.log" 2>&1 &
  lpid=$!
  for _ in $(seq 60); do grep -q ready "$OUT/runs/load-$i.gpu_load.log" && break; sleep 0.5; done
  head -1 "$OUT/runs/load-$i.gpu_load.log"
  sleep 1
  check "load-$i"
  kill "$lpid" 2>/dev/null; wait "$lpid" 2>/dev/null
done
nvidia-smi --query-gpu=index,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv

step "summary"
command -v python3 >/dev/null || { echo "no python3: the summary is the lines 'check NAME: exit N' above"; grep '^check ' "$OUT/lone-gpu-check.log"; }
python3 - "$OUT/runs" "$DEV" "$SECONDS" <<'EOF' | tee "$OUT/summary.txt"
import json, os, sys
runs, dev, elapsed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
FIGS = ["dram_copy_gbs", "dram_triad_gbs", "dram_sustained_gbs", "l2_copy_gbs", "l2_hit_latency_ns", "h2d_pinned_gbs", "d2h_pinned_gbs"]
EXPECT = {"idle": (0, 0, "healthy"), "load": (11, 1, "degraded")}  # exit code, gmlab_check_node_status, verdict (docs/check.md)
ok_all = True
def read(name, ext):
    try:
        return open(os.path.join(runs, name + ext)).read().strip()
    except OSError:
        return ""
gpu = None
print("gmlab check on one GPU without a server: three runs idle, three beside bench/gpu_load.cu on the same GPU")
print("expected: idle -> exit 0, gmlab_check_node_status 0, healthy; loaded -> exit 11, gmlab_check_node_status 1, degraded,")
print("          GPU %d and the figures that fell named; every run's wall time <= 60 s" % dev)
HEAD = [f.replace("_gbs", "").replace("_ns", "") for f in FIGS]
print("%-7s %4s %6s %-9s %11s  %s" % ("run", "exit", "wall_s", "verdict", "node_status", "  ".join(HEAD)))
for kind in ("idle", "load"):
    for i in (1, 2, 3):
        name = f"{kind}-{i}"
        try:
            doc = json.loads(read(name, ".json"))
        except ValueError:
            print(f"{name}: no JSON ({read(name, '.stderr')[:300]})"); ok_all = False; continue
        rc, wall, table_rc = int(read(name, ".rc") or -1), float(read(name, ".wall_s") or 0), int(read(name, ".table_rc") or -1)
        prom = [l for l in read(name, ".prom").splitlines() if l.startswith("gmlab_check_node_status ")]
        status = int(float(prom[0].split()[1])) if prom else -1
        g = doc["figures"]["gpus"][0]
        gpu = gpu or f"{g.get('name')} (GPU {g.get('ordinal')}, {g.get('uuid')}, {g.get('pci_bus_id')})"
        verdict = doc["verdicts"]["node"]["verdict"]
        vals = "  ".join(f"{g['figures'].get(f, float('nan')):>{len(h)}.4g}" for f, h in zip(FIGS, HEAD))
        print("%-7s %4d %6.1f %-9s %11d  %s" % (name, rc, wall, verdict, status, vals))
        want_rc, want_status, want_verdict = EXPECT[kind]
        reasons = doc["verdicts"]["node"]["reasons"]
        named = sorted({f for f in FIGS for r in reasons if f in r and r.startswith(f"GPU {dev}:")})
        checks = [(rc == want_rc, f"exit {rc}, expected {want_rc}"), (status == want_status, f"Prometheus node status {status}, expected {want_status}"),
                  (verdict == want_verdict, f"verdict {verdict}, expected {want_verdict}"), (wall <= 60, f"wall {wall} s, expected <= 60"),
                  (table_rc == rc, f"the table's judgement exit {table_rc} differs from the run's {rc}")]
        if kind == "load":
            checks.append((bool(named), "no figure of GPU %d named" % dev))
        bad = [why for ok, why in checks if not ok]
        ok_all &= not bad
        print("        " + ("PASS" if not bad else "FAIL: " + "; ".join(bad)) + (f"; named: {', '.join(named)}" if named else ""))
        for r in reasons:
            print("        reason: " + r)
        not_judged = [f"{f['figure']} ({f['not_judged']})" for gv in doc["verdicts"]["gpus"] for f in gv["figures"] if not f.get("judged", True)]
        if not_judged and i == 1:
            print("        not judged: " + "; ".join(not_judged))
        if i == 1:
            for k, v in doc["verdicts"]["judged_with"].items():
                print(f"        judged with {k}: {v}")
print(f"card: {gpu}")
print(f"script time: {elapsed} s (budget 480 s, the build included)")
ok_all &= elapsed < 480
print("SUMMARY: " + ("PASS: idle healthy (exit 0), loaded degraded (exit 11) with the GPU and figures named, each run <= 60 s"
                     if ok_all else "FAIL: see the FAIL lines above"))
EOF
tar czf "$OUT/lone-gpu-check.tar.gz" -C "$OUT" runs summary.txt lone-gpu-check.log build.log 2>/dev/null
echo "everything: $OUT/lone-gpu-check.tar.gz ($SECONDS s)"
