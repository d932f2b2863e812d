#!/usr/bin/env bash
# On a GPU machine, in one go: build for this GPU, run every test (GPU tests
# included), compute-sanitizer memcheck on each experiment, the stream
# benchmark, and the default suite with its JSON/CSV written to $OUT.
# Header-only libraries and GoogleTest may come from .carry/ (see README).
#   bash scripts/gpu-check.sh lone: only gmlab check on one GPU, idle and beside
#   bench/gpu_load.cu, without a server (scripts/lone-gpu-check.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
[ "${1:-}" = lone ] && exec bash scripts/lone-gpu-check.sh
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
ARCH=${GM_CUDA_ARCH:-native}
extra=()
[ -d .carry/include ] && extra+=(-DGM_THIRD_PARTY_INCLUDE="$PWD/.carry/include")
[ -d .carry/googletest ] && extra+=(-DGM_GTEST_SOURCE_DIR="$PWD/.carry/googletest")
[ -f .carry/chart.min.js ] && extra+=(-DGM_CHARTJS="$PWD/.carry/chart.min.js")
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$OUT/nvidia-smi.log"
status=0
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$ARCH" "${extra[@]}" >"$OUT/configure.log" || exit 1
cmake --build build-gpu 2>&1 | tail -3
[ -x build-gpu/tools/cli/gmlab ] || exit 1
ctest --test-dir build-gpu --output-on-failure >"$OUT/ctest.log" 2>&1 || status=1
tail -12 "$OUT/ctest.log"
build-gpu/tests/gm_gpu_tests >"$OUT/gpu-tests.log" 2>&1; grep -E "^\[  (PASSED|FAILED) " "$OUT/gpu-tests.log"
build-gpu/tests/gm_gpu_internal_tests >"$OUT/gpu-internal-tests.log" 2>&1; grep -E "^\[  (PASSED|FAILED) " "$OUT/gpu-internal-tests.log"
GMLAB=build-gpu/tools/cli/gmlab

