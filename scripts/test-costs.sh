#!/usr/bin/env bash
# Writes tests/ctest-costs.txt from the last full test run's timings
# (build/Testing/Temporary/CTestCostData.txt): the order in which
# scripts/test.sh starts the tests of a fresh build folder, longest first.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${GM_BUILD_DIR:-build}/Testing/Temporary/CTestCostData.txt
[ -f "$data" ] || { echo "no $data: run scripts/test.sh first" >&2; exit 1; }
{
  echo "# Seconds each test took in a full scripts/test.sh run on the 2-core machine without a GPU."
  echo "# scripts/test.sh gives them to CTest (as its cost data) where the build folder has none"
  echo "# yet, so that a fresh clone starts the longest tests first instead of ending on them."
  echo "# Regenerate: scripts/test-costs.sh (after a full run)."
  awk 'NF == 3 { printf "%s 1 %.1f\n", $1, $3 }' "$data" | sort
} > tests/ctest-costs.txt
