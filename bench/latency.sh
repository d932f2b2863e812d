#!/usr/bin/env bash
# Pointer-chase latency on one device: L1, L2 (near and far partition where it
# shows) and DRAM latency in cycles and ns beside published figures, the L2
# capacity found by measurement over the size the device reports, and the
# memory spaces fastest first against the guide's order.
#   bench/latency.sh [path/to/gmlab] [extra gmlab run options...]
set -euo pipefail
GMLAB=${1:-gmlab}
shift || true
json=$(mktemp)
trap 'rm -f "$json"' EXIT
"$GMLAB" run latency memory_spaces --json "$json" "$@" >/dev/null
python3 - "$json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
res = {r["experiment"]["name"]: r for r in run["results"]}
lat = res["latency"]
s, pub = lat["summary"], lat.get("published", {}).get("figures", {})
print(f"device: {run['device']['name']}; SM clock {s['sm_clock_mhz_measured']:.0f} MHz measured during the chase, "
      f"{s['sm_clock_mhz_reported']:.0f} MHz reported")
print(f"published: {lat.get('published', {}).get('source', '-')}")
print(f"{'level':<20}{'cycles':>8}{'ns':>8}{'published':>11}{'ours/pub':>10}")
for key, name in (("l1", "L1"), ("l2_near", "L2 (near)" if "l2_far_cycles" in s else "L2"), ("l2_far", "L2 (far)"), ("dram", "DRAM (cold)")):
    c = s.get(key + "_cycles")
    p = pub.get(key + "_cycles")
    if c is None:
        print(f"{name:<20}{'not found':>8}" + (f"{'':>8}{p:>11.0f}" if p else ""))
        continue
    ratio = f"{c / p:>10.2f}" if p else f"{'-':>10}"
    print(f"{name:<20}{c:>8.0f}{s[key + '_ns']:>8.1f}{(p or float('nan')):>11.0f}{ratio}")
mib = 1024 * 1024
if "l1_bytes" in s:
    print(f"L1 capacity found: {s['l1_bytes'] / 1024:.0f} KiB")
if "l2_near_bytes" in s:
    print(f"near L2 partition ends at: {s['l2_near_bytes'] / mib:.1f} MiB")
if "l2_bytes" in s:
    print(f"L2 capacity found: {s['l2_bytes'] / mib:.1f} MiB of {s['l2_reported_bytes'] / mib:.1f} MiB reported "
          f"(ratio {s['l2_detected_over_reported']:.2f})")
else:
    print("L2 capacity: not found")
# Past the plateau: the L1-bypassing chase between the capacity found and
# twice the reported size, where a far L2 partition would show before DRAM.
cg = next(x for x in lat["series"] if x.get("variant") == "cg")
lo = s.get("l2_bytes", 0)
around = [(q["x"], q["values"]["latency_cycles"]) for q in cg["points"] if lo < q["x"] <= 2 * s["l2_reported_bytes"]]
if around:
    print("ld.cg latency past it: " + ", ".join(f"{x / mib:.0f} MiB {c:.0f}" for x, c in around) + " cycles")
sp = res["memory_spaces"]["summary"]
order = sorted((sp[v + "_cycles"], v) for v in ("registers", "shared", "constant", "l1", "l2", "dram", "local", "texture"))
print("memory spaces, fastest first (cycles): " + " < ".join(f"{v} {c:.0f}" for c, v in order))
print("guide's order (registers, shared, constant, then global/local/texture): "
      + ("holds" if sp.get("guide_order_holds") == 1 else "departs from it:"))
for n in res["memory_spaces"]["notes"]:
    if "departs" in n:
        print("  " + n)
PY
