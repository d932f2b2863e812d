#!/usr/bin/env bash
# On a GPU machine, in one go: build for this GPU, run every test (GPU tests
# included), compute-sanitizer memcheck on each experiment, the stream
# benchmark, and the default suite with its JSON/CSV written to $OUT.
# Header-only libraries and GoogleTest may come from .carry/ (see README).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
ARCH=${GM_CUDA_ARCH:-native}
extra=()
[ -d .carry/include ] && extra+=(-DGM_THIRD_PARTY_INCLUDE="$PWD/.carry/include")
[ -d .carry/googletest ] && extra+=(-DGM_GTEST_SOURCE_DIR="$PWD/.carry/googletest")
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$OUT/nvidia-smi.log"
status=0
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$ARCH" "${extra[@]}" >"$OUT/configure.log" || exit 1
cmake --build build-gpu 2>&1 | tail -3
[ -x build-gpu/tools/cli/gmlab ] || exit 1
ctest --test-dir build-gpu --output-on-failure >"$OUT/ctest.log" 2>&1 || status=1
tail -12 "$OUT/ctest.log"
build-gpu/tests/gm_gpu_tests >"$OUT/gpu-tests.log" 2>&1; grep -E "^\[  (PASSED|FAILED) " "$OUT/gpu-tests.log"
GMLAB=build-gpu/tools/cli/gmlab

if [ "${GM_SKIP_SANITIZER:-0}" != 1 ]; then
  quick=(--warmup 0 --min-repetitions 1 --max-repetitions 1 --min-time-ms 0)
  # The L2 flush kernel is checked in the stream run; the sweeps skip it to stay quick.
  for exp in "stream --set array_bytes=8MiB" "offset_copy --set elements=262144 --no-flush-l2" "stride_copy --set elements=65536 --no-flush-l2" "l2_persist --set streaming_bytes=32MiB --set sweep_points=3"; do
    # shellcheck disable=SC2086
    compute-sanitizer --tool memcheck --leak-check full --error-exitcode 99 $GMLAB run $exp "${quick[@]}" \
      >"$OUT/memcheck-${exp%% *}.log" 2>&1 && echo "memcheck ${exp%% *}: clean ($(grep -c 'ERROR SUMMARY: 0 errors' "$OUT/memcheck-${exp%% *}.log") summary)" || { status=1; echo "memcheck ${exp%% *}: FAILED"; tail -30 "$OUT/memcheck-${exp%% *}.log"; }
  done
fi

bench/stream_vs_memcpy.sh "$GMLAB" | tee "$OUT/bench-stream.log" || status=1
if [ "${GM_SKIP_SUITE:-0}" != 1 ]; then
  (cd "$OUT" && "$OLDPWD/$GMLAB" run --json default-suite.json --csv default-suite.csv) >"$OUT/default-suite.txt" || status=1
  grep -E "over_|_gbs " "$OUT/default-suite.txt" | head -40
fi
# At most a few files travel back: the logs go as one archive.
tar -C "$OUT" -czf "$OUT/logs.tar.gz" --remove-files $(cd "$OUT" && ls *.log 2>/dev/null) 2>/dev/null
exit $status
