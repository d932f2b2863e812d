#!/usr/bin/env python3
"""How long the standard suite takes, and how far its key figures are from a long run.

    bench/suite_time.py --gmlab build/tools/cli/gmlab [--out DIR] [--device N]
                        [--long-min-time-ms 500] [--long-max-repetitions 1000]
                        [--long-groups 4] [--long-runs 2] [--skip-long]
                        [--long-json FILE ... [--long-json FILE ...]]

1. Runs the standard suite (`gmlab run --json DIR/standard.json`) and times each
   experiment: gmlab prints each experiment's tables as soon as it is measured,
   so the time between two experiments' headings is the second one's time (the
   first one's includes opening the device).
2. Runs the same suite as a long run: `--min-time-ms 500 --max-repetitions
   1000` (ten times the old default minimum time, and the old repetition cap,
   so that short kernels are timed a thousand times), in --long-groups
   processes so that a cut-off run loses only one group; --long-runs times
   (two by default), because a figure that two long runs do not reproduce to
   the tolerance cannot be asked of the standard suite either.
3. Prints per experiment the standard-suite time and the largest relative
   difference of a headline key figure (the result's "summary") from the
   nearest long run, then the totals, and the size of the standard run as
   gmlab-upload sends it (compact JSON, gzip). A figure beyond the tolerance is
   listed with the long runs' own spread (largest over smallest, minus one):
   "noise" when that spread is beyond the tolerance too (the figure is not
   reproducible to it on this machine), "suite" when the long runs agree and
   only the standard suite is off. Writes everything to DIR/suite_time.json.

Exit status 0 when both runs completed, 1 otherwise.
"""
import argparse
import gzip
import json
import os
import re
import subprocess
import sys
import time

HEADING = re.compile(r"^== ([a-z][a-z0-9_]*)( — | skipped)")


def run_timed(cmd, log_path, cwd):
    """Runs cmd with its output to log_path; returns (exit code, wall seconds,
    [(experiment, seconds since the previous one)])."""
    start = time.monotonic()
    last = start
    per = []
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1, cwd=cwd)
    log = open(log_path, "w")
    for line in proc.stdout:
        log.write(line)
        m = HEADING.match(line)
        if m:
            now = time.monotonic()
            per.append((m.group(1), now - last))
            last = now
    rc = proc.wait()
    log.close()
    return rc, time.monotonic() - start, per


def load(path):
    with open(path) as f:
        return json.load(f)


def upload_bytes(run):
    """The run as gmlab-upload sends it: identifying fields removed, compact JSON, gzip."""
    doc = json.loads(json.dumps(run))
    for k in ("uuid", "pci_bus_id"):
        doc.get("device", {}).pop(k, None)
    text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()
    return len(text), len(gzip.compress(text, 6))


def relative(a, b):
    if b == 0:
        return abs(a - b)
    return abs(a - b) / abs(b)


