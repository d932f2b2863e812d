#!/usr/bin/env bash
# Sets everything up, builds (the Java, C# and Go bindings, the uploader and the
# server too), and runs every test. Tests that need a GPU report themselves skipped where there is none.
# GM_CORE_ONLY=1 leaves the bindings out.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
bindings=(-DGM_BUILD_JAVA=ON -DGM_BUILD_CSHARP=ON -DGM_BUILD_GO=ON -DGM_BUILD_UPLOAD=ON -DGM_BUILD_SERVER=ON)
[ "${GM_CORE_ONLY:-0}" = 1 ] && bindings=()
scripts/build.sh "${bindings[@]}"
ctest --test-dir "${GM_BUILD_DIR:-build}" --output-on-failure -j "$(nproc)"
