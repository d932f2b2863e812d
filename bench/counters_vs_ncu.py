#!/usr/bin/env python3
"""Compares gmlab's own counters with Nsight Compute on the same kernels.

usage: counters_vs_ncu.py RUN.json NCU.csv
RUN.json: gmlab run ... --counters on --json (guide variant, one timed launch per point).
NCU.csv:  ncu --csv --metrics ... -k regex:copy_guide gmlab run <same> --counters off
Per point gmlab launches the kernel twice (the checked launch and the timed
one); the timed one, the second, is compared. Prints one Markdown row per
point and exits 1 when a DRAM figure differs by more than 2 %.
"""
import csv
import json
import sys


def ncu_kernels(path):
    rows = []
    with open(path, newline="") as f:
        lines = [l for l in f if l.startswith('"')]
    by_id = {}
    for r in csv.DictReader(lines):
        k = by_id.setdefault(int(r["ID"]), {"kernel": r["Kernel Name"]})
        k[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    for i in sorted(by_id):
        rows.append(by_id[i])
    return rows


def main():
    run = json.load(open(sys.argv[1]))
    kernels = ncu_kernels(sys.argv[2])
    points = []
    for r in run["results"]:
        for s in r["series"]:
            for p in s["points"]:
                points.append((r["experiment"]["name"], s["name"], p))
    if len(kernels) != 2 * len(points):
        print(f"ncu profiled {len(kernels)} kernels for {len(points)} points (expected {2 * len(points)})")
        return 1
    worst = 0.0
    print("| experiment | series | x | model sectors/req | counter ld | counter st | ncu ld | DRAM read (ours) | DRAM read (ncu) | diff % | DRAM write (ours) | DRAM write (ncu) | diff % |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for i, (exp, series, p) in enumerate(points):
        k = kernels[2 * i + 1]
        c = p.get("counters", {})
        ncu_spr = k["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] / k["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]
        diffs = []
        cells = []
        for m in ("dram__bytes_read.sum", "dram__bytes_write.sum"):
            ours, theirs = c.get(m, float("nan")), k[m]
            d = 100.0 * (ours - theirs) / theirs if theirs else float("nan")
            diffs.append(abs(d))
            cells += [f"{ours:,.0f}", f"{theirs:,.0f}", f"{d:+.2f}"]
        worst = max([worst] + diffs)
        print(f"| {exp} | {series} | {p['x']:g} | {p['predicted']['sectors_per_request']:g} | "
              f"{c.get('sectors_per_request_ld', float('nan')):g} | {c.get('sectors_per_request_st', float('nan')):g} | "
              f"{ncu_spr:g} | " + " | ".join(cells) + " |")
    print(f"\nlargest DRAM difference: {worst:.2f} %")
    return 0 if worst <= 2.0 else 1


if __name__ == "__main__":
    sys.exit(main())
