#!/usr/bin/env python3
"""Compares gmlab's own counters with Nsight Compute on the same kernels.

usage: counters_vs_ncu.py RUN.json NCU.csv

RUN.json: gmlab run offset_copy stride_copy ... --counters on --json (guide
          variant, no warm-up, one timed launch per point).
NCU.csv:  ncu --csv --metrics <the metrics below> -k regex:copy_guide
          gmlab run <the same> --counters off
Per point gmlab launches the kernel the same number of times (the checked
launch, then the timed one): the last launch of each point is compared, as
gmlab counts an extra launch of the same kernel on the same data, after the
same L2 flush that ncu's cache control does. Prints one Markdown row per point
and exits 1 when a DRAM figure differs by more than 2 % or sectors per request
differ at all.
"""
import csv
import json
import math
import sys

LD_S, LD_R = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
ST_S, ST_R = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"


def ncu_kernels(path):
    with open(path, newline="") as f:
        lines = [line for line in f if line.startswith('"')]
    by_id = {}
    for r in csv.DictReader(lines):
        k = by_id.setdefault(int(r["ID"]), {"kernel": r["Kernel Name"]})
        try:
            k[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
        except ValueError:
            k[r["Metric Name"]] = math.nan
    return [by_id[i] for i in sorted(by_id)]


def ratio(a, b):
    return a / b if b else math.nan


def main():
    run = json.load(open(sys.argv[1]))
    kernels = ncu_kernels(sys.argv[2])
    points = [(r["experiment"]["name"], s["name"], p) for r in run["results"] for s in r["series"] for p in s["points"]]
    if not points or len(kernels) % len(points):
        print(f"ncu profiled {len(kernels)} kernels for {len(points)} points: not the same number per point")
        return 1
    per_point = len(kernels) // len(points)
    worst, mismatched = 0.0, 0
    print(f"ncu profiled {len(kernels)} launches, {per_point} per point; the last of each point is compared.\n")
    print("| experiment | series | x | model sectors/req | gmlab ld | ncu ld | gmlab st | ncu st | "
          "DRAM read gmlab | DRAM read ncu | diff % | DRAM write gmlab | DRAM write ncu | diff % |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for i, (exp, series, p) in enumerate(points):
        k = kernels[per_point * (i + 1) - 1]
        c = p.get("counters", {})
        ours_ld, ours_st = c.get("sectors_per_request_ld", math.nan), c.get("sectors_per_request_st", math.nan)
        ncu_ld, ncu_st = ratio(k.get(LD_S, math.nan), k.get(LD_R, math.nan)), ratio(k.get(ST_S, math.nan), k.get(ST_R, math.nan))
        if not (abs(ours_ld - ncu_ld) < 1e-9 and abs(ours_st - ncu_st) < 1e-9):
            mismatched += 1
        cells = []
        for m in ("dram__bytes_read.sum", "dram__bytes_write.sum"):
            ours, theirs = c.get(m, math.nan), k.get(m, math.nan)
            d = 100.0 * (ours - theirs) / theirs if theirs else math.nan
            worst = max(worst, abs(d)) if not math.isnan(d) else math.inf
            cells += [f"{ours:,.0f}", f"{theirs:,.0f}", f"{d:+.2f}"]
        print(f"| {exp} | {series} | {p['x']:g} | {p['predicted']['sectors_per_request']:g} | {ours_ld:g} | {ncu_ld:g} | "
              f"{ours_st:g} | {ncu_st:g} | " + " | ".join(cells) + " |")
    print(f"\nlargest DRAM difference: {worst:.2f} %; points where sectors per request differ from ncu: {mismatched}")
    return 0 if worst <= 2.0 and mismatched == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
