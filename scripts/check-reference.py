#!/usr/bin/env python3
"""gmlab check's embedded reference (docs/check.md, "The embedded reference"):
per GPU model, the quantiles of the check's figures over the runs committed in
results/, in the form of the server's /api/v1/gpus/{model}/quantiles.

Two kinds of committed runs feed it:
  - run documents (results/*.json, *.json.gz): the standard suite's summary
    figures that measure what a check figure measures (stream copy and triad,
    memory_spaces' L2 hit, transfer's pinned peaks);
  - gmlab check runs on an idle node: the tables of scripts/multi-gpu.sh's logs
    (results/*-multi-gpu.log.gz, the sections "gmlab check, no load") and saved
    figures documents (results/check/*-check-idle-*.figures.json[.gz]).
A figure no committed run measured for a model is listed under "not_covered"
with the reason; the check judges it by its theoretical floor, or says it is
not judged.

  python3 scripts/check-reference.py                 # writes tools/cli/check/check_reference.json
  python3 scripts/check-reference.py --verify FILE   # exit 1 when FILE differs from what results/ gives today
"""
import argparse
import glob
import gzip
import json
import math
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The check's figures, each with the key of its distribution (the server's
# "EXPERIMENT/FIGURE" where the standard suite measures the same thing, else
# "check/FIGURE"), its unit and its theoretical figure in a run's device block.
# The same keys are in tools/cli/check/check_judge.cpp's figure_specs().
FIGURES = [
    ("dram_copy_gbs", "stream/copy_gbs", "GB/s", "theoretical_bandwidth_gbs"),
    ("dram_triad_gbs", "stream/triad_gbs", "GB/s", "theoretical_bandwidth_gbs"),
    ("dram_sustained_gbs", "check/dram_sustained_gbs", "GB/s", "theoretical_bandwidth_gbs"),
    ("l2_copy_gbs", "check/l2_copy_gbs", "GB/s", ""),
    ("l2_hit_latency_ns", "memory_spaces/l2_ns", "ns", ""),
    ("h2d_pinned_gbs", "transfer/pinned_h2d_peak_gbs", "GB/s", "host_link"),
    ("d2h_pinned_gbs", "transfer/pinned_d2h_peak_gbs", "GB/s", "host_link"),
]
LEVELS = [0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99]  # the server's levels


def open_text(path):
    return gzip.open(path, "rt") if path.endswith(".gz") else open(path)


def quantile(sorted_values, q):  # type 7, as the server computes it
    h = (len(sorted_values) - 1) * q
    lo = math.floor(h)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (h - lo) * (sorted_values[hi] - sorted_values[lo])


def quantiles(values):
    v = sorted(values)
    return {f"{q:g}": float(f"{quantile(v, q):.6g}") for q in LEVELS}


def theoretical_of(device, key):
    if key == "host_link":
        return device.get("host_link", {}).get("theoretical_gbs", 0.0)
    return device.get(key, 0.0) if key else 0.0


class Model:
    def __init__(self, name):
        self.name = name
        self.values = {f[1]: [] for f in FIGURES}
        self.sources = {f[1]: set() for f in FIGURES}
        self.theoretical = {}  # device key -> value, from the model's run documents

    def add(self, key, value, source):
        if isinstance(value, (int, float)) and math.isfinite(value) and value > 0:
            self.values[key].append(float(value))
            self.sources[key].add(source)


def read_run_document(path, models):
    try:
        doc = json.load(open_text(path))
    except (OSError, ValueError):
        return
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
        return
    device = doc.get("device", {})
    model = models.setdefault(device.get("name", ""), Model(device.get("name", "")))
    for _, _, _, tkey in FIGURES:
        if tkey and theoretical_of(device, tkey) > 0:
            model.theoretical[tkey] = theoretical_of(device, tkey)
    for r in doc["results"]:
        if not isinstance(r, dict) or r.get("quick"):
            continue
        name = r.get("experiment", {}).get("name", "")
        summary = r.get("summary", {})
        for _, key, _, _ in FIGURES:
            experiment, figure = key.split("/")
            if experiment == name and figure in summary:
                model.add(key, summary[figure], os.path.basename(path))


