#!/usr/bin/env bash
# The Python binding on a GPU machine that has no SWIG (and perhaps no Python
# headers), in two steps.
#
# 1. Where SWIG is installed (from the repository root):
#      bindings/swig/python/gpu_test.sh --prepare
#    writes .carry/python/: the SWIG output (swiggmlab.py, gmlab_wrap.cxx) and,
#    for every interpreter named in GM_PREBUILD_PYTHONS (default: python3.12,
#    where one with headers is found) an extension built for it, used on the
#    GPU machine only when that machine lacks the interpreter's headers; and
#    .carry/include/nlohmann (the one header-only library the core needs).
#
# 2. On the GPU machine, from a copy of the repository holding .carry/:
#      bindings/swig/python/gpu_test.sh
#    builds libgmlab for the GPU present and the Python package for `python3`
#    (or $PYTHON) into build-python-gpu/, then runs the whole pytest suite with
#    the GPU tests required to run (not skipped), the example with its plot,
#    and the pip/wheel install check. Logs, pytest.xml and the plot go to $OUT
#    (default build-python-gpu/gpu-out). Exit status 0 only when all of it passed.
set -uo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$PWD
CARRY=${GM_CARRY:-$ROOT/.carry}
SRC=$ROOT/bindings/swig/python

prepare() {
  set -e
  local out=$CARRY/python
  rm -rf "$out"
  mkdir -p "$out" "$CARRY/include"
  local abi
  abi=$(sed -n 's/^#define GM_ABI_VERSION \([0-9][0-9]*\)$/\1/p' "$ROOT/include/gmlab.h")
  swig -c++ -DGMB_ABI_VERSION="$abi" -python -threads -module swiggmlab -I"$SRC" -I"$ROOT/include" \
       -outdir "$out" -o "$out/gmlab_wrap.cxx" "$ROOT/bindings/swig/gmlab.i"
  if [ ! -d "$CARRY/include/nlohmann" ]; then
    for d in /usr/include /usr/local/include; do
      [ -f "$d/nlohmann/json.hpp" ] && { cp -r "$d/nlohmann" "$CARRY/include/"; break; }
    done
  fi
  # Extensions for other interpreters, linked against libgmlab's SONAME only
  # (the GPU machine brings its own libgmlab, built for its GPU).
  local build=${GM_BUILD_DIR:-build}
  local lib
  lib=$(ls "$build"/src/libgmlab.so.* 2>/dev/null | head -1)
  for py in ${GM_PREBUILD_PYTHONS:-python3.12}; do
    "$py" -c pass 2>/dev/null || { echo "prepare: $py does not run here, no prebuilt extension for it"; continue; }
    local inc suffix
    inc=$("$py" -c "import sysconfig; print(sysconfig.get_paths()['include'])")
    suffix=$("$py" -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
    if [ ! -f "$inc/Python.h" ] || [ -z "$lib" ]; then
      echo "prepare: no Python.h for $py or no built libgmlab in $build/src: no prebuilt extension for $py"
      continue
    fi
    g++ -std=c++17 -O2 -fPIC -shared -fvisibility=hidden -fno-strict-aliasing -I"$inc" -I"$ROOT/include" \
        "$out/gmlab_wrap.cxx" -o "$out/_swiggmlab$suffix" -L"$(dirname "$lib")" -l:"$(basename "$lib")" \
        -Wl,-rpath,'$ORIGIN'
    echo "prepare: $out/_swiggmlab$suffix (for $py)"
  done
  du -sh "$CARRY/python" "$CARRY/include/nlohmann" 2>/dev/null
  echo "prepare: carry .carry/python and .carry/include"
}

if [ "${1:-}" = --prepare ]; then
  prepare
  exit $?
fi

PY=${PYTHON:-python3}
BUILD=${GM_BUILD_DIR:-build-python-gpu}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac  # absolute from here on
OUT=${OUT:-$BUILD/gpu-out}
mkdir -p "$OUT"
fail() { echo "gpu_test.sh: $*" >&2; exit 1; }

command -v "$PY" >/dev/null || fail "no $PY"
"$PY" -c "import numpy, pytest" 2>/dev/null || fail "$PY needs numpy and pytest (pip install numpy pytest)"
[ -f "$CARRY/python/swiggmlab.py" ] && [ -f "$CARRY/python/gmlab_wrap.cxx" ] || command -v swig >/dev/null ||
  fail "no SWIG here and no $CARRY/python/{swiggmlab.py,gmlab_wrap.cxx}: run 'bindings/swig/python/gpu_test.sh --prepare' where SWIG is, and carry .carry/"

opts=(-DGM_BUILD_PYTHON=ON -DGM_BUILD_TESTS=OFF -DGM_BUILD_CLI=OFF -DPython3_EXECUTABLE="$(command -v "$PY")")
[ -f "$CARRY/python/gmlab_wrap.cxx" ] && opts+=(-DGM_PYTHON_WRAPPER_DIR="$CARRY/python")
[ -d "$CARRY/include" ] && opts+=(-DGM_THIRD_PARTY_INCLUDE="$CARRY/include")

# The extension is compiled here against this interpreter's headers; where they
# are missing, a prebuilt one for this interpreter's tag is taken from .carry.
inc=$("$PY" -c "import sysconfig; print(sysconfig.get_paths()['include'])")
suffix=$("$PY" -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
version=$("$PY" -c "import sys; print('%d.%d' % sys.version_info[:2])")
if [ -f "$inc/Python.h" ]; then
  echo "Python $version ($PY): building the extension against $inc"
elif [ -f "$CARRY/python/_swiggmlab$suffix" ]; then
  echo "Python $version ($PY): no Python.h in $inc, using the prebuilt $CARRY/python/_swiggmlab$suffix"
  opts+=(-DGM_PYTHON_EXTENSION="$CARRY/python/_swiggmlab$suffix")
else
  fail "Python $version ($PY) has no headers (no $inc/Python.h) and $CARRY/python has no prebuilt _swiggmlab$suffix: install the headers (Debian/Ubuntu: python$version-dev) or run --prepare with GM_PREBUILD_PYTHONS=python$version where such an interpreter is"
fi

command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/nvidia-smi.log"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${GM_CUDA_ARCH:-native}" \
      "${opts[@]}" >"$OUT/configure.log" 2>&1 || { tail -20 "$OUT/configure.log"; fail "configure failed ($OUT/configure.log)"; }
cmake --build "$BUILD" >"$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; fail "build failed ($OUT/build.log)"; }

export PYTHONPATH=$BUILD/bindings/python GMLAB_SOURCE_DIR=$ROOT PYTHONDONTWRITEBYTECODE=1 MPLBACKEND=Agg
status=0

echo "== pytest (every test; the GPU tests must run)"
"$PY" "$SRC/tests/run_pytest.py" --all "$SRC/tests" -v --junitxml="$OUT/pytest.xml" >"$OUT/pytest.log" 2>&1 || status=1
grep -E "passed|failed|error" "$OUT/pytest.log" | tail -3
[ "$(grep -c "SKIPPED" "$OUT/pytest.log")" -gt 0 ] && grep "SKIPPED" "$OUT/pytest.log" | head -5

echo "== example"
if "$PY" "$ROOT/examples/python/stride_sweep.py" --plot "$OUT/stride_sweep.png" >"$OUT/example.log" 2>&1; then
  cat "$OUT/example.log"
else
  cat "$OUT/example.log"; status=1
fi

echo "== pip install and wheel"
cmake -DPYTHON="$(command -v "$PY")" -DPROJECT_DIR="$BUILD/bindings/python" -DWORK_DIR="$BUILD/python-install-test" \
      -P "$SRC/check_install.cmake" >"$OUT/install.log" 2>&1 || status=1
tail -3 "$OUT/install.log"

echo "gpu_test.sh: $([ $status = 0 ] && echo PASSED || echo FAILED) (logs in $OUT)"
exit $status
