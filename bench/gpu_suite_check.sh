#!/usr/bin/env bash
# On a GPU machine, in one go and within a time budget: build the core, run
# `gmlab run --quick`, bench/suite_time.py (the standard suite, timed per
# experiment, against a long run), the GPU tests, and compute-sanitizer
# memcheck on the experiments whose launches the standard suite changed.
# Everything it measures goes to $OUT.
#
#   OUT=dir GM_BUDGET_S=460 bench/gpu_suite_check.sh
#
# Header-only libraries and GoogleTest may come from .carry/ (as for
# scripts/gpu-check.sh). The build folder is $GM_GPU_BUILD (outside the
# source tree, so that a second run on the same machine rebuilds only what
# changed).
set -uo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
OUT=${OUT:-$PWD/gpu-out}
BUDGET=${GM_BUDGET_S:-460}
B=${GM_GPU_BUILD:-/tmp/gm-suite-build}
mkdir -p "$OUT"
left() { echo $((BUDGET - ($(date +%s) - start))); }
extra=()
[ -d .carry/include ] && extra+=(-DGM_THIRD_PARTY_INCLUDE="$PWD/.carry/include")
[ -d .carry/googletest ] && extra+=(-DGM_GTEST_SOURCE_DIR="$PWD/.carry/googletest")
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,pcie.link.gen.current,pcie.link.width.current --format=csv
status=0
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "${extra[@]}" >"$OUT/configure.log" 2>&1 ||
  { tail -20 "$OUT/configure.log"; exit 1; }
# A test that does not build must not cost the measurement: then the CLI and the GPU tests alone.
if ! cmake --build "$B" -j16 >"$OUT/build.log" 2>&1; then
  status=1; grep -E "error|FAILED" "$OUT/build.log" | head -30
  cmake --build "$B" -j16 --target gmlab-cli gm_gpu_tests gm_gpu_internal_tests >>"$OUT/build.log" 2>&1
fi
[ -x "$B/tools/cli/gmlab" ] || { echo "no gmlab built"; exit 1; }
echo "build done after $(($(date +%s) - start)) s"
GMLAB=$B/tools/cli/gmlab

# 1. The quick run: a smoke check of every experiment.
mkdir -p "$OUT/quick"
t0=$(date +%s%N)
(cd "$OUT/quick" && timeout 60 "$GMLAB" run --quick --json quick.json >quick.txt 2>&1) || { status=1; echo "quick run FAILED"; tail -20 "$OUT/quick/quick.txt"; }
t1=$(date +%s%N)
echo "quick run: $(( (t1 - t0) / 1000000 )) ms wall; $(grep -c '^== ' "$OUT/quick/quick.txt") experiments printed"

# 2. The standard suite against a long run. The long run gets what is left
# after keeping 90 s for the tests and the sanitizer.
long_budget=$(( $(left) - 90 ))
echo "suite_time.py gets ${long_budget} s"
timeout "$long_budget" python3 bench/suite_time.py --gmlab "$GMLAB" --out "$OUT/bench" --long-groups 6 |
  tee "$OUT/suite_time.txt" || status=1
# A run cut off by the budget: compare with the long groups that finished.
if [ ! -f "$OUT/bench/suite_time.json" ] && [ -f "$OUT/bench/standard.json" ]; then
  ls "$OUT"/bench/long-*.json >/dev/null 2>&1 &&
    python3 bench/suite_time.py --gmlab "$GMLAB" --out "$OUT/bench-partial" --long-json "$OUT"/bench/long-*.json |
      tail -40 | tee "$OUT/suite_time_partial.txt"
fi

# 3. The GPU tests.
t=$(( $(left) - 35 )); [ "$t" -gt 10 ] || t=10
echo "ctest -L gpu gets ${t} s"
timeout "$t" ctest --test-dir "$B" -L gpu --output-on-failure >"$OUT/ctest-gpu.log" 2>&1 || status=1
tail -8 "$OUT/ctest-gpu.log"

# 4. memcheck where the launches changed: async_copy's clock buffers, the
# pinned verification downloads of offset_copy, stride_copy and l2_persist.
quick=(--warmup 1 --min-repetitions 1 --max-repetitions 2 --min-time-ms 0)
for exp in "async_copy --set copy_counts=1,4,7" "stride_copy --set elements=65536 --set strides=1,2,32" \
           "offset_copy --set elements=262144 --set offsets=0,1" "l2_persist --set streaming_bytes=32MiB --set sweep_points=2"; do
  [ "$(left)" -gt 5 ] || { echo "no time left for memcheck ${exp%% *}"; status=1; continue; }
  name=memcheck-${exp%% *}
  # shellcheck disable=SC2086
  if timeout "$(left)" compute-sanitizer --tool memcheck --leak-check full --error-exitcode 99 "$GMLAB" run $exp "${quick[@]}" \
      >"$OUT/$name.log" 2>&1; then
    echo "memcheck ${exp%% *}: clean ($(grep -h 'ERROR SUMMARY' "$OUT/$name.log" | tail -1))"
  else
    status=1; echo "memcheck ${exp%% *}: FAILED"; tail -20 "$OUT/$name.log"
  fi
done
echo "total $(($(date +%s) - start)) s, status $status"
# At most a few files travel back: the documents and the logs go as archives.
(cd "$OUT" && tar -czf logs.tar.gz --remove-files ./*.log 2>/dev/null)
(cd "$OUT" && tar -czf documents.tar.gz --remove-files quick bench bench-partial 2>/dev/null)
ls -la "$OUT"
exit $status
