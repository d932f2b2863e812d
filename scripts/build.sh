#!/usr/bin/env bash
# Configures and builds gmlab into ./build (or $GM_BUILD_DIR). Extra arguments
# go to CMake, e.g. -DCMAKE_CUDA_ARCHITECTURES=native. GM_BUILD_TARGETS names
# the targets to build (default: all).
# Where ccache is installed it serves every compiler, device code included, with
# paths taken relative to the checkout: a second build folder, a fresh clone or
# the test command after the run command compiles only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v nvcc >/dev/null || export PATH="/usr/local/cuda/bin:$PATH"
build=${GM_BUILD_DIR:-build}
launcher=()
if command -v ccache >/dev/null && [ "${GM_CCACHE:-1}" != 0 ]; then
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
  export CCACHE_SLOPPINESS="pch_defines,time_macros,include_file_mtime,include_file_ctime"
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" "$@" >/dev/null
targets=()
for t in ${GM_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build" -j "${GM_BUILD_JOBS:-$(nproc)}" "${targets[@]}"
