#!/usr/bin/env bash
# Sets everything up, builds, and runs gmlab's default suite on GPU 0: the tables
# go to the terminal, the run document to build/gmlab-run.json. Without a GPU it
# ends with "no CUDA device" and exit status 3.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh >/dev/null
exec build/tools/cli/gmlab run --json build/gmlab-run.json "$@"
