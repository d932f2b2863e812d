#!/usr/bin/env bash
# On a GPU machine, in one go and within a time budget: builds the core for
# this GPU, then
#   1. the counter GPU tests (counters against the models, every offset, stride
#      and word size of the copy kernels, every stride of bank_conflicts),
#   2. gmlab's counters against Nsight Compute (ncu) on the same copy kernels
#      (bench/counters_vs_ncu.py: DRAM bytes within 2 %),
#   3. the standard suite with --counters off and with --counters auto (the
#      overhead of counting; both documents come back for the report),
#   4. --counters on under another profiler (must exit 2 with the reason) and
#      --counters auto there (must complete, saying why counters are missing),
#   5. compute-sanitizer memcheck on a run with --counters auto (the sanitizer
#      is itself a CUPTI client, so there the run says why counters are missing),
#   6. the remaining GPU tests (ctest -L gpu), with the time that is left.
# At most eight files come back from $OUT: log lines go to stdout, the rest
# to $OUT (and the small logs into $OUT/logs.tar.gz).
#
#   OUT=dir GM_BUDGET_S=340 scripts/counters-gpu.sh
#
# Header-only libraries and GoogleTest may come from third/ or .carry/
# (include/ with nlohmann/ and CLI/, googletest/). The build folder is
# $GM_GPU_BUILD, outside the source tree.
set -uo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
OUT=${OUT:-$PWD/gpu-out}
BUDGET=${GM_BUDGET_S:-340}
B=${GM_GPU_BUILD:-/tmp/gm-counters-build}
L=$(mktemp -d)  # the small logs, packed at the end
mkdir -p "$OUT"
left() { echo $((BUDGET - ($(date +%s) - start))); }
stage() { echo; echo "=== $1 (at $(($(date +%s) - start)) s, $(left) s left)"; }
pack() { tar -czf "$OUT/logs.tar.gz" -C "$L" . 2>/dev/null; }
trap pack EXIT
extra=()
for d in third .carry; do
  [ -d $d/include ] && extra+=(-DGM_THIRD_PARTY_INCLUDE="$PWD/$d/include")
  [ -d $d/googletest ] && extra+=(-DGM_GTEST_SOURCE_DIR="$PWD/$d/googletest")
done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
nvcc --version | tail -1

stage build
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=${GM_CUDA_ARCH:-90} "${extra[@]}" >"$L/configure.log" 2>&1 ||
  { tail -30 "$L/configure.log"; exit 1; }
if ! cmake --build "$B" -j16 >"$L/build.log" 2>&1; then
  grep -E "error|FAILED" "$L/build.log" | head -30
  cmake --build "$B" -j16 --target gmlab-cli gm_gpu_tests >>"$L/build.log" 2>&1
fi
[ -x "$B/tools/cli/gmlab" ] || { echo "no gmlab built"; exit 1; }
G=$B/tools/cli/gmlab
$G info > "$L/info.txt" 2>&1; echo "gmlab info: exit $?"; grep -iA3 "counters" "$L/info.txt" | head -8

stage "1. counter GPU tests"
timeout $(( $(left) > 120 ? 120 : $(left) )) "$B/tests/gm_gpu_tests" --gtest_filter='Counters*' > "$L/gtest-counters.log" 2>&1
echo "gm_gpu_tests Counters*: exit $?"; grep -E "^\[  (  OK|FAILED|SKIPPED) |Failure|Expected|Which is|  Actual|counters are not" "$L/gtest-counters.log" | head -60

