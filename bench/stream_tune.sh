#!/usr/bin/env bash
# Sweeps block size and unroll of the STREAM copy kernel and prints each
# against cudaMemcpy measured in the same run: how the defaults were chosen.
#   bench/stream_tune.sh [path/to/gmlab]
set -euo pipefail
GMLAB=${1:-gmlab}
printf "%6s %6s %10s %10s %8s\n" block unroll copy_GBps memcpy_GBps ratio
for block in 128 256 512 1024; do
  for unroll in 1 2 4 8; do
    "$GMLAB" run stream --set kernels=copy --set block_size=$block --set unroll=$unroll \
      --min-repetitions 30 --min-time-ms 200 --json /tmp/gm-tune.json >/dev/null
    python3 -c "
import json; s=json.load(open('/tmp/gm-tune.json'))['results'][0]['summary']
print('%6d %6d %10.1f %10.1f %8.3f' % ($block, $unroll, s['copy_gbs'], s['cudaMemcpy_gbs'], s['copy_over_memcpy']))"
  done
done
