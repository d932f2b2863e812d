#!/usr/bin/env bash
# On a GPU machine, what a change to the kernels, the check or the build must
# show there, in two calls of under ten minutes each (the build folder is
# kept between them):
#   suite   build the CLI and the GPU tests for the GPU present (every core),
#           the read probe, then the standard suite alone on the GPU, timed,
#           with the moment its first table appeared
#   checks  the run.sh path timed from a fresh copy with two compile jobs
#           (GM_CCACHE=0, no tests; beside the GPU work, on two of the cores),
#           gmlab check on the lone GPU idle and loaded (scripts/lone-gpu-check.sh),
#           compute-sanitizer memcheck on the experiments named in
#           GM_SANITIZE, and ctest -L gpu in what is left of GM_BUDGET_S
# Everything lands in $OUT (at most 8 files). Header-only libraries,
# GoogleTest and Chart.js may come from .carry/ as for scripts/gpu-check.sh.
#
#   OUT=dir bash scripts/gpu-full-run.sh suite|checks
set -uo pipefail
cd "$(dirname "$0")/.."
phase=${1:?usage: gpu-full-run.sh suite|checks}
OUT=$(realpath -m "${OUT:-$PWD/gpu-out}")
B=${GM_GPU_BUILD:-/tmp/gm-full-build}
mkdir -p "$OUT"
SECONDS=0
since() { echo "[$SECONDS s] $*"; }
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }
command -v nvcc >/dev/null || export PATH="/usr/local/cuda/bin:$PATH"
extra=()
[ -d .carry/include ] && extra+=(-DGM_THIRD_PARTY_INCLUDE="$PWD/.carry/include")
[ -d .carry/googletest ] && extra+=(-DGM_GTEST_SOURCE_DIR="$PWD/.carry/googletest")
[ -f .carry/chart.min.js ] && extra+=(-DGM_CHARTJS="$PWD/.carry/chart.min.js")
GMLAB=$B/tools/cli/gmlab
NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]\{1,\}/-/g; s/-$//')

build_all() {
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=native -DGM_BUILD_TESTS=ON \
    "${extra[@]}" >"$OUT/build.log" 2>&1 &&
    cmake --build "$B" -j"$(nproc)" --target gmlab-cli gm_gpu_tests gm_gpu_internal_tests >>"$OUT/build.log" 2>&1
}

if [ "$phase" = suite ]; then
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,temperature.gpu,power.draw --format=csv | tee "$OUT/nvidia-smi.txt"
  since "build (every core)"
  build_all || { grep -E "error|FAILED" "$OUT/build.log" | head -30; exit 1; }
  since "built"
  if [ "${GM_PROBE_S:-45}" -gt 0 ]; then
    nvcc -O3 -std=c++17 -arch=native -o /tmp/read_probe bench/read_probe.cu >"$OUT/probe.txt" 2>&1 &&
      timeout "${GM_PROBE_S:-45}" /tmp/read_probe >>"$OUT/probe.txt" 2>&1
    since "read probe done"
  fi
  # The standard suite alone on the GPU; each line stamped with the seconds
  # since the command started, so the first table's moment is on record.
  t0=$(date +%s.%N)
  "$GMLAB" run --json "$OUT/$NAME.json" --csv "$OUT/$NAME.csv" 2>&1 |
    while IFS= read -r line; do printf '%s\t%s\n' "$(elapsed "$t0")" "$line"; done >"$OUT/stamped.txt"
  cut -f2- "$OUT/stamped.txt" >"$OUT/$NAME.txt"
  first=$(grep -m1 -P '\t    -{4,}' "$OUT/stamped.txt" | cut -f1)
  echo "standard suite: $(tail -1 "$OUT/stamped.txt" | cut -f1) s wall; first table row after ${first:-?} s" | tee -a "$OUT/probe.txt"
  since "suite done"
  tail -3 "$OUT/$NAME.txt"
  exit 0
fi

# checks
[ -x "$GMLAB" ] || { since "no build kept: building again"; build_all || exit 1; }
since "the run.sh path from a fresh copy, two jobs, in the background"
rm -rf /tmp/fresh && mkdir /tmp/fresh && cp -r $(ls -A | grep -v -e '^\.carry$' -e '^build' -e '^\.git$') /tmp/fresh/
(
  cd /tmp/fresh || exit 1
  s0=$(date +%s.%N)
  probe=$(scripts/gpu-probe.sh); prc=$?
  s1=$(date +%s.%N)
  GM_CCACHE=0 GM_BUILD_JOBS=2 GM_BUILD_TARGETS=gmlab-cli scripts/build.sh -DCMAKE_CUDA_ARCHITECTURES=native \
    -DGM_BUILD_TESTS=OFF "${extra[@]}" >/tmp/fresh-build.log 2>&1; brc=$?
  s2=$(date +%s.%N)
  echo "gpu-probe: exit $prc in $(awk -v a="$s0" -v b="$s1" 'BEGIN { printf "%.2f", b - a }') s: $probe"
  echo "run.sh's build (gmlab-cli, native, 2 jobs, no cache): exit $brc in $(awk -v a="$s1" -v b="$s2" 'BEGIN { printf "%.1f", b - a }') s"
) >"$OUT/fresh-run.txt" 2>&1 &
fresh=$!
since "gmlab check on the lone GPU (the fresh build busy on two of the cores)"
OUT=/tmp/lone GM_BUILD_DIR=$B bash scripts/lone-gpu-check.sh >/dev/null 2>&1
cp /tmp/lone/lone-gpu-check.tar.gz /tmp/lone/summary.txt "$OUT/" 2>/dev/null
cat /tmp/lone/summary.txt
for e in ${GM_SANITIZE:-read_write stream transpose tma_copy compressible managed_memory}; do
  since "memcheck $e --quick"
  timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 "$GMLAB" run "$e" --quick \
    --warmup 0 --min-repetitions 1 --max-repetitions 1 --min-time-ms 0 >/tmp/san-$e.txt 2>&1
  echo "memcheck $e: exit $? $(grep -E 'ERROR SUMMARY' /tmp/san-$e.txt | tail -1)" | tee -a "$OUT/sanitizer.txt"
done
# The GPU tests with the time left of GM_BUDGET_S (the lone check rebuilt $B without tests: on again).
cmake -S . -B "$B" -DGM_BUILD_TESTS=ON >/dev/null 2>&1 && cmake --build "$B" -j"$(nproc)" --target gm_gpu_tests gm_gpu_internal_tests >/dev/null 2>&1
left=$(( ${GM_BUDGET_S:-560} - SECONDS - 15 )); [ "$left" -gt 30 ] || left=30
since "ctest -L gpu (${left} s at most)"
timeout "$left" ctest --test-dir "$B" -L gpu --output-on-failure -j1 >"$OUT/ctest-gpu.log" 2>&1
echo "ctest -L gpu: exit $?"; grep -E "tests passed|Failed|Passed|Skipped|Not Run|Timeout" "$OUT/ctest-gpu.log" | tail -8
since "waiting for the fresh build"
wait "$fresh"; cat "$OUT/fresh-run.txt"
since "done"