stage "2. counters against Nsight Compute"
quick=(--warmup 0 --min-repetitions 1 --max-repetitions 1 --min-time-ms 0)
sets=(--set offset_copy.offsets=0,1,2,8,31 --set stride_copy.strides=1,2,4,8,16,32 --set word_sizes=4,16 --set variants=guide)
$G run offset_copy stride_copy "${sets[@]}" "${quick[@]}" --counters on --json "$OUT/counters.json" > "$L/counters.txt" 2>&1
echo "counted run: exit $?"
if command -v ncu >/dev/null; then
  timeout $(( $(left) > 150 ? 90 : $(left) / 3 )) \
    ncu --csv --metrics dram__bytes_read.sum,dram__bytes_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum \
      -k regex:copy_guide "$G" run offset_copy stride_copy "${sets[@]}" "${quick[@]}" --counters off > "$OUT/ncu.csv" 2> "$L/ncu.err"
  echo "ncu: exit $?"
  python3 bench/counters_vs_ncu.py "$OUT/counters.json" "$OUT/ncu.csv" | tee "$OUT/counters_vs_ncu.md"
else
  echo "ncu not found"
fi

stage "3. the standard suite, counters off and auto"
for mode in off auto; do
  s0=$(date +%s.%N)
  timeout $(( $(left) > 200 ? 150 : $(left) / 2 )) "$G" run --counters $mode --json "$OUT/suite-$mode.json" > "$L/suite-$mode.txt" 2>&1
  echo "standard suite --counters $mode: exit $? in $(python3 -c "import time; print(round(time.time() - $s0, 1))") s"
done
[ -f "$OUT/suite-auto.json" ] && [ -f "$OUT/suite-off.json" ] && python3 bench/counters_overhead.py "$OUT/suite-off.json" "$OUT/suite-auto.json"

stage "4. another profiler attached"
if command -v ncu >/dev/null && [ "$(left)" -gt 60 ]; then
  timeout 40 ncu --metrics dram__bytes_read.sum -c 1 "$G" run offset_copy --set offsets=0 --set word_sizes=4 "${quick[@]}" --counters on \
    > "$L/under-ncu-on.txt" 2>&1
  echo "--counters on under ncu: exit $? (2 expected)"; grep -o "not available: .*" "$L/under-ncu-on.txt" | head -2
  timeout 40 ncu --metrics dram__bytes_read.sum -c 1 "$G" run offset_copy --set offsets=0,1 --set word_sizes=4 "${quick[@]}" \
    --counters auto --json "$L/under-ncu-auto.json" > "$L/under-ncu-auto.txt" 2>&1
  echo "--counters auto under ncu: exit $? (0 expected)"
  python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results'][0]['counters']; print('counters:', json.dumps(r)[:400])" "$L/under-ncu-auto.json"
fi

stage "5. compute-sanitizer memcheck, --counters auto"
if [ "$(left)" -gt 50 ]; then
  timeout 45 compute-sanitizer --tool memcheck --error-exitcode 9 "$G" run offset_copy --set elements=262144 --set offsets=0,1,31 \
    --set word_sizes=4 "${quick[@]}" --counters auto --json "$L/memcheck.json" > "$L/memcheck.txt" 2>&1
  echo "memcheck offset_copy: exit $?"; grep -E "ERROR SUMMARY" "$L/memcheck.txt" | head -2
  python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results'][0]['counters']; print('counters:', json.dumps(r)[:300])" "$L/memcheck.json" 2>/dev/null
fi

stage "6. the GPU tests"
# The counter tests ran above; here every other GPU test.
if [ "$(left)" -gt 20 ]; then
  timeout $(( $(left) - 10 )) "$B/tests/gm_gpu_tests" --gtest_filter='-Counters*' > "$L/gtest-gpu.log" 2>&1
  echo "gm_gpu_tests (the others): exit $?"; grep -E "^\[  (FAILED|PASSED) |tests ran" "$L/gtest-gpu.log" | head -20
fi
if [ "$(left)" -gt 20 ]; then
  timeout $(( $(left) - 5 )) ctest --test-dir "$B" -L gpu -E '^gpu_tests$' --output-on-failure > "$L/ctest-gpu.log" 2>&1
  echo "ctest -L gpu -E gpu_tests: exit $?"; grep -E "tests passed|Failed|\*\*\*|Not Run|Timeout" "$L/ctest-gpu.log" | head -20
fi
echo "total: $(($(date +%s) - start)) s"
