#!/usr/bin/env bash
# Sweeps block size, unroll and cache hint of the STREAM copy kernel and prints
# each against cudaMemcpy measured in the same process: how the defaults were
# chosen. Lists can be narrowed: BLOCKS="256" UNROLLS="1 2" HINTS="default" GRIDS="one_pass".
#   bench/stream_tune.sh [path/to/gmlab] [extra gmlab run options...]
set -euo pipefail
GMLAB=${1:-gmlab}
shift || true
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
printf "%10s %6s %6s %10s %10s %11s %8s\n" grid block unroll hint copy_GBps memcpy_GBps ratio
for grid in ${GRIDS:-one_pass persistent}; do
for hint in ${HINTS:-default streaming}; do
  for block in ${BLOCKS:-128 256 512}; do
    for unroll in ${UNROLLS:-1 2 4}; do
      "$GMLAB" run stream --set kernels=copy --set block_size="$block" --set unroll="$unroll" --set cache_hint="$hint" --set grid="$grid" \
        --min-repetitions 50 --min-time-ms 300 --json "$tmp" "$@" >/dev/null 2>&1
      python3 -c "
import json, sys; s = json.load(open(sys.argv[1]))['results'][0]['summary']
print('%10s %6s %6s %10s %10.1f %11.1f %8.3f' % (sys.argv[5], sys.argv[2], sys.argv[3], sys.argv[4], s['copy_gbs'], s['cudaMemcpy_gbs'], s['copy_over_memcpy']))" \
        "$tmp" "$block" "$unroll" "$hint" "$grid"
    done
  done
done
done
