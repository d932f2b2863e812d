#!/usr/bin/env bash
# Async copies, constant memory, the stencil and textures in one run on one
# device: async/sync for 4/8/16-byte elements at a few copy counts, constant
# time at k = 32 over k = 1, the stencil's constant / __ldg time and its
# bandwidth over our stream copy (target >= 0.80 for large n), and the texture
# / global time for the rotation.
#   bench/memory_spaces.sh [path/to/gmlab] [extra gmlab run options...]
set -euo pipefail
GMLAB=${1:-gmlab}
shift || true
json=$(mktemp)
trap 'rm -f "$json"' EXIT
"$GMLAB" run async_copy constant_broadcast stencil texture --json "$json" "$@" >/dev/null
python3 - "$json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
res = {r["experiment"]["name"]: r for r in run["results"]}
print(f"device: {run['device']['name']}")
a = res["async_copy"]
print("async / sync, clock64 cycles per element:")
by = {}
for s in a["series"]:
    if s["variant"] == "async":
        for p in s["points"]:
            by.setdefault(s["attributes"]["word_size"], {})[int(p["x"])] = p["values"]["async_over_sync_cycles"]
regs = {(s["variant"], s["attributes"]["word_size"]): s["attributes"]["registers"] for s in a["series"]}
for w, pts in sorted(by.items()):
    picks = [c for c in (1, 4, 7, 16, 32, 64) if c in pts] + [max(pts)]
    line = "  ".join(f"count {c}: {pts[c]:.2f}" for c in dict.fromkeys(picks))
    print(f"  {w:>2}-byte: {line}   (registers sync {regs[('sync', w)]}, async {regs[('async', w)]})")
c = res["constant_broadcast"]["summary"]
print(f"constant memory: k=32 / k=1 time = {c['k32_over_k1']:.1f}  (linear fit: {c['fit_ns_per_address']:.3f} ns per address + {res['constant_broadcast']['series'][0]['attributes']['fit_ns_intercept']:.3f} ns)")
s = res["stencil"]["summary"]
print(f"stencil (n = {res['stencil']['series'][0]['points'][0]['x']:.0f}): constant / ldg time = {s['constant_time_over_ldg']:.3f};"
      f" bandwidth over our copy: constant {s['constant_over_copy']:.3f}, ldg {s['ldg_over_copy']:.3f} (target >= 0.80)")
t = res["texture"]["summary"]
print(f"texture rotation: texture / global time = {t['texture_over_global_time']:.3f}, ldg / global = {t['ldg_over_global_time']:.3f};"
      f" capability checks passed: {t['capabilities_passed']:.0f}")
PY
