#!/usr/bin/env python3
"""Checks the load table of src/experiments/alignment/alignment.cuh against the compiled code.

Each entry says how many global loads and stores one record costs in a kernel.
With cuobjdump the sm_90 SASS of the built library is read (LDG / STG per
function); without it the kernels are compiled to sm_90 PTX, where every
ld.global / st.global becomes one LDG / STG. Exit 77 when neither is possible.
"""
import argparse
import re
import shutil
import subprocess
import sys

ENTRY = re.compile(r'\{"(alignment_\w+)",\s*"\w+",\s*(\d+),\s*(\d+),\s*(\d+),\s*(\d+),\s*(\d+)\}')


def table(path):
    rows = {}
    for m in ENTRY.finditer(open(path).read()):
        rows[m.group(1)] = (int(m.group(5)), int(m.group(6)))
    if not rows:
        sys.exit(f"no table entries found in {path}")
    return rows


def key(name):
    # Itanium mangling writes each name with its length first: 17alignment_packed8E.
    return f"{len(name)}{name}E"


def counts_from_sass(cuobjdump, library):
    out = subprocess.run([cuobjdump, "-sass", library], capture_output=True, text=True)
    if out.returncode != 0:
        return None
    counts, arch, current = {}, None, None
    for line in out.stdout.splitlines():
        m = re.search(r"arch = (sm_\d+)", line)
        if m:
            arch = m.group(1)
        m = re.search(r"Function : (\S+)", line)
        if m:
            current = (m.group(1), arch)
            counts[current] = [0, 0]
            continue
        if current:
            if re.search(r"\bLDG(\.|\s)", line):
                counts[current][0] += 1
            if re.search(r"\bSTG(\.|\s)", line):
                counts[current][1] += 1
    sm90 = {f: c for (f, a), c in counts.items() if a == "sm_90"}
    return sm90 or None


def counts_from_ptx(nvcc, source, includes):
    cmd = [nvcc, "-std=c++17", "-arch=sm_90", "-ptx", source, "-o", "-"] + [f"-I{i}" for i in includes]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("nvcc -ptx failed:\n" + out.stderr)
    counts = {}
    for m in re.finditer(r"\.entry\s+(\S+)\((.*?)\n\}", out.stdout, re.S):
        body = m.group(2)
        counts[m.group(1)] = [len(re.findall(r"\bld\.global", body)), len(re.findall(r"\bst\.global", body))]
    return counts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--table", required=True)
    ap.add_argument("--library")
    ap.add_argument("--source")
    ap.add_argument("--nvcc")
    ap.add_argument("--include", action="append", default=[])
    args = ap.parse_args()
    rows = table(args.table)
    counts, what = None, ""
    cuobjdump = shutil.which("cuobjdump")
    if cuobjdump and args.library:
        counts, what = counts_from_sass(cuobjdump, args.library), "sm_90 SASS of " + args.library
    if counts is None and args.nvcc and args.source:
        counts, what = counts_from_ptx(args.nvcc, args.source, args.include), "sm_90 PTX of " + args.source
    if counts is None:
        print("neither cuobjdump with sm_90 code nor nvcc available: load table not checked")
        return 77
    bad = 0
    for name, want in rows.items():
        found = [c for f, c in counts.items() if key(name) in f]
        if len(found) != 1:
            print(f"{name}: {len(found)} functions found in the {what}")
            bad += 1
            continue
        got = tuple(found[0])
        status = "ok" if got == want else "MISMATCH"
        bad += got != want
        print(f"{name:32} table loads/stores {want[0]}/{want[1]}, compiled {got[0]}/{got[1]}  {status}")
    print(f"checked {len(rows)} kernels against the {what}: {bad} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
