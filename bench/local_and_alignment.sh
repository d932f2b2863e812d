#!/usr/bin/env bash
# Local memory, register pressure, alignment and pitched rows in one run on one
# device: local / register time ratios, the register_pressure table, the
# aligned / packed bandwidth ratio for 12- and 16-byte records, and the
# pitched / packed bandwidth ratio at a width of 32769 elements.
#   bench/local_and_alignment.sh [path/to/gmlab] [extra gmlab run options...]
set -euo pipefail
GMLAB=${1:-gmlab}
shift || true
json=$(mktemp)
trap 'rm -f "$json"' EXIT
"$GMLAB" run local_memory register_pressure alignment pitch_2d --json "$json" "$@" >/dev/null
python3 - "$json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
res = {r["experiment"]["name"]: r for r in run["results"]}
print(f"device: {run['device']['name']}")

lm = res["local_memory"]
print("local_memory (64-word array per thread):")
for s in lm["series"]:
    p = s["points"][0]
    print(f"  {s['variant']:>10}: {p['time_ms']['median']:8.3f} ms  {p['values']['registers']:4.0f} registers  "
          f"{p['values']['local_bytes_per_thread']:4.0f} local bytes/thread  {p['values']['array_access_gbs']:9.1f} GB/s of array accesses")
s = lm["summary"]
print(f"  local / register time: uniform index {s['uniform_time_over_registers']:.2f}, "
      f"per-lane index {s['divergent_time_over_registers']:.2f} (per-lane / uniform {s['divergent_time_over_uniform']:.2f})")

rp = res["register_pressure"]
print("register_pressure (__launch_bounds__(256, min_blocks)):")
print(f"  {'cap':>4} {'min_blocks':>10} {'registers':>9} {'spill B':>8} {'blocks/SM':>9} {'occupancy':>9} {'ms':>9} {'G upd/s':>9} {'time/best':>9}")
for p in rp["series"][0]["points"]:
    v = p["values"]
    cap = int(p["x"])
    print(f"  {cap:4d} {v['min_blocks']:10.0f} {v['registers']:9.0f} {v['local_bytes_per_thread']:8.0f} {v['blocks_per_sm']:9.0f} "
          f"{v['occupancy']:9.3f} {p['time_ms']['median']:9.3f} {v['giga_updates_per_s']:9.1f} "
          f"{rp['summary'][f'cap{cap}_time_over_best']:9.2f}")
print(f"  fastest cap: {rp['summary']['fastest_cap']:.0f}")

al = res["alignment"]
print("alignment (bandwidth of the records' data bytes):")
for s in al["series"]:
    for p in s["points"]:
        v = p["values"]
        where = f" offset {int(v['offset_bytes'])}" if s["variant"] == "misaligned" else ""
        print(f"  {int(s['attributes']['record_bytes']):2d}-byte {s['variant']:>10}{where:10}: {p['bandwidth_gbs']:8.1f} GB/s  "
              f"{v['loads_per_record']:.0f} x {v['load_bytes']:.0f}-byte loads per record")
a = al["summary"]
print(f"  aligned / packed bandwidth: 12-byte {a['aligned_over_packed_r12']:.3f}, 16-byte {a['aligned_over_packed_r16']:.3f}"
      f" (8-byte {a['aligned_over_packed_r8']:.3f})")
for k in sorted(a):
    if k.startswith("misaligned"):
        print(f"  {k}: {a[k]:.3f}")

p2 = res["pitch_2d"]
print("pitch_2d (one warp per row):")
bw = {s["variant"]: {int(p["x"]): p for p in s["points"]} for s in p2["series"]}
for w in sorted(bw["packed"]):
    pk, pt = bw["packed"][w], bw["pitched"][w]
    print(f"  width {w:6d}: packed {pk['bandwidth_gbs']:8.1f} GB/s, pitched {pt['bandwidth_gbs']:8.1f} GB/s "
          f"(pitch {pt['values']['pitch_bytes']:.0f} B, {pk['values']['height']:.0f} rows)  pitched / packed {pt['bandwidth_gbs'] / pk['bandwidth_gbs']:.3f}")
print(f"  pitched / packed at width 32769: {p2['summary']['pitched_over_packed_w32769']:.3f}")
PY
