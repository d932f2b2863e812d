#!/usr/bin/env python3
"""What counting costs: the standard suite with --counters off against --counters auto.

usage: counters_overhead.py SUITE-OFF.json SUITE-AUTO.json

Both documents come from `gmlab run --json` on the same machine. Prints per
experiment the points, the seconds spent counting (the result's
counters.seconds), the model agreement and the median over points of the
timed median with counters over the one without (timing must not change:
the counted launch is an extra one), then the totals. The wall time of each
run is measured by the caller; this adds what the documents say.
"""
import json
import sys


def main():
    off, on = (json.load(open(p)) for p in sys.argv[1:3])
    by_name = {r["experiment"]["name"]: r for r in off["results"]}
    print("| experiment | points | counted points | counting s | of which launches s | model_agreement | timed median with / without counters |")
    print("|---|---|---|---|---|---|---|")
    total_s = 0.0
    all_ratios = []
    for b in on["results"]:
        name = b["experiment"]["name"]
        a = by_name.get(name)
        ratios = []
        if a:
            for sa, sb in zip(a["series"], b["series"]):
                for pa, pb in zip(sa["points"], sb["points"]):
                    if pa["time_ms"]["median"] > 0:
                        ratios.append(pb["time_ms"]["median"] / pa["time_ms"]["median"])
        ratios.sort()
        all_ratios += ratios
        points = sum(len(s["points"]) for s in b["series"])
        counted = sum(1 for s in b["series"] for p in s["points"] if p.get("counters"))
        c = b.get("counters", {})
        total_s += c.get("seconds", 0.0)
        agreement = b.get("summary", {}).get("model_agreement")
        launches = c.get("launch_seconds")
        print(f"| {name} | {points} | {counted} | {c.get('seconds', 0.0):.2f} | "
              f"{'-' if launches is None else f'{launches:.2f}'} | "
              f"{'-' if agreement is None else f'{agreement:.3f}'} | {ratios[len(ratios) // 2]:.3f} |" if ratios else
              f"| {name} | {points} | {counted} | {c.get('seconds', 0.0):.2f} | - | - | - |")
        for e in c.get("errors", [])[:2]:
            print(f"|   counting failed: {e[:200]} | | | | | | |")
    first = on["results"][0].get("counters", {}) if on["results"] else {}
    print(f"\ncounters available: {first.get('available')}; reason: {first.get('reason', '-')}")
    print(f"seconds spent counting, all experiments: {total_s:.1f}")
    if all_ratios:
        all_ratios.sort()
        print(f"timed medians with / without counters, over {len(all_ratios)} points: median {all_ratios[len(all_ratios) // 2]:.3f}, "
              f"10th percentile {all_ratios[len(all_ratios) // 10]:.3f}, 90th {all_ratios[9 * len(all_ratios) // 10]:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
