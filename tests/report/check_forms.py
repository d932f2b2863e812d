#!/usr/bin/env python3
"""`gmlab report` and `gmlab compare` read both forms of a run document.

    check_forms.py --gmlab PATH --writer PATH_TO_gm_unit_tests [--committed RUN.json]

The unit tests' writer makes, in a temporary folder, a compact gmlab.run/1.3
document (sample_run.json), the same run in the first version with every
sample (sample_run_v1.json) and a quick run (sample_run_quick.json). Checks:
the text report of each form shows the same medians; compare of the two forms
finds every point equal and flags none; a quick run is labelled as such in
the report and in compare; a committed result file (gmlab.run/1 with
samples, when given) still reports. Prints one line per check and
"N passed, M failed" last.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(f"{'ok' if ok else 'FAILED'}: {name}{(' - ' + detail) if detail and not ok else ''}")


def gmlab(exe, *args):
    p = subprocess.run([exe, *args], capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout + p.stderr


def medians(text):
    """The median column of the report's point tables, in order."""
    out = []
    for line in text.splitlines():
        m = re.match(r"^\s+(\d+)\s+(\d+\.\d{4})\s", line)
        if m:
            out.append(m.group(2))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gmlab", required=True)
    ap.add_argument("--writer", required=True)
    ap.add_argument("--committed")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="gmlab-forms-") as d:
        w = subprocess.run([a.writer, "--gtest_filter=ResultDocument.WritesSamples"], cwd=d, capture_output=True, text=True)
        check("the unit tests wrote the sample documents", w.returncode == 0, w.stdout[-500:])
        compact, v1, quick = (os.path.join(d, f) for f in ("sample_run.json", "sample_run_v1.json", "sample_run_quick.json"))
        with open(compact) as f:
            c = json.load(f)
        with open(v1) as f:
            o = json.load(f)
        tc, to = c["results"][0]["series"][0]["points"][0]["time_ms"], o["results"][0]["series"][0]["points"][0]["time_ms"]
        check("the compact document has deciles and no samples", "quantiles" in tc and "samples" not in tc, str(tc))
        check("the version-1 document has samples and no deciles", "samples" in to and "quantiles" not in to, str(to))
        check("the two documents are of both versions", (c["schema"], o["schema"]) == ("gmlab.run/1.3", "gmlab.run/1"))

        rc_c, out_c = gmlab(a.gmlab, "report", compact)
        rc_o, out_o = gmlab(a.gmlab, "report", v1)
        check("report reads the compact 1.3 document", rc_c == 0 and "stride_copy" in out_c, out_c[-400:])
        check("report reads the version-1 document with samples", rc_o == 0 and "stride_copy" in out_o, out_o[-400:])
        check("both forms report the same medians", medians(out_c) == medians(out_o) and len(medians(out_c)) == 2,
              f"{medians(out_c)} vs {medians(out_o)}")
        check("a standard run is not labelled quick", "QUICK RUN" not in out_c)
        rc_m, out_m = gmlab(a.gmlab, "report", compact, "--markdown")
        check("report --markdown reads the compact document", rc_m == 0 and "stride_copy" in out_m, out_m[-400:])

        rc, out = gmlab(a.gmlab, "compare", v1, compact)
        # The headline tables only: the counters' own tables (counters.*) follow them.
        headline = "".join(t for t in re.split(r"(?m)^(?===)", out) if "(counters." not in t.split("\n", 1)[0])
        ratios = re.findall(r"\s(\d+\.\d{3})\s*(\*?)\s*$", headline, re.M)
        check("compare reads one form against the other", rc == 0 and len(ratios) == 2, out[-600:])
        check("compare finds the two forms equal, nothing flagged",
              all(r == "1.000" and not flag for r, flag in ratios), str(ratios))
        counted = "".join(t for t in re.split(r"(?m)^(?===)", out) if "(counters." in t.split("\n", 1)[0])
        counter_ratios = re.findall(r"\s(\d+\.\d{3})\s*(\*?)\s*$", counted, re.M)
        check("compare compares the counters too, equal in both forms",
              len(counter_ratios) >= 2 and all(r == "1.000" and not flag for r, flag in counter_ratios), counted[-600:])

        rc_q, out_q = gmlab(a.gmlab, "report", quick)
        check("a quick run reports, labelled as quick", rc_q == 0 and "QUICK RUN (gmlab run --quick)" in out_q, out_q[-400:])
        rc, out = gmlab(a.gmlab, "compare", compact, quick)
        check("compare says which run is quick", rc == 0 and "B is a quick run" in out, out[-400:])

        broken = os.path.join(d, "broken.json")
        c["results"][0]["series"][0]["points"][0]["time_ms"]["quantiles"] = [1, 2]
        with open(broken, "w") as f:
            json.dump(c, f)
        rc, out = gmlab(a.gmlab, "report", broken)
        check("report refuses deciles that are not nine numbers", rc != 0 and "quantiles" in out, out[-400:])

    if a.committed:
        rc, out = gmlab(a.gmlab, "report", a.committed)
        check(f"report reads the committed {os.path.basename(a.committed)}", rc == 0 and "stream" in out, out[-400:])
    failed = results.count(False)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
