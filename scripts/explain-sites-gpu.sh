#!/usr/bin/env bash
# gmlab explain where ML code lives, on a GPU machine (docs/explain.md, "Call
# sites"): builds gmlab (the CLI and the injection library, for the GPU
# present) and the example programs, then explains the PyTorch training step,
# torch.compile (default and reduce-overhead), Triton, CuPy and JAX programs
# and the CUDA-graph pair, each timed against the program alone; Nsight Compute
# on the training step's counted kernels last. Every record is kept (the
# fixtures CI explains again).
#   OUT=dir [GM_SITES_ONLY="name ..."] bash scripts/explain-sites-gpu.sh
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$(realpath -m "${OUT:-/tmp/explain-sites}")
B=${GM_GPU_BUILD:-/tmp/gm-sites-build}
EX=/tmp/gmlab-explain-examples
mkdir -p "$OUT/json" "$OUT/text" "$OUT/records"
SECONDS=0
command -v nvcc >/dev/null || export PATH="/usr/local/cuda/bin:$PATH"
extra=()
[ -d .carry/include ] && extra+=(-DGM_THIRD_PARTY_INCLUDE="$PWD/.carry/include")
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
{ cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=native "${extra[@]}" &&
  cmake --build "$B" -j"$(nproc)" --target gmlab-cli; } >"$OUT/build.log" 2>&1 || { grep -E "error|FAILED" "$OUT/build.log" | head -20; exit 1; }
{ cmake -S examples/explain -B "$EX" -DCMAKE_CUDA_ARCHITECTURES=native -DCMAKE_BUILD_TYPE=Release &&
  cmake --build "$EX" -j"$(nproc)"; } >>"$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
echo "[$SECONDS s] built"
GMLAB=$B/tools/cli/gmlab
gpu=$(cat "$OUT/gpu.txt")
case "$gpu" in *H200*) LAB=results/nvidia-h200-standard-suite.json ;; *H100*) LAB=results/nvidia-h100-80gb-hbm3-standard-suite.json ;; *) LAB= ;; esac
LABOPT=()
[ -n "$LAB" ] && LABOPT=(--lab-run "$ROOT/$LAB")
now() { date +%s.%N; }
: >"$OUT/timings.tsv"
wanted() { [ -z "${GM_SITES_ONLY:-}" ] || grep -qw "$1" <<<"$GM_SITES_ONLY"; }
# explain NAME -- COMMAND...: the program alone, then under gmlab explain; seconds of each.
explain() {
  local name=$1; shift 2
  wanted "$name" || return 0
  local t0 t1 t2 rc
  t0=$(now); timeout 300 "$@" >"$OUT/text/$name.alone.txt" 2>&1; t1=$(now)
  timeout 300 "$GMLAB" explain "${LABOPT[@]}" --records "$OUT/records/$name" --json "$OUT/json/$name.json" -- "$@" >"$OUT/text/$name.txt" 2>&1
  rc=$?; t2=$(now)
  printf '%s\t%s\t%.2f\t%.2f\n' "$name" "$rc" "$(awk "BEGIN{print $t1 - $t0}")" "$(awk "BEGIN{print $t2 - $t1}")" | tee -a "$OUT/timings.tsv"
}
export PYTHONUNBUFFERED=1
S=examples/explain/outside
explain torch_training_step -- python3 $S/torch_training_step.py
explain torch_transformer_loop -- python3 $S/torch_transformer_loop.py
explain torch_compile_default -- python3 $S/torch_compile_step.py default
explain torch_compile_reduce_overhead -- python3 $S/torch_compile_step.py reduce-overhead
explain triton_softmax -- python3 $S/triton_softmax.py
explain cupy_rawkernel -- python3 $S/cupy_rawkernel.py
explain jax_program -- python3 $S/jax_program.py
for p in ${GM_SITES_PAIRS:-graph_bank_conflicts graph_strided managed_loop strided_access}; do
  explain "$p-planted" -- "$EX/$p"
  explain "$p-fixed" -- "$EX/$p" --fixed
