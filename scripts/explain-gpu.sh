#!/usr/bin/env bash
# gmlab explain on a GPU machine (docs/explain.md, "Checking it on a GPU"):
# builds the example programs, explains each planted pattern and its fixed
# twin, times explain against the program alone and against Nsight Compute on
# the same kernels, explains three outside programs (PyTorch, CuPy, Triton)
# and the bad inputs, and keeps every pass's records as test fixtures.
#   OUT=dir GMLAB=path/to/gmlab scripts/explain-gpu.sh
# bench/explain_gpu_report.py $OUT prints the confusion matrix and the ratios.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/explain-gpu}
GMLAB=${GMLAB:-$ROOT/build/tools/cli/gmlab}
EX=${EXAMPLES_BUILD:-/tmp/gmlab-explain-examples}
mkdir -p "$OUT/json" "$OUT/text" "$OUT/records" "$OUT/ncu" "$OUT/regions"
TIMES=$OUT/timings.tsv
: > "$TIMES"

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"
echo "$gpu" > "$OUT/gpu.txt"
case "$gpu" in
  *H200*) LAB=$ROOT/results/nvidia-h200-standard-suite.json ;;
  *H100*) LAB=$ROOT/results/nvidia-h100-80gb-hbm3-standard-suite.json ;;
  *) LAB= ;;
esac
LABOPT=()
[ -n "$LAB" ] && LABOPT=(--lab-run "$LAB")

cmake -S "$ROOT/examples/explain" -B "$EX" -DCMAKE_CUDA_ARCHITECTURES=native -DCMAKE_BUILD_TYPE=Release > "$OUT/examples-build.log" 2>&1 &&
  cmake --build "$EX" -j 16 >> "$OUT/examples-build.log" 2>&1 || { echo "examples did not build"; tail -20 "$OUT/examples-build.log"; exit 1; }

now() { date +%s.%N; }

# explain NAME -- COMMAND...: times the program alone, then gmlab explain on it.
explain() {
  local name=$1; shift; shift
  local t0 t1 ts t2 rc
  t0=$(now); timeout "${EXPLAIN_TIMEOUT:-120}" "$@" > "$OUT/regions/$name.txt" 2>&1; t1=$(now)
  # The program alone again, for the median of its timed region (the realized gain).
  for ((r = 1; r < ${GAIN_RUNS:-1}; ++r)); do timeout "${EXPLAIN_TIMEOUT:-120}" "$@" >> "$OUT/regions/$name.txt" 2>&1; done
  ts=$(now)  # explain's time starts after the program's extra runs
  timeout "${EXPLAIN_TIMEOUT:-120}" "$GMLAB" explain "${LABOPT[@]}" "${EXTRA[@]}" --records "$OUT/records/$name" --json "$OUT/json/$name.json" -- "$@" \
    > "$OUT/text/$name.txt" 2>&1
  rc=$?; t2=$(now)
  printf '%s\texplain\t%s\t%s\t%s\n' "$name" "$rc" "$(awk "BEGIN{print $t1 - $t0}")" "$(awk "BEGIN{print $t2 - $ts}")" >> "$TIMES"
  echo "== $name: exit $rc"
}

# ncu NAME JSON -- COMMAND...: Nsight Compute's memory tables and source counters on the kernels explain counted.
ncu_on() {
  local name=$1 json=$2; shift 3
  local filter count t0 t1 rc
  filter=$(python3 "$ROOT/bench/explain_gpu_report.py" --ncu-filter "$json") || return
  count=$(python3 "$ROOT/bench/explain_gpu_report.py" --ncu-count "$json")
  t0=$(now)
  timeout 300 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis_Tables --section SourceCounters -k "regex:$filter" -c "$count" "$@" \
    > "$OUT/ncu/$name.txt" 2>&1
  rc=$?; t1=$(now)
  printf '%s\tncu\t%s\t0\t%s\n' "$name" "$rc" "$(awk "BEGIN{print $t1 - $t0}")" >> "$TIMES"
  echo "== ncu $name: exit $rc"
}

