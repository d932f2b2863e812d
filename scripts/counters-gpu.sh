#!/usr/bin/env bash
# On a GPU machine: builds the core for this GPU, checks that counters are
# available, runs the counter GPU tests, compares gmlab's counters with
# Nsight Compute on the copy kernels, and times a run with counters against
# one without. Writes logs and JSON to $OUT. GM_STAGE=tests|all.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
extra=()
[ -d third/include ] && extra+=(-DGM_THIRD_PARTY_INCLUDE="$PWD/third/include")
[ -d third/googletest ] && extra+=(-DGM_GTEST_SOURCE_DIR="$PWD/third/googletest")
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=${GM_CUDA_ARCH:-90} "${extra[@]}" >"$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
cmake --build build-gpu -j16 2>&1 | grep -E "error|FAILED|warning: " | head -40
[ -x build-gpu/tools/cli/gmlab ] || exit 1
echo "build: $(( $(date +%s) - t0 )) s"
G=build-gpu/tools/cli/gmlab
$G info | tail -4
build-gpu/tests/gm_gpu_tests --gtest_filter='Counters*' 2>&1 | tail -30
quick=(--warmup 0 --min-repetitions 1 --max-repetitions 1 --min-time-ms 0)
sets=(--set offset_copy.offsets=0,1,2,8 --set stride_copy.strides=1,2,4,8,16,32 --set word_sizes=4 --set variants=guide)
$G run offset_copy stride_copy "${sets[@]}" "${quick[@]}" --counters on --json "$OUT/counters.json" > "$OUT/counters.txt" 2>&1
echo "counters run: $?"; grep -E "ctr|counters vs model|not available|counting failed" "$OUT/counters.txt" | head -20
if command -v ncu >/dev/null; then
  ncu --csv --metrics dram__bytes_read.sum,dram__bytes_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum \
      -k regex:copy_guide $G run offset_copy stride_copy "${sets[@]}" "${quick[@]}" --counters off > "$OUT/ncu.csv" 2> "$OUT/ncu.err"
  echo "ncu: $?"
  python3 bench/counters_vs_ncu.py "$OUT/counters.json" "$OUT/ncu.csv" | tee "$OUT/counters_vs_ncu.md"
fi
[ "${GM_STAGE:-tests}" = tests ] && exit 0

# Another profiler attached: --counters on must stop with exit 2 and the reason.
ncu --metrics dram__bytes_read.sum -c 1 $G run offset_copy --set offsets=0 --set word_sizes=4 "${quick[@]}" --counters on >/dev/null 2>"$OUT/under-ncu.err"; echo "exit code $?"; grep -o "not available: .*" "$OUT/under-ncu.err" | head -2

# Overhead: the same experiments with default parameters and settings, counters off, then auto.
suite=(${GM_OVERHEAD_SUITE:-stream offset_copy bank_conflicts transpose local_memory register_pressure shared_alloc matmul_aat})
for mode in off auto; do
  s0=$(date +%s.%N)
  timeout 100 $G run "${suite[@]}" --counters $mode --json "$OUT/suite-$mode.json" > "$OUT/suite-$mode.txt" 2>&1
  echo "suite --counters $mode: exit $? in $(echo "$(date +%s.%N) - $s0" | bc) s"
done
python3 - "$OUT/suite-off.json" "$OUT/suite-auto.json" <<'PY'
import json, sys
off, on = (json.load(open(p)) for p in sys.argv[1:3])
print("| experiment | points | counting s | agreement | median time on/off (median over points) |")
print("|---|---|---|---|---|")
for a, b in zip(off["results"], on["results"]):
    ratios = []
    for sa, sb in zip(a["series"], b["series"]):
        for pa, pb in zip(sa["points"], sb["points"]):
            ratios.append(pb["time_ms"]["median"] / pa["time_ms"]["median"])
    ratios.sort()
    n = sum(len(s["points"]) for s in b["series"])
    c = b.get("counters", {})
    print(f"| {b['experiment']['name']} | {n} | {c.get('seconds', 0):.2f} | {b['summary'].get('model_agreement', '-')} | {ratios[len(ratios)//2]:.3f} |")
    if c.get("errors"): print("   errors:", c["errors"][:2])
PY
# compute-sanitizer memcheck on a counted experiment (counters give way to the sanitizer: auto).
compute-sanitizer --tool memcheck --error-exitcode 9 $G run offset_copy --set elements=262144 --set offsets=0,1,31 --no-flush-l2 "${quick[@]}" > "$OUT/memcheck.txt" 2>&1
echo "memcheck offset_copy: exit $?"; grep -E "ERROR SUMMARY|not available" "$OUT/memcheck.txt" | head -3
timeout 200 ctest --test-dir build-gpu -L gpu --output-on-failure > "$OUT/ctest-gpu.log" 2>&1; echo "ctest -L gpu: exit $?"; tail -5 "$OUT/ctest-gpu.log"
