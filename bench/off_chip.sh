#!/usr/bin/env bash
# Managed memory, allocation and compressible memory in one run on one
# device, with the pinned transfer they are compared with: at 256 MiB, the
# on-demand read against a prefetch, an explicit pinned copy, read-mostly,
# accessed-by and mapped memory (time ratios), the fitted cost of a fault
# group and migration bandwidth against the pinned host-to-device copy, the
# ping-pong round trip; cudaMalloc against the pooled allocator at 1 GiB and
# the page-locking cost per GiB; compressible over plain memory per data kind.
#   bench/off_chip.sh [path/to/gmlab] [extra gmlab run options...]
set -euo pipefail
GMLAB=${1:-gmlab}
shift || true
json=$(mktemp)
trap 'rm -f "$json"' EXIT
"$GMLAB" run transfer managed_memory allocation compressible \
  --set transfer.min_size=256MiB --set transfer.max_size=256MiB --set transfer.memory=pinned \
  --set managed_memory.max_size=256MiB --set managed_memory.pingpong_pages=16,256 \
  --set allocation.host_max_size=256MiB --json "$json" "$@" >/dev/null
python3 - "$json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
res = {r["experiment"]["name"]: r for r in run["results"]}
print(f"device: {run['device']['name']}")

def fmt(summary, key, spec=".2f", unit=""):
    return f"{summary[key]:{spec}}{unit}" if key in summary else "n/a"

t = res["transfer"]["summary"]
m = res["managed_memory"]
ms = m["summary"]
if m.get("applicable", True) is False:
    print("managed_memory: not applicable:", m["notes"][-1])
else:
    print("managed_memory (256 MiB; time ratios, above 1: the first is slower):")
    for key in ("on_demand_over_prefetch_time", "on_demand_over_explicit_copy_time", "read_mostly_over_on_demand_time",
                "accessed_by_over_on_demand_time", "mapped_over_on_demand_time"):
        print(f"  {key:36}: {fmt(ms, key)}")
    for v in ("on_demand_read", "on_demand_write", "prefetch_read", "explicit_copy_read", "mapped_read"):
        print(f"  {v:>20}: {fmt(ms, v + '_gbs', '.1f', ' GB/s')}")
    print(f"  fit: {fmt(ms, 'fit_us_per_fault_group', '.2f', ' us')} per fault group, link {fmt(ms, 'fit_link_gbs', '.1f', ' GB/s')}"
          f" against pinned host-to-device {fmt(t, 'pinned_h2d_peak_gbs', '.1f', ' GB/s')}"
          + (f" (fit / pinned {ms['fit_link_gbs'] / t['pinned_h2d_peak_gbs']:.2f})"
             if 'fit_link_gbs' in ms and 'pinned_h2d_peak_gbs' in t else ""))
    print(f"  bytes migrated per fault group at 256 MiB: {fmt(ms, 'on_demand_read_bytes_per_fault_group', '.0f')}")
    for s in m["series"]:
        if s["variant"] != "ping_pong":
            continue
        for p in s["points"]:
            c = p.get("counters", {})
            print(f"  ping-pong {int(p['x']) >> 10:6d} KiB: {p['values']['us_per_round_trip']:9.1f} us per round trip "
                  f"(first {p['values']['first_round_trip_us']:.1f} us); counted round: "
                  f"{c.get('um_bytes_htod', float('nan')):.0f} B in, {c.get('um_bytes_dtoh', float('nan')):.0f} B out, "
                  f"thrashing {c.get('um_thrashing', float('nan')):.0f}, throttling {c.get('um_throttling', float('nan')):.0f}")
    print(f"  unified-memory counters read: {'yes' if ms.get('um_counters_available') else 'no'}")

a = res["allocation"]["summary"]
print("allocation (host-timed call pairs):")
print(f"  cudaMalloc + cudaFree: {fmt(a, 'malloc_us_smallest', '.1f', ' us')} (256 B) .. {fmt(a, 'malloc_us_largest', '.1f', ' us')} (1 GiB)")
print(f"  default pool (threshold 0): {fmt(a, 'pool_default_us_largest', '.1f', ' us')} at 1 GiB; pool with threshold: "
      f"{fmt(a, 'pool_threshold_us', '.2f', ' us')} at every size (largest / smallest {fmt(a, 'pool_threshold_max_over_min')})")
print(f"  cudaMalloc / pooled at 1 GiB: {fmt(a, 'malloc_over_pool_threshold_largest', '.1f')}")
print(f"  per GiB: cudaMallocHost {fmt(a, 'malloc_host_ms_per_gib', '.0f', ' ms')}, cudaHostRegister "
      f"{fmt(a, 'host_register_ms_per_gib', '.0f', ' ms')}, first touch {fmt(a, 'first_touch_ms_per_gib', '.0f', ' ms')}")
print(f"  cudaMemset at 1 GiB: {fmt(a, 'memset_gbs_largest', '.0f', ' GB/s')}")

c = res["compressible"]
cs = c["summary"]
if c.get("applicable", True) is False:
    print("compressible: not applicable:", c["notes"][-1])
else:
    print(f"compressible ({cs['bytes'] / 2**20:.0f} MiB; bandwidth and DRAM bytes, compressible / plain):")
    for d in ("zeros", "repeated", "random"):
        for op in ("read", "write"):
            k = f"{d}_{op}"
            print(f"  {k:>14}: bandwidth {fmt(cs, k + '_compressible_over_plain')}, DRAM bytes "
                  f"{fmt(cs, k + '_dram_bytes_compressible_over_plain')}")
PY