if [ "${GM_SKIP_SANITIZER:-0}" != 1 ]; then
  quick=(--warmup 0 --min-repetitions 1 --max-repetitions 1 --min-time-ms 0)
  # tool|experiment and small parameters. The L2 flush kernel is checked in the
  # stream run; the sweeps skip it to stay quick.
  checks=(
    "memcheck|stream --set array_bytes=8MiB"
    "memcheck|read_write --set array_bytes=8MiB --no-flush-l2"
    "memcheck|offset_copy --set elements=262144 --no-flush-l2"
    "memcheck|stride_copy --set elements=65536 --no-flush-l2"
    "memcheck|l2_persist --set streaming_bytes=32MiB --set sweep_points=3"
    "memcheck|bank_conflicts --set iterations=16 --set blocks_per_sm=1 --no-flush-l2"
    "memcheck|matmul_ab --set m=256 --set n=96 --no-flush-l2"
    "memcheck|matmul_aat --set m=256 --no-flush-l2"
    "memcheck|transpose --set rows=300 --set cols=260 --no-flush-l2"
    "memcheck|shared_alloc --set elements=65536 --no-flush-l2"
    "memcheck|async_copy --set copy_counts=1,4,7 --no-flush-l2"
    "memcheck|tma_copy --set array_bytes=4MiB --set sizes=1024,16384 --set stages=1,3"
    "racecheck|tma_copy --set array_bytes=4MiB --set sizes=1024,16384 --set stages=1,3"
    "memcheck|cluster_shared --set cluster_sizes=1,2,4 --set hops=64 --set rounds=2"
    # Racecheck on small exchanges (the default rounds take minutes under it): 1-2 s each on an H100.
    "racecheck|cluster_shared --set cluster_sizes=2,4 --set hops=64 --set rounds=1 --set slice_bytes=1024"
    "memcheck|constant_broadcast --set k=1,7,32 --set iterations=64 --no-flush-l2"
    "memcheck|stencil --set elements=100003 --no-flush-l2"
    "memcheck|texture --set width=300 --set height=200 --no-flush-l2"
    "racecheck|async_copy --set copy_counts=1,4,7 --no-flush-l2"
    "racecheck|stencil --set elements=100003 --no-flush-l2"
    "racecheck|bank_conflicts --set iterations=16 --set blocks_per_sm=1 --no-flush-l2"
    "racecheck|matmul_ab --set m=256 --set n=96 --no-flush-l2"
    "racecheck|matmul_aat --set m=256 --no-flush-l2"
    "racecheck|transpose --set rows=300 --set cols=260 --no-flush-l2"
    "racecheck|transpose --set rows=256 --set cols=512 --set element_sizes=4 --no-flush-l2"
    "racecheck|shared_alloc --set elements=65536 --no-flush-l2"
    "memcheck|transfer --set min_size=1000 --set max_size=1MiB --no-flush-l2"
    "memcheck|transfer_batching --set counts=1,16 --set chunk_sizes=4096 --no-flush-l2"
    "memcheck|zero_copy --set bytes=1MiB --no-flush-l2"
    "memcheck|copy_overlap --set bytes=4MiB --set streams=1,4 --set iterations=16 --no-flush-l2"
    "memcheck|peer --set bytes=1MiB --set latency_copies=4 --no-flush-l2"
    "memcheck|latency --set min_bytes=4KiB --set max_bytes=1MiB --set points_per_octave=1 --set hops=64"
    "memcheck|memory_spaces --set hops=64"
    "racecheck|memory_spaces --set hops=64"
    "memcheck|local_memory --set threads=4096 --set rounds=2 --no-flush-l2"
    "memcheck|register_pressure --set threads=4096 --set iterations=2 --no-flush-l2"
    "memcheck|alignment --set records=10007 --set offsets=1,2,4,8,12 --no-flush-l2"
    "memcheck|pitch_2d --set widths=1,33,1025,32769 --set height=9 --no-flush-l2"
    "memcheck|managed_memory --set max_size=256KiB --set points_per_octave=0.5 --set pingpong_pages=1,4 --counters off --no-flush-l2"
    "memcheck|allocation --set max_size=4MiB --set host_max_size=1MiB --set points_per_octave=0.5 --no-flush-l2"
    "memcheck|compressible --set bytes=8MiB --no-flush-l2"
    "memcheck|l2_partitions --set lines=32 --set sm_step=32 --set region_bytes=8MiB --set sweep_points=1 --set sweep_hops=64"
    "racecheck|l2_partitions --set lines=32 --set sm_step=64 --set region_bytes=8MiB --set sweep_points=0"
    "memcheck|cache_hints --set reused_over_l2=0.05 --set stream_over_l2=0.2 --set strided_bytes=2MiB --set strides=64,256 --no-flush-l2"
    "racecheck|cache_hints --set reused_over_l2=0.05 --set stream_over_l2=0.2 --set strided_bytes=2MiB --set strides=256 --set hints=default,evict_first_last --set prefetch=plain,prefetch_l2 --no-flush-l2"
    "memcheck|carveout --set carveouts=0,100 --set working_sets_kib=16,48 --set reads_per_sm=1MiB --no-flush-l2"
    "racecheck|carveout --set carveouts=100 --set working_sets_kib=16 --set reads_per_sm=1MiB --no-flush-l2"
  )
  for check in "${checks[@]}"; do
    tool=${check%%|*}; exp=${check#*|}; name="$tool-${exp%% *}"
    # GM_ONLY="exp1 exp2": sanitize and benchmark only these experiments' families.
    if [ -n "${GM_ONLY:-}" ] && [[ " $GM_ONLY " != *" ${exp%% *} "* ]]; then continue; fi
    extra=(); [ "$tool" = memcheck ] && extra=(--leak-check full)
    # shellcheck disable=SC2086
    if compute-sanitizer --tool "$tool" "${extra[@]}" --error-exitcode 99 $GMLAB run $exp "${quick[@]}" >"$OUT/$name.log" 2>&1; then
      echo "$tool ${exp%% *}: clean ($(grep -h 'ERROR SUMMARY' "$OUT/$name.log" | tail -1))"
    else
      status=1; echo "$tool ${exp%% *}: FAILED"; tail -30 "$OUT/$name.log"
    fi
  done
fi

# bench name|experiments it covers (for GM_ONLY)
benches=(
  "stream_vs_memcpy|stream"
  "shared_memory|transpose matmul_ab matmul_aat bank_conflicts"
  "memory_spaces|async_copy constant_broadcast stencil texture"
  "transfers|transfer transfer_batching copy_overlap"
  "latency|latency memory_spaces"
  "local_and_alignment|local_memory register_pressure alignment pitch_2d"
  "off_chip|managed_memory allocation compressible"
  "onchip_controls|l2_partitions cache_hints carveout"
)
for b in "${benches[@]}"; do
  script=${b%%|*}; covers=${b#*|}; run=1
  if [ -n "${GM_ONLY:-}" ]; then
    run=0; for e in $covers; do [[ " $GM_ONLY " == *" $e "* ]] && run=1; done
  fi
  [ $run = 1 ] || continue
  bench/$script.sh "$GMLAB" | tee "$OUT/bench-$script.log" || status=1
done
if [ "${GM_SKIP_SUITE:-0}" != 1 ]; then
  html=(); [ -f .carry/chart.min.js ] && html=(--html default-suite.html)
  (cd "$OUT" && "$OLDPWD/$GMLAB" run --json default-suite.json --csv default-suite.csv "${html[@]}") >"$OUT/default-suite.txt" || status=1
  grep -E "over_|_gbs " "$OUT/default-suite.txt" | head -40
fi
# At most a few files travel back: the logs go as one archive.
tar -C "$OUT" -czf "$OUT/logs.tar.gz" --remove-files $(cd "$OUT" && ls *.log 2>/dev/null) 2>/dev/null
exit $status
