#!/usr/bin/env bash
# On a GPU machine, in one go and within a time budget (GM_BUDGET_S, default
# 400 s): the DRAM headline kernels of issue 54, rebuilt, verified and
# measured.
#   1. bench/read_probe.cu, bench/tma_variants_probe.cu and
#      bench/transpose_probe.cu (GM_PROBES=0 skips them)
#   2. the build of the CLI in $GM_GPU_BUILD (the GPU tests are built in 5)
#   3. the standard suite (`gmlab run`, no options), timed: JSON and text
#   4. read_write's read shapes (load_hint, block size; each run times 4, 8
#      and 16 loads in flight), read_write and stream without the L2 flush,
#      and tma_copy's one-pass grid
#   5. the GPU tests of the experiments these kernels serve (read_write,
#      stream, transpose, tma_copy, managed_memory, compressible, the
#      counters), then compute-sanitizer memcheck on read_write, stream,
#      transpose and tma_copy with --quick
#   6. the figures: read, write, copy, triad, memset and cudaMemcpy side by
#      side, the transpose's wide kernel over the copy, TMA over cudaMemcpy,
#      the suite's wall time, and the notes that explain a shortfall
# Everything goes to $OUT, in at most 8 files. Header-only libraries and
# GoogleTest may come from .carry/ (as for scripts/gpu-check.sh).
#
#   OUT=dir GM_BUDGET_S=400 scripts/read-kernel-gpu.sh
set -uo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
OUT=${OUT:-$PWD/gpu-out}
BUDGET=${GM_BUDGET_S:-400}
B=${GM_GPU_BUILD:-/tmp/gm-read-kernel-build}
mkdir -p "$OUT"
left() { echo $((BUDGET - ($(date +%s) - start))); }
since() { echo "[$(($(date +%s) - start)) s] $*"; }
extra=()
[ -d .carry/include ] && extra+=(-DGM_THIRD_PARTY_INCLUDE="$PWD/.carry/include")
[ -d .carry/googletest ] && extra+=(-DGM_GTEST_SOURCE_DIR="$PWD/.carry/googletest")
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
status=0

# The probes first, on an idle machine (they compile in seconds).
if [ "${GM_PROBES:-1}" = 1 ]; then
  nvcc -O3 -std=c++17 -arch=native -o /tmp/read_probe bench/read_probe.cu & p1=$!
  nvcc -O3 -std=c++17 -arch=native -o /tmp/tma_variants_probe bench/tma_variants_probe.cu & p2=$!
  nvcc -O3 -std=c++17 -arch=native -o /tmp/transpose_probe bench/transpose_probe.cu & p3=$!
  wait $p1 $p2 $p3
  since "probes"
  { timeout 100 /tmp/read_probe; echo; timeout 60 /tmp/tma_variants_probe; echo; timeout 40 /tmp/transpose_probe; } \
    >"$OUT/probes.txt" 2>&1 || status=1
  cat "$OUT/probes.txt"
fi
since "build"
{ cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=native "${extra[@]}" &&
  cmake --build "$B" -j16 --target gmlab-cli; } >"$OUT/build.log" 2>&1 ||
  { status=1; grep -E "error|FAILED" "$OUT/build.log" | head -30; }
GMLAB=$B/tools/cli/gmlab
[ -x "$GMLAB" ] || { echo "no gmlab built"; exit 1; }
since "build done"

# The standard suite, timed: its figures are the ones a user sees.
t0=$(date +%s%N)
"$GMLAB" run --json "$OUT/standard.json" >"$OUT/standard.txt" 2>&1 || { status=1; echo "standard run FAILED"; tail -20 "$OUT/standard.txt"; }
t1=$(date +%s%N)
echo "standard suite: $(( (t1 - t0) / 1000000 )) ms wall" | tee -a "$OUT/standard.txt"

# The read's shapes and TMA's one-pass grid, each a run of its own.
{
  for s in "load_hint=default" "load_hint=l2_256b" "block_size=512" "block_size=1024 load_hint=l2_256b"; do
    args=(); for kv in $s; do args+=(--set "$kv"); done
    since "read_write $s (loads 8, then 4 and 16)"
    "$GMLAB" run read_write "${args[@]}" | grep -E "^    (read|read_loads[0-9]+|write|memset)_gbs|write_over_read|^  - DRAM ordering"
  done
  since "read_write, no L2 flush"
  "$GMLAB" run read_write --no-flush-l2 | grep -E "^    (read|read_loads[0-9]+|write|memset)_gbs"
  since "stream, no L2 flush"
  "$GMLAB" run stream --no-flush-l2 | grep -E "^    (copy|triad|cudaMemcpy)_gbs"
  [ "$(left)" -gt 150 ] && { since "tma_copy grid=one_pass"; "$GMLAB" run tma_copy --set grid=one_pass --set paths=bulk,tensor --set include_references=true |
    grep -E "tma_gbs|tma_over_memcpy|memcpy_gbs|stream_copy_gbs|bulk_best|tensor_best|What limits"; }
} >"$OUT/variants.txt" 2>&1
cat "$OUT/variants.txt"

