#!/usr/bin/env bash
# Sets up what the main job needs, builds the library and the CLI for the GPU
# present, and runs gmlab's default suite on GPU 0: the tables go to the
# terminal, the run document to build/gmlab-run.json. Arguments go to `gmlab run`.
#
# It looks for a usable GPU first (seconds, nothing installed): without one it
# says why (no driver, a driver too old for the toolkit, a GPU older than the
# toolkit builds), shows the report of the newest run committed in results/, and
# exits 3 (gmlab's "no CUDA device" status).
# GM_BUILD_JOBS limits the compile jobs (default: every core).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v nvcc >/dev/null || export PATH="/usr/local/cuda/bin:$PATH"
status=0
gpu=$(scripts/gpu-probe.sh) || status=$?
if [ "$status" -ne 0 ]; then
  echo "gmlab: no usable GPU here: $gpu" >&2
  [ "$status" -eq 3 ] || exit "$status"
  echo "gmlab: nothing was installed or built; below, what gmlab reports on a GPU." >&2
  echo >&2
  scripts/show-newest-run.sh
  echo >&2
  echo "gmlab: no usable GPU here: $gpu (exit 3)" >&2
  exit 3
fi
echo "gmlab: $gpu" >&2
scripts/install-deps.sh run
echo "gmlab: building the library and the CLI for this GPU (minutes the first time; build/)" >&2
# Device code for the GPU present only; the same folder and choice as
# scripts/test.sh, which then builds only the tests and the rest.
GM_BUILD_TARGETS=gmlab-cli scripts/build.sh -DCMAKE_CUDA_ARCHITECTURES=native -DGM_BUILD_TESTS=OFF >/dev/null
exec build/tools/cli/gmlab run --json build/gmlab-run.json "$@"
