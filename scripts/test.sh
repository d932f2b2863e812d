#!/usr/bin/env bash
# Sets everything up, builds, and runs every test. Tests that need a GPU report
# themselves skipped where there is none.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
ctest --test-dir "${GM_BUILD_DIR:-build}" --output-on-failure -j "$(nproc)"