done
# The in-process session (the Python binding's explain.session()), with the
# binding's pure-Python module alone on the path (its SWIG part is not needed).
if wanted torch_session; then
  mkdir -p /tmp/gm-py/gmlab && : >/tmp/gm-py/gmlab/__init__.py && cp bindings/swig/python/gmlab/explain.py /tmp/gm-py/gmlab/
  t0=$(now)
  GMLAB=$GMLAB PYTHONPATH=/tmp/gm-py timeout 300 python3 $S/torch_session.py >"$OUT/text/torch_session.txt" 2>&1
  printf 'torch_session\t%s\t0\t%.2f\n' "$?" "$(awk "BEGIN{print $(now) - $t0}")" | tee -a "$OUT/timings.tsv"
  # Without Jupyter: Ubuntu's packages of it (scripts/jupyter-debs.py), unpacked
  # here and put at the END of the interpreter's path (a .pth file), so that
  # what the interpreter has wins.
  if ! python3 -c "import nbconvert, ipykernel" 2>/dev/null && ls "${JUPYTER_DEBS:-.carry/jupyter}"/*.deb >/dev/null 2>&1; then
    rm -rf /tmp/gm-jupyter && for d in "${JUPYTER_DEBS:-.carry/jupyter}"/*.deb; do dpkg-deb -x "$d" /tmp/gm-jupyter; done
    site=$(python3 -c "import site; print([p for p in site.getsitepackages() if p.endswith('-packages')][0])")  # removed after the notebook
    echo /tmp/gm-jupyter/usr/lib/python3/dist-packages >"$site/zz-gm-jupyter.pth"
    export LD_LIBRARY_PATH=/tmp/gm-jupyter/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export JUPYTER_PATH=/tmp/gm-jupyter/usr/share/jupyter
  fi
  if python3 -c "import nbconvert, ipykernel" 2>/dev/null; then
    GMLAB=$GMLAB PYTHONPATH=/tmp/gm-py timeout 300 python3 -m nbconvert --to html --execute $S/torch_session.ipynb \
      --output-dir "$OUT/text" >"$OUT/text/torch_session.nbconvert.txt" 2>&1
    echo "nbconvert: exit $?" | tee -a "$OUT/text/torch_session.nbconvert.txt"
    rm -f "${site:-/nonexistent}/zz-gm-jupyter.pth"  # the interpreter as it was found
  else
    echo "nbconvert or ipykernel is not installed here" | tee "$OUT/text/torch_session.nbconvert.txt"
  fi
fi
echo "[$SECONDS s] explained"
# Nsight Compute's memory tables and source counters on the kernels explain counted in NAME.
ncu_time() {
  local name=$1 filter count t0
  wanted ncu && [ -s "$OUT/json/$name.json" ] || return 0
  filter=$(python3 bench/explain_gpu_report.py --ncu-filter "$OUT/json/$name.json")
  count=$(python3 bench/explain_gpu_report.py --ncu-count "$OUT/json/$name.json")
  t0=$(now)
  timeout 300 ncu --section MemoryWorkloadAnalysis_Tables --section SourceCounters -k "regex:$filter" -c "$count" \
    python3 $S/$name.py >"$OUT/text/$name.ncu.txt" 2>&1
  printf '%s.ncu\t%s\t0\t%.2f\n' "$name" "$?" "$(awk "BEGIN{print $(now) - $t0}")" | tee -a "$OUT/timings.tsv"
}
ncu_time torch_training_step
ncu_time torch_transformer_loop
# The new example kernels under compute-sanitizer's memcheck.
if wanted sanitizer; then
  for p in graph_strided managed_loop; do
    compute-sanitizer --tool memcheck --leak-check full "$EX/$p" >"$OUT/text/$p.memcheck.txt" 2>&1
    echo "memcheck $p: exit $? ($(grep -c 'ERROR SUMMARY: 0 errors' "$OUT/text/$p.memcheck.txt") clean summary)" | tee -a "$OUT/timings.tsv"
  done
fi
tar -C "$OUT" -czf "$OUT/sites.tar.gz" json text records timings.tsv gpu.txt
echo "[$SECONDS s] done"
