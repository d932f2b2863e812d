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