def long_spread(values):
    """How far the long runs are apart: largest over smallest magnitude, minus one."""
    lo, hi = min(abs(x) for x in values), max(abs(x) for x in values)
    if lo == 0:
        return 0.0 if hi == 0 else float("inf")
    return hi / lo - 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gmlab", default="", help="the gmlab to run (not needed with --standard-json and --long-json)")
    ap.add_argument("--standard-json", default="", help="judge this standard run instead of running one")
    ap.add_argument("--out", default=".")
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--long-min-time-ms", type=float, default=500)
    ap.add_argument("--long-max-repetitions", type=int, default=1000)
    ap.add_argument("--long-groups", type=int, default=4)
    ap.add_argument("--skip-long", action="store_true", help="only the standard suite and its size")
    ap.add_argument("--long-runs", type=int, default=2, help="how many long runs to make (each in --long-groups processes)")
    ap.add_argument("--long-json", nargs="+", action="append", default=[],
                    help="the files of one long run (repeat the option for each run) instead of running them")
    ap.add_argument("--tolerance", type=float, default=0.02, help="a key figure further than this from the long run is flagged")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    dev = ["-d", str(a.device)] if a.device else []
    if not a.gmlab and not (a.standard_json and a.long_json):
        ap.error("--gmlab is needed unless both --standard-json and --long-json are given")
    gmlab = os.path.abspath(a.gmlab) if a.gmlab else ""

    if a.standard_json:
        std_json, rc, total, per = a.standard_json, 0, float("nan"), []
    else:
        std_json = os.path.join(a.out, "standard.json")
        rc, total, per = run_timed([gmlab, "run", "--json", "standard.json"] + dev, os.path.join(a.out, "standard.txt"), a.out)
        print(f"standard suite: exit {rc}, {total:.1f} s", flush=True)
    if rc != 0 or not os.path.exists(std_json):
        return 1
    standard = load(std_json)
    names = [r["experiment"]["name"] for r in standard["results"]]
    raw, gz = upload_bytes(standard)

    # long_runs[i][experiment]: the result of long run i.
    long_runs = []
    long_wall = 0.0
    long_ok = True
    for files in a.long_json:
        long_runs.append({r["experiment"]["name"]: r for path in files for r in load(path)["results"]})
    if not a.skip_long and not a.long_json:
        groups = max(1, min(a.long_groups, len(names)))
        size = (len(names) + groups - 1) // groups
        for run in range(max(1, a.long_runs)):
            results = {}
            for g in range(groups):
                part = names[g * size:(g + 1) * size]
                if not part:
                    continue
                path = os.path.join(a.out, f"long{run + 1}-{g}.json")
                cmd = [gmlab, "run", *part, "--json", os.path.basename(path), "--min-time-ms", f"{a.long_min_time_ms:g}",
                       "--max-repetitions", str(a.long_max_repetitions)] + dev
                rc_l, wall, _ = run_timed(cmd, os.path.join(a.out, f"long{run + 1}-{g}.txt"), a.out)
                long_wall += wall
                print(f"long run {run + 1}, group {g + 1}/{groups} ({', '.join(part)}): exit {rc_l}, {wall:.1f} s", flush=True)
                long_ok = long_ok and rc_l == 0
                if os.path.exists(path):
                    results.update({r["experiment"]["name"]: r for r in load(path)["results"]})
            long_runs.append(results)

    seconds = dict(per)
    rows = []
    worst_all = (0.0, "", "")
    beyond = []
    for r in standard["results"]:
        name = r["experiment"]["name"]
        row = {"experiment": name, "seconds": round(seconds.get(name, float("nan")), 2), "keys": len(r.get("summary", {}))}
        longs = [run[name] for run in long_runs if name in run]
        if longs:
            worst = (0.0, "")
            for k, v in r.get("summary", {}).items():
                values = [lr["summary"][k] for lr in longs if isinstance(lr.get("summary", {}).get(k), (int, float))]
                if not values or not isinstance(v, (int, float)):
                    continue
                d = min(relative(v, x) for x in values)  # from the nearest long run
                if d > worst[0] or not worst[1]:
                    worst = (d, k)
                if d > a.tolerance:
                    spread = long_spread(values)
                    beyond.append({"experiment": name, "key": k, "standard": v, "long": values, "difference": d,
                                   "long_spread": spread,
                                   "kind": "noise" if len(values) > 1 and spread > a.tolerance else "suite"})
            row["largest_difference"] = worst[0]
            row["largest_key"] = worst[1]
            if worst[0] > worst_all[0]:
                worst_all = (worst[0], name, worst[1])
        rows.append(row)

    print()
    print(f"{'experiment':20s} {'standard s':>10s} {'keys':>5s} {'largest diff':>13s}  key")
    for row in rows:
        diff = f"{100 * row['largest_difference']:.2f} %" if "largest_difference" in row else "-"
        print(f"{row['experiment']:20s} {row['seconds']:10.2f} {row['keys']:5d} {diff:>13s}  {row.get('largest_key', '')}")
    print(f"{'total (wall)':20s} {total:10.2f}")
    if long_runs:
        noise = [b for b in beyond if b["kind"] == "noise"]
        print(f"largest difference from the nearest of {len(long_runs)} long runs: {100 * worst_all[0]:.2f} % "
              f"({worst_all[1]} {worst_all[2]}); {len(beyond)} key figures beyond {100 * a.tolerance:.0f} %, "
              f"{len(noise)} of them not reproduced to it by the long runs either; long runs {long_wall:.1f} s")
        for b in beyond:
            longs = ", ".join(f"{x:.6g}" for x in b["long"])
            print(f"  [{b['kind']}] {b['experiment']} {b['key']}: standard {b['standard']:.6g}, long {longs} "
                  f"({100 * b['difference']:.2f} %; long runs apart {100 * b['long_spread']:.2f} %)")
    print(f"upload: {raw} bytes of JSON, {gz} bytes gzipped ({gz / 1024:.1f} KiB)")
    with open(os.path.join(a.out, "suite_time.json"), "w") as f:
        json.dump({"device": standard["device"].get("name"), "standard_seconds": total, "experiments": rows,
                   "largest_difference": {"value": worst_all[0], "experiment": worst_all[1], "key": worst_all[2]},
                   "beyond_tolerance": beyond, "tolerance": a.tolerance, "long_runs": len(long_runs), "long_seconds": long_wall,
                   "long_settings": {"min_time_ms": a.long_min_time_ms, "max_repetitions": a.long_max_repetitions},
                   "upload_json_bytes": raw, "upload_gzip_bytes": gz}, f, indent=1)
    return 0 if long_ok or a.skip_long or a.long_json else 1


if __name__ == "__main__":
    sys.exit(main())
