#!/usr/bin/env bash
# Configures and builds gmlab into ./build (or $GM_BUILD_DIR). Extra arguments
# go to CMake, e.g. -DCMAKE_CUDA_ARCHITECTURES=native.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v nvcc >/dev/null || export PATH="/usr/local/cuda/bin:$PATH"
build=${GM_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"
