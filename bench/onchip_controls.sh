#!/usr/bin/env bash
# The L2 partitions, the L2 cache hints and the L1/shared carveout on one
# device: near and far L2 latency and each SM's share of far lines against the
# model's half, the fabric counts of a near-only and a far-only chase; each
# cache hint's speed-up over default loads and the reused set's L2 hits, DRAM
# bytes per strided read under each fetch limit against the sector model; the
# L1 each carveout leaves, measured against the model.
#   bench/onchip_controls.sh [path/to/gmlab] [extra gmlab run options...]
set -euo pipefail
GMLAB=${1:-gmlab}
shift || true
json=$(mktemp)
trap 'rm -f "$json"' EXIT
"$GMLAB" run l2_partitions cache_hints carveout --json "$json" "$@" >/dev/null
python3 - "$json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
res = {r["experiment"]["name"]: r for r in run["results"]}
print(f"device: {run['device']['name']}")

def series(result, variant):
    return next((s for s in result["series"] if s.get("variant") == variant), None)

lp = res["l2_partitions"]
s = lp["summary"]
print(f"l2_partitions ({s['sms_measured']:.0f} of {s['sms_seen']:.0f} SMs, {s['lines']:.0f} lines; "
      f"SM clock {s['sm_clock_mhz_measured']:.0f} MHz):")
if s["levels"] == 2:
    print(f"  near {s['near_cycles']:.0f} cycles ({s['near_ns']:.1f} ns), far {s['far_cycles']:.0f} cycles ({s['far_ns']:.1f} ns): "
          f"far / near {s['far_over_near']:.2f} (published H100 PCIe: 265 and 475, 1.79)")
    print(f"  share of lines far from an SM: median {s['far_share_median']:.2f}, {s['far_share_min']:.2f}..{s['far_share_max']:.2f} "
          f"(model 0.50); sides {s['sms_side0']:.0f} + {s['sms_side1']:.0f} SMs, fit explains {100 * s['sides_consistency']:.1f}%")
    print(f"  second visit from the same SM: median share still far {s['repeat_far_share_median']:.2f}")
    if "near_ring_cycles" in s:
        line = f"  near-only ring {s['near_ring_cycles']:.0f} cycles, far-only ring {s['far_ring_cycles']:.0f} cycles"
        if "far_ring_fabric_sectors_per_load" in s:
            line += (f"; fabric sectors per load {s.get('near_ring_fabric_sectors_per_load', float('nan')):.2f} near, "
                     f"{s['far_ring_fabric_sectors_per_load']:.2f} far (model 0 and 1)")
        print(line)
else:
    print(f"  one level: {s['near_cycles']:.0f} cycles ({s['near_ns']:.1f} ns)")
sw = series(lp, "sweep")
if sw:
    print("  sweep from one SM: " + ", ".join(
        f"{p['values']['over_l2']:.2f} x L2 {p['values']['latency_cycles']:.0f} cycles "
        f"(near {p['values']['near_share']:.2f}, far {p['values']['far_share']:.2f}, beyond {p['values']['beyond_share']:.2f})"
        for p in sw["points"]))

ch = res["cache_hints"]
s = ch["summary"]
print(f"cache_hints (reused {s['reused_bytes'] / 2**20:.1f} MiB read {s['reused_reads']:.2f} times beside a "
      f"{s['stream_bytes'] / 2**20:.0f} MiB stream):")
for v in ("default", "stream_cs", "stream_l1_no_allocate", "stream_evict_first", "reused_evict_last", "evict_first_last",
          "evict_first_last_set_aside", "window_streaming", "window_persisting"):
    if v + "_ms" not in s:
        continue
    hit = s.get(v + "_reused_hit_share")
    print(f"  {v:<28} {s[v + '_ms']:8.3f} ms  speed-up {s.get(v + '_speedup', 1.0):5.2f}"
          + (f"  reused L2 hits {hit:.2f}" if hit is not None else ""))
print("  strided reads, DRAM bytes per 4-byte read (sector model: 32 at strides >= 32):")
for sr in ch["series"]:
    if sr["y"]["field"] != "bandwidth_gbs":
        continue
    cells = []
    for p in sr["points"]:
        c = p.get("counters", {}).get("dram_bytes_per_read")
        cells.append(f"stride {p['x']:.0f}: model {p['predicted']['dram_bytes_per_read']:.0f}, "
                     + (f"counted {c:.1f}" if c is not None else "not counted") + f", {p['time_ms']['median'] * 1e3:.1f} us")
    print(f"    {sr['variant']:<18} " + "; ".join(cells))

co = res["carveout"]
s = co["summary"]
print(f"carveout (unified L1/shared {s.get('unified_l1_shared_bytes', 0) / 1024:.0f} KiB per SM, "
      f"preference found {s['carveout_preference_found']:.0f}, after {s['carveout_preference_after']:.0f}):")
for sr in co["series"]:
    k = sr["variant"]
    pred = s.get(k + "_l1_predicted_bytes")
    fits, falls = s.get(k + "_fits_bytes"), s.get(k + "_falls_bytes")
    kib = lambda b: "-" if b is None else f"{b / 1024:.0f} KiB"
    bw = ", ".join(f"{p['x']:.0f} KiB {p['values']['read_gbs']:.0f}" for p in sr["points"])
    print(f"  {k:<12} model L1 {kib(pred)}; fits up to {kib(fits)}, falls at {kib(falls)}"
          + (f" (model {'holds' if s.get(k + '_model_brackets') == 1 else 'does not hold'})" if pred is not None else "")
          + f"; GB/s: {bw}")
PY
