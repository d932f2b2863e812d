#!/usr/bin/env bash
# Sets everything up, builds (the Java, C#, Go and Python bindings, the uploader and the
# server too), and runs every test. Tests that need a GPU report themselves skipped where there is none.
# GM_CORE_ONLY=1 leaves the bindings out.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
bindings=(-DGM_BUILD_JAVA=ON -DGM_BUILD_CSHARP=ON -DGM_BUILD_GO=ON -DGM_BUILD_PYTHON=ON -DGM_BUILD_UPLOAD=ON -DGM_BUILD_SERVER=ON)
# The Python binding is built for, and tested with, Debian's python3, which has
# the packages install-deps.sh installs (numpy, pytest).
[ -x /usr/bin/python3 ] && bindings+=(-DPython3_EXECUTABLE=/usr/bin/python3)
[ "${GM_CORE_ONLY:-0}" = 1 ] && bindings=()
scripts/build.sh "${bindings[@]}"
ctest --test-dir "${GM_BUILD_DIR:-build}" --output-on-failure -j "$(nproc)"
