#!/usr/bin/env bash
# Sets everything up, builds (the Java, C#, Go and Python bindings, the uploader and the
# server too), and runs every test, among them the release's (label release: the
# tarball, the .deb and one artifact per language, built and used as users would). Tests that need a GPU report themselves skipped where there is none.
# GM_CORE_ONLY=1 leaves the bindings out.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
bindings=(-DGM_BUILD_JAVA=ON -DGM_BUILD_CSHARP=ON -DGM_BUILD_GO=ON -DGM_BUILD_PYTHON=ON -DGM_BUILD_UPLOAD=ON -DGM_BUILD_SERVER=ON)
# The Python binding is built for, and tested with, Debian's python3, which has
# the packages install-deps.sh installs (numpy, pytest).
[ -x /usr/bin/python3 ] && bindings+=(-DPython3_EXECUTABLE=/usr/bin/python3)
# The release wheel also carries the extension for the other CPython versions
# found here with their headers (GM_RELEASE_PYTHONS, default 3.12 and 3.13, e.g. pyenv's).
extra=()
for v in ${GM_RELEASE_PYTHONS:-3.12 3.13}; do
  for py in "$(command -v "python$v" || true)" "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$v".*/bin/"python$v"; do
    if [ -x "$py" ] && "$py" -c "import os, sys, sysconfig; sys.exit(not os.path.isfile(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))" 2>/dev/null; then
      extra+=("$py"); break
    fi
  done
done
[ ${#extra[@]} -gt 0 ] && bindings+=("-DGM_PYTHON_EXTRA_INTERPRETERS=$(IFS=';'; echo "${extra[*]}")")
[ "${GM_CORE_ONLY:-0}" = 1 ] && bindings=()
# Device code: for the GPU present (native, the choice scripts/run.sh makes in the
# same build folder, so that after it only the tests and the rest compile), so that its GPU tests run; with no
# GPU, for the oldest family the toolkit builds and Hopper: the kernels' only
# architecture guards are cp.async (8.0) and clusters/TMA (9.0), so those two
# compile every path, at a quarter of the cost of every family. A release for
# users is built with the default (README, "Release"). GM_CUDA_ARCHITECTURES
# chooses otherwise.
command -v nvcc >/dev/null || export PATH="/usr/local/cuda/bin:$PATH"
archs=${GM_CUDA_ARCHITECTURES:-}
if [ -z "$archs" ]; then
  if nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    archs=native
  else
    codes=$(nvcc --list-gpu-code | grep -o 'sm_[0-9]*' | sed 's/sm_//' | sort -n | uniq)
    first=$(head -1 <<<"$codes")
    archs="$first-real"
    grep -qx 90 <<<"$codes" && [ "$first" != 90 ] && archs+=";90-real"
  fi
fi
scripts/build.sh -DCMAKE_CUDA_ARCHITECTURES="$archs" -DGM_BUILD_TESTS=ON "${bindings[@]}"
build=${GM_BUILD_DIR:-build}
# A fresh build folder has no timings yet: the committed ones make CTest start
# the longest tests first (tests/ctest-costs.txt, scripts/test-costs.sh).
costs=$build/Testing/Temporary/CTestCostData.txt
if [ ! -s "$costs" ]; then
  mkdir -p "$(dirname "$costs")"
  grep -v '^#' tests/ctest-costs.txt > "$costs"
fi
# Most tests wait on servers, databases and browsers rather than compute: twice
# as many at once as there are cores (the few that compute hard count as two,
# their PROCESSORS property). GM_TEST_JOBS chooses otherwise.
ctest --test-dir "$build" --output-on-failure -j "${GM_TEST_JOBS:-$(( $(nproc) * 2 ))}"
