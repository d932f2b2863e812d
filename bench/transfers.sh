#!/usr/bin/env bash
# Host<->device transfer figures in one run on one device: pinned and pageable
# host-to-device and device-to-host bandwidth at 256 MiB and 1 GiB and their
# pinned / pageable ratio, the batching penalty of 1024 x 4 KiB copies against
# one 4 MiB copy (with the fitted per-copy overhead), the copy/kernel overlap
# speed-up with 4 streams, and gmlab's pinned figures against a plain loop of
# synchronous cudaMemcpy on the same buffer sizes (bench/transfer_reference.cu,
# built here with nvcc) as a ratio.
#   bench/transfers.sh [path/to/gmlab] [extra gmlab run options...]
set -euo pipefail
GMLAB=${1:-gmlab}
shift || true
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$GMLAB" run transfer transfer_batching copy_overlap \
  --set transfer.min_size=256MiB --set transfer.max_size=1GiB \
  --set transfer_batching.counts=1,1024 --set transfer_batching.chunk_sizes=4096 \
  --set copy_overlap.streams=1,4 --json "$tmp/run.json" "$@" >/dev/null
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
ref="$tmp/reference.txt"
if [ -x "$NVCC" ] && "$NVCC" -O2 -std=c++17 -o "$tmp/transfer_reference" "$here/transfer_reference.cu" 2>"$tmp/nvcc.log"; then
  "$tmp/transfer_reference" 268435456 1073741824 >"$ref"
else
  echo "(nvcc not found or failed: no cudaMemcpy reference; $(tail -1 "$tmp/nvcc.log" 2>/dev/null))"
  : >"$ref"
fi
python3 - "$tmp/run.json" "$ref" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
res = {r["experiment"]["name"]: r for r in run["results"]}
print(f"device: {run['device']['name']}")
t = res["transfer"]
bw = {}
for s in t["series"]:
    for p in s["points"]:
        bw[(s["variant"], int(p["x"]))] = p["bandwidth_gbs"]
sizes = [(256 << 20, "256 MiB"), (1 << 30, "1 GiB")]
for d, label in (("h2d", "host to device"), ("d2h", "device to host")):
    print(f"{label}:")
    for size, name in sizes:
        pin, page = bw.get((f"pinned_{d}", size)), bw.get((f"pageable_{d}", size))
        print(f"  {name:>7}: pinned {pin:7.2f} GB/s  pageable {page:7.2f} GB/s  pinned / pageable {pin / page:5.2f}")
b = res["transfer_batching"]["summary"]
for d in ("h2d", "d2h"):
    print(f"batching {d}: 1024 x 4 KiB copies take {b[f'{d}_penalty_1024x4096']:.2f} x the time of one 4 MiB copy"
          f"  (fit: {b[f'{d}_overhead_us']:.2f} us per copy, {b.get(f'{d}_fit_bandwidth_gbs', float('nan')):.2f} GB/s)")
o = res["copy_overlap"]
s = o["summary"]
model = [p["predicted"]["speedup_over_serial"] for p in o["series"][0]["points"] if p["x"] == 4][0]
print(f"copy/kernel overlap, 4 streams: {s['speedup_4_streams']:.2f} x serial  (pipeline model {model:.2f} x, "
      f"h2d {s['h2d_ms']:.2f} ms, kernel {s['kernel_ms']:.2f} ms at {int(s['iterations'])} iterations, d2h {s['d2h_ms']:.2f} ms)")
ref = {}
for line in open(sys.argv[2]):
    d, size, gbs = line.split()
    ref[(d, int(size))] = float(gbs)
if ref:
    print("pinned against a plain cudaMemcpy loop (host-timed median, bench/transfer_reference.cu):")
    for d in ("h2d", "d2h"):
        for size, name in sizes:
            ours, theirs = bw[(f"pinned_{d}", size)], ref[(d, size)]
            print(f"  {d} {name:>7}: gmlab {ours:7.2f} GB/s  cudaMemcpy loop {theirs:7.2f} GB/s  gmlab / loop {ours / theirs:5.3f}")
PY