# GPU tests of what changed (built now: the figures come first), then the
# sanitizer on the experiments touched.
{
  since "build the GPU tests"
  cmake --build "$B" -j16 --target gm_gpu_tests >>"$OUT/build.log" 2>&1 || { echo "GPU tests do not build"; grep -E "error" "$OUT/build.log" | head; }
  t=$(( $(left) - 100 )); [ "$t" -gt 20 ] || t=20
  since "GPU tests (${t} s)"
  timeout "$t" "$B/tests/gm_gpu_tests" \
    --gtest_filter='*ReadWrite*:*Stream*:*Transpose*:*Tma*:*Managed*:*Compressible*:*Counter*:*Harness*:*Flush*' 2>&1 |
    grep -E "^\[  (FAILED|PASSED) |^\[ RUN|Failure|error" | grep -v "^\[ RUN" || true
  for e in read_write stream transpose tma_copy; do
    t=$(( $(left) / 4 )); [ "$t" -gt 15 ] || t=15
    since "compute-sanitizer memcheck $e --quick (${t} s)"
    timeout "$t" compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 "$GMLAB" run "$e" --quick \
      --warmup 0 --min-repetitions 1 --max-repetitions 1 --min-time-ms 0 >"/tmp/san-$e.txt" 2>&1
    echo "memcheck $e: exit $? $(grep -E "ERROR SUMMARY" "/tmp/san-$e.txt" | tail -1)"
  done
  # The other users of the shared read, where time is left.
  for e in compressible managed_memory; do
    [ "$(left)" -gt 40 ] || break
    since "compute-sanitizer memcheck $e --quick"
    timeout $(( $(left) - 25 )) compute-sanitizer --tool memcheck --error-exitcode 9 "$GMLAB" run "$e" --quick \
      --warmup 0 --min-repetitions 1 --max-repetitions 1 --min-time-ms 0 >"/tmp/san-$e.txt" 2>&1
    echo "memcheck $e: exit $? $(grep -E "ERROR SUMMARY" "/tmp/san-$e.txt" | tail -1)"
  done
} >"$OUT/checks.txt" 2>&1
cat "$OUT/checks.txt"

# The figures of the issue, from the standard run.
python3 - "$OUT/standard.json" <<'EOF' | tee "$OUT/figures.txt"
import json, sys
doc = json.load(open(sys.argv[1]))
print(doc["device"].get("name"), "| driver", doc["device"].get("driver_version"), "| CUDA", doc["device"].get("runtime_version"))
res = {r["experiment"]["name"]: r for r in doc["results"]}
def fig(e, k):
    return res.get(e, {}).get("summary", {}).get(k)
rows = [("read alone", "read_write", "read_gbs"), ("write alone", "read_write", "write_gbs"),
        ("memset", "read_write", "memset_gbs"), ("copy", "stream", "copy_gbs"), ("triad", "stream", "triad_gbs"),
        ("cudaMemcpy", "stream", "cudaMemcpy_gbs")]
vals = {n: fig(e, k) for n, e, k in rows}
best = max(v for v in vals.values() if v)
for n, e, k in rows:
    v = vals[n]
    print(f"  {n:12s} {e}.{k:16s} {v:8.1f} GB/s  {v / best:.3f} of the best" if v else f"  {n}: not measured")
rw = res.get("read_write", {})
for s in rw.get("series", []):
    if s["name"] == "read":
        p = s["points"][0]
        print("  read's DRAM counter:", p.get("counters", {}).get("dram__bytes_read.sum"), "bytes for", p["bytes"], "|", s.get("variant"))
print("  read by loads in flight:", {k: round(v, 1) for k, v in rw.get("summary", {}).items() if k.startswith("read") and k.endswith("_gbs")})
print("  read over max(copy, triad): %.3f" % (vals["read alone"] / max(vals["copy"], vals["triad"])))
print("  transpose wide_w4_over_copy:", fig("transpose", "wide_w4_over_copy"), "| copy_w4_gbs:", fig("transpose", "copy_w4_gbs"))
print("  tma_copy tma_over_memcpy:", fig("tma_copy", "tma_over_memcpy"), "| tma_gbs", fig("tma_copy", "tma_gbs"),
      "| memcpy_gbs", fig("tma_copy", "memcpy_gbs"), "| stream_copy_gbs", fig("tma_copy", "stream_copy_gbs"))
for e in ("read_write", "tma_copy", "transpose"):
    for n in res.get(e, {}).get("notes", []):
        if n.startswith("DRAM ordering:") or n.startswith("What limits"):
            print(f"  {e} note: {n}")
EOF
grep -E "standard suite:" "$OUT/standard.txt"
since "done (status $status)"
exit $status
