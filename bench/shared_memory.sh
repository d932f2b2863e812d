#!/usr/bin/env bash
# The shared-memory figures in one run on one device: each transpose variant
# over our stream copy on the same bytes (target for the fastest: >= 0.90 on a
# matrix several times larger than L2), padded / unpadded for the transpose and
# for C = AAᵀ, and the three C = AB kernels against each other and against the
# guide's V100 figures.
#   bench/shared_memory.sh [path/to/gmlab] [extra gmlab run options...]
set -euo pipefail
GMLAB=${1:-gmlab}
shift || true
json=$(mktemp)
trap 'rm -f "$json"' EXIT
"$GMLAB" run transpose matmul_ab matmul_aat --set transpose.element_sizes=4 --json "$json" "$@" >/dev/null
python3 - "$json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
res = {r["experiment"]["name"]: r for r in run["results"]}
print(f"device: {run['device']['name']}, L2 {run['device']['l2_cache_bytes'] / 2**20:.0f} MiB")
t = res["transpose"]
p = t["parameters"]
print(f"transpose {p['rows']} x {p['cols']} of 4-byte elements ({p['rows'] * p['cols'] * 4 / 2**20:.0f} MiB):")
bw = {s["variant"]: s["points"][0]["bandwidth_gbs"] for s in t["series"]}
for v in ("naive", "shared", "shared_padded", "wide", "copy"):
    if v in bw:
        print(f"  {v:>14}: {bw[v]:8.1f} GB/s  = {bw[v] / bw['copy']:.3f} of our stream copy")
print(f"  padded / unpadded: {bw['shared_padded'] / bw['shared']:.3f}   wide / padded: {bw['wide'] / bw['shared_padded']:.3f}")
for name in ("matmul_ab", "matmul_aat"):
    r = res[name]
    bw = {s["variant"]: s["points"][0]["bandwidth_gbs"] for s in r["series"]}
    gf = {s["variant"]: s["points"][0]["values"]["gflops"] for s in r["series"]}
    pub = r["published"]["figures"]
    print(f"{name} (M = {r['parameters']['m']}):")
    base = list(bw)[0]
    for v in bw:
        print(f"  {v:>12}: {bw[v]:9.1f} GB/s {gf[v]:9.1f} GFLOP/s  {bw[v] / bw[base]:6.2f} x {base}"
              f"   (guide V100: {pub[v + '_gbs']:6.1f} GB/s, {pub[v + '_gbs'] / pub[base + '_gbs']:.2f} x)")
s = res["matmul_aat"]["summary"]
print(f"  C = AAT padded / unpadded: {s['padded_over_coalesced']:.3f}")
PY