GPU_LINE = re.compile(r"^GPU (\d+) (.+) \(([^)]*)\): (\w+)$")
ROW = re.compile(r"^  ([a-z0-9_]+)\s+([0-9.]+) ")


def read_check_log(path, models):
    """The tables of the idle checks in a scripts/multi-gpu.sh log."""
    by_key = {f[0]: f[1] for f in FIGURES}
    idle, model = False, None
    for line in open_text(path):
        line = line.rstrip("\n")
        if line.startswith("=== "):
            idle = "gmlab check, no load" in line
            model = None
            continue
        if not idle:
            continue
        m = GPU_LINE.match(line)
        if m:
            model = models.setdefault(m.group(2), Model(m.group(2)))
            continue
        m = ROW.match(line)
        if model and m and m.group(1) in by_key:
            model.add(by_key[m.group(1)], float(m.group(2)), os.path.basename(path))
        elif line.startswith("node:"):
            model = None


def read_check_figures(path, models):
    """A saved figures document (gmlab check --save-figures) of an idle node."""
    doc = json.load(open_text(path))
    if "figures" in doc and isinstance(doc["figures"], dict) and "gpus" in doc["figures"]:
        doc = doc["figures"]
    by_key = {f[0]: f[1] for f in FIGURES}
    for g in doc.get("gpus", []):
        if g.get("errors") or g.get("mig"):
            continue
        model = models.setdefault(g.get("name", ""), Model(g.get("name", "")))
        for figure, value in g.get("figures", {}).items():
            if figure in by_key:
                model.add(by_key[figure], value, os.path.basename(path))


def reference(results):
    models = {}
    # Run documents at the top; gmlab check's own figures documents there or in
    # results/check/, where the tests that read every run document skip them.
    paths = sorted(glob.glob(os.path.join(results, "*")) + glob.glob(os.path.join(results, "check", "*")))
    for p in paths:
        base = os.path.basename(p)
        if re.search(r"-check-idle-.*\.figures\.json(\.gz)?$", base):
            read_check_figures(p, models)
        elif base.endswith((".json", ".json.gz")):
            read_run_document(p, models)
        elif base.endswith("-multi-gpu.log.gz") or base.endswith("-multi-gpu.log"):
            read_check_log(p, models)
    out = {"schema": "gmlab.check.reference/1",
           "from": "scripts/check-reference.py over results/: standard-suite runs and gmlab check runs on idle nodes",
           "models": {}}
    for name in sorted(models):
        m = models[name]
        if not name or not any(m.values.values()):
            continue
        figures, not_covered, sources = {}, {}, set()
        for check_figure, key, unit, tkey in FIGURES:
            values = m.values[key]
            if not values:
                what = "gmlab check run" if key.startswith("check/") else "standard-suite run or gmlab check run"
                not_covered[check_figure] = f"no {what} of this model in results/ measured it"
                continue
            entry = {"n": len(values), "unit": unit, "check_figure": check_figure, "quantiles": quantiles(values),
                     "sources": sorted(m.sources[key])}
            t = m.theoretical.get(tkey, 0.0) if tkey else 0.0
            if t > 0:
                entry["fraction_quantiles"] = quantiles([v / t for v in values])
            figures[key] = entry
            sources |= m.sources[key]
        out["models"][name] = {"model": name, "uploads": len(sources), "sources": sorted(sources),
                               "figures": figures, "not_covered": not_covered}
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--results", default=os.path.join(ROOT, "results"))
    p.add_argument("--out", default=os.path.join(ROOT, "tools", "cli", "check", "check_reference.json"))
    p.add_argument("--verify", metavar="FILE", help="compare FILE with what results/ gives; write nothing")
    args = p.parse_args()
    text = json.dumps(reference(args.results), indent=1, sort_keys=True) + "\n"
    if args.verify:
        committed = open(args.verify).read()
        if committed != text:
            sys.stderr.write(f"{args.verify} differs from what scripts/check-reference.py gives from {args.results} today: "
                             "run python3 scripts/check-reference.py and commit the file\n")
            return 1
        print(f"{args.verify} is what {args.results} gives today")
        return 0
    with open(args.out, "w") as f:
        f.write(text)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
