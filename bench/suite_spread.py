#!/usr/bin/env python3
"""Run-to-run spread of the headline figures over several standard suites on one GPU.

    bench/suite_spread.py RUN.json RUN.json [RUN.json ...] [--experiments a,b,...]
                          [--tolerance 0.03] [--json FILE]

Every run must come from the same device model (the runs' `device.name`). For
each experiment and each numeric figure of its `summary`, the spread is the
largest value over the smallest, minus one (figures that are 0 in every run,
or that change sign, are listed with their values and no ratio). A figure
beyond the tolerance is listed with the evidence that decides whether it is
the platform or the suite: the experiment's own within-run noise, the median
over its timed points of (9th decile - 1st decile) / median of the launch
times. A figure whose spread is within a few times that noise is "launch
noise" (the launches themselves vary that much on this machine); one far beyond
it is "between runs": each run's launches agree, the runs do not, so what
differs is the process's starting state (the driver's and the operating
system's, for work timed on the host), or a choice between near-equal
candidates (a best size or stage count) that flips.

Exit status 0 when every run could be read and the devices match, 2 otherwise.
"""
import argparse
import gzip
import json
import math
import statistics
import sys


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return json.loads(raw)


def by_experiment(run):
    return {r["experiment"]["name"]: r for r in run.get("results", [])}


def launch_noise(result):
    """Median over the timed points of the decile range over the median."""
    ratios = []
    for series in result.get("series", []):
        for p in series.get("points", []):
            t = p.get("time_ms") or {}
            q = t.get("quantiles") or []
            if len(q) == 9 and t.get("median", 0) > 0:
                ratios.append((q[8] - q[0]) / t["median"])
    return statistics.median(ratios) if ratios else None


def spread(values):
    if all(v == 0 for v in values):
        return 0.0
    if min(values) > 0:
        return max(values) / min(values) - 1
    if max(values) < 0:
        return min(values) / max(values) - 1
    return None  # changes sign (a fitted intercept near 0): no ratio


# Within this many times the launches' own decile range, a spread is the platform's.
NOISE_FACTOR = 3.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--experiments", default="", help="comma-separated; default every experiment in the first run")
    ap.add_argument("--tolerance", type=float, default=0.03)
    ap.add_argument("--json", help="write every figure's values and spread here")
    a = ap.parse_args()
    if len(a.runs) < 2:
        print("suite_spread: give at least two runs", file=sys.stderr)
        return 2
    try:
        runs = [load(p) for p in a.runs]
    except (OSError, ValueError) as e:
        print(f"suite_spread: {e}", file=sys.stderr)
        return 2
    devices = {r.get("device", {}).get("name") for r in runs}
    if len(devices) != 1:
        print(f"suite_spread: the runs come from different devices: {sorted(map(str, devices))}", file=sys.stderr)
        return 2
    tables = [by_experiment(r) for r in runs]
    names = [n for n in a.experiments.split(",") if n] or list(tables[0])
    report, beyond = [], 0
    print(f"{len(runs)} runs on {devices.pop()}; tolerance {100 * a.tolerance:.1f} %")
    for name in names:
        results = [t.get(name) for t in tables]
        if any(r is None for r in results):
            print(f"{name}: not in every run")
            continue
        if any(r.get("applicable") is False for r in results):
            print(f"{name}: not applicable")
            continue
        noise = [launch_noise(r) for r in results]
        noise = max(n for n in noise if n is not None) if any(n is not None for n in noise) else None
        keys = sorted(k for k, v in results[0].get("summary", {}).items() if isinstance(v, (int, float)))
        rows = []
        for k in keys:
            values = [r.get("summary", {}).get(k) for r in results]
            if any(not isinstance(v, (int, float)) or (isinstance(v, float) and math.isnan(v)) for v in values):
                continue
            s = spread(values)
            kind = None
            if s is None or s > a.tolerance:
                kind = ("launch noise" if (s is not None and noise is not None and s <= NOISE_FACTOR * noise)
                        else "between runs")
                beyond += 1
            rows.append({"figure": k, "values": values, "spread": s, "kind": kind})
        worst = max((r["spread"] for r in rows if r["spread"] is not None), default=0.0)
        noise_text = f"{100 * noise:.1f} %" if noise is not None else "n/a"
        print(f"{name}: {len(rows)} figures, largest spread {100 * worst:.2f} %, launch noise (decile range) {noise_text}")
        for r in rows:
            if r["kind"]:
                vals = ", ".join(f"{v:.6g}" for v in r["values"])
                sp = "changes sign" if r["spread"] is None else f"{100 * r['spread']:.2f} %"
                print(f"    {r['figure']}: {sp} ({vals}) -> {r['kind']}")
        report.append({"experiment": name, "launch_noise": noise, "figures": rows})
    print(f"{beyond} figures beyond {100 * a.tolerance:.1f} %")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"tolerance": a.tolerance, "runs": a.runs, "experiments": report}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
