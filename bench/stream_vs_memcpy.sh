#!/usr/bin/env bash
# Our STREAM copy against cudaMemcpy device-to-device, in one run on one device,
# both counting bytes read + written; each also as a fraction of the device's
# theoretical bandwidth. Target: copy / memcpy >= 1.00.
#   bench/stream_vs_memcpy.sh [path/to/gmlab] [extra gmlab run options...]
set -euo pipefail
GMLAB=${1:-gmlab}
shift || true
json=$(mktemp)
trap 'rm -f "$json"' EXIT
"$GMLAB" run stream --set kernels=copy --min-repetitions 50 --min-time-ms 500 --json "$json" "$@" >/dev/null
python3 - "$json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
r = run["results"][0]
s = r["summary"]
dev = run["device"]
print(f"device: {dev['name']} (theoretical {dev['theoretical_bandwidth_gbs']:.1f} GB/s)")
print(f"array: {r['parameters']['array_bytes'] or 'auto'} bytes, block {r['parameters']['block_size']}, unroll {r['parameters']['unroll']}")
for name in ("copy", "cudaMemcpy"):
    print(f"{name:>10}: {s[name + '_gbs']:8.1f} GB/s  = {s[name + '_fraction_of_theoretical']:.3f} of theoretical")
print(f"copy / cudaMemcpy = {s['copy_over_memcpy']:.3f}  (target >= 1.00)")
PY