EXTRA=()
PATTERNS="strided_access misaligned_access bank_conflicts local_memory low_bandwidth pageable_transfers small_transfers serial_copies managed_faults managed_loop malloc_in_loop l2_eviction graph_bank_conflicts constant_divergent mapped_reread unpitched_rows occupancy_limited shared_through_registers staged_peer"
# The default (one run: trace and count together), then --passes 2 (trace, then count).
# Each program alone GAIN_RUNS times first: planted less fixed, as medians of
# their timed regions, is the gain the fix realised (bench/explain_gpu_report.py).
GAIN_RUNS=${EXPLAIN_GAIN_RUNS:-5}
for p in $PATTERNS; do
  explain "$p-planted" -- "$EX/$p"
  explain "$p-fixed" -- "$EX/$p" --fixed
done
GAIN_RUNS=1
EXTRA=(--passes 2)
# EXPLAIN_SHORT=1 leaves out the second passes and the outside programs
# (scripts/explain-sites-gpu.sh explains those at their lines).
SHORT=${EXPLAIN_SHORT:-0}
[ "$SHORT" = 1 ] || for p in $PATTERNS; do
  explain "$p-planted-p2" -- "$EX/$p"
  explain "$p-fixed-p2" -- "$EX/$p" --fixed
done
EXTRA=(--launch-count 2)

# Outside programs, as they are.
export PYTHONUNBUFFERED=1
[ "$SHORT" = 1 ] || for s in torch_training_step cupy_rawkernel triton_softmax; do
  explain "$s" -- python3 "$ROOT/examples/explain/outside/$s.py"
done

# Bad input and robustness: each line prints the exit code gmlab explain gave.
bad() {
  local name=$1; shift
  timeout 120 "$@" > "$OUT/text/bad-$name.txt" 2>&1
  local rc=$?
  printf '%s\tbad\t%s\t0\t0\n' "$name" "$rc" >> "$TIMES"
  echo "== bad $name: exit $rc"
}
printf 'print("no interpreter line")\n' > /tmp/no_shebang.py && chmod +x /tmp/no_shebang.py
bad not-found "$GMLAB" explain -- /nonexistent/program
bad not-executable "$GMLAB" explain -- "$ROOT/README.md"
bad no-interpreter "$GMLAB" explain -- /tmp/no_shebang.py
bad not-cuda "$GMLAB" explain -- /bin/true
bad no-kernel "$GMLAB" explain -- "$EX/no_kernel"
bad kernels-0 "$GMLAB" explain --kernels 0 -- "$EX/strided_access"
bad regex-nothing "$GMLAB" explain --kernel-regex no_such_kernel -- "$EX/strided_access"
bad exit-3 "$GMLAB" explain --json "$OUT/json/exit_status.json" -- "$EX/exit_status"
bad crash "$GMLAB" explain --json "$OUT/json/exit_crash.json" -- "$EX/exit_status" --crash
bad two-processes "$GMLAB" explain --json "$OUT/json/two_processes.json" -- bash -c "$EX/strided_access && $EX/bank_conflicts"

# Nsight Compute on the same programs and kernels, last: the slowest part.
for p in ${NCU_PATTERNS:-strided_access misaligned_access bank_conflicts local_memory low_bandwidth l2_eviction}; do
  ncu_on "$p-planted" "$OUT/json/$p-planted.json" -- "$EX/$p"
done
EXTRA=(--passes 2 --launch-count 2)
[ "$SHORT" = 1 ] || explain torch_training_step-p2 -- python3 "$ROOT/examples/explain/outside/torch_training_step.py"
[ "$SHORT" = 1 ] || ncu_on torch_training_step "$OUT/json/torch_training_step.json" -- python3 "$ROOT/examples/explain/outside/torch_training_step.py"

tar -C "$OUT" -czf "$OUT/records.tar.gz" records
tar -C "$OUT" -czf "$OUT/documents.tar.gz" json text ncu regions timings.tsv
python3 "$ROOT/bench/explain_gpu_report.py" "$OUT" | tee "$OUT/report.txt"
