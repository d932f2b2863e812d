#!/usr/bin/env bash
# gmlab's counters against Nsight Compute on the same copy kernels (GPU test):
# DRAM bytes within 2 %, sectors per request equal (bench/counters_vs_ncu.py).
# Skipped where there is no device, no ncu, or counters are not permitted.
#   counters_vs_ncu.sh GMLAB SOURCE_DIR WORK_DIR
set -uo pipefail
gmlab=$1 src=$2 work=$3
mkdir -p "$work"
command -v ncu >/dev/null || { echo "SKIPPED: ncu (Nsight Compute) is not on PATH"; exit 0; }
quick=(--warmup 0 --min-repetitions 1 --max-repetitions 1 --min-time-ms 0)
sets=(--set offset_copy.offsets=0,1,31 --set stride_copy.strides=1,2,32 --set word_sizes=4,16 --set variants=guide)
"$gmlab" run offset_copy stride_copy "${sets[@]}" "${quick[@]}" --counters on --json "$work/counters.json" > "$work/counted.txt" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
  if grep -q "no CUDA device" "$work/counted.txt"; then echo "SKIPPED: no CUDA device"; exit 0; fi
  if grep -q "counters are not available" "$work/counted.txt"; then echo "SKIPPED: $(grep -o 'not available: .*' "$work/counted.txt")"; exit 0; fi
  cat "$work/counted.txt"; exit 1
fi
ncu --csv --metrics dram__bytes_read.sum,dram__bytes_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum \
  -k regex:copy_guide "$gmlab" run offset_copy stride_copy "${sets[@]}" "${quick[@]}" --counters off > "$work/ncu.csv" 2> "$work/ncu.err" ||
  { tail -20 "$work/ncu.err"; exit 1; }
python3 "$src/bench/counters_vs_ncu.py" "$work/counters.json" "$work/ncu.csv"
