#!/usr/bin/env python3
"""Runs the fuzz_validate libFuzzer target for a bounded time on a seed corpus
made from a real run document: the whole run with raw samples trimmed, each
result alone, and a few small broken variants."""
import argparse
import json
import os
import shutil
import subprocess
import sys

# tests/server, where the shared helpers are (harness.py, zstd_codec.py, fixtures/).
SERVER_TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, SERVER_TESTS)
from harness import load_document, trimmed  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--fuzzer", required=True)
    p.add_argument("--document", required=True)
    p.add_argument("--workdir", required=True)
    p.add_argument("--seconds", type=int, default=20)
    a = p.parse_args()
    shutil.rmtree(a.workdir, ignore_errors=True)
    corpus = os.path.join(a.workdir, "corpus")
    os.makedirs(corpus)
    doc = trimmed(load_document(a.document), 2)
    seeds = []
    for r in doc["results"]:
        one = dict(doc)
        one["results"] = [r]
        seeds.append(json.dumps(one))
    seeds.append(json.dumps(trimmed(doc, 0)))
    seeds += ['{"schema":"gmlab.run/1"}', "[[[[[[]]]]]]", '{"a":"\\ud800"}', "{}"]
    for i, s in enumerate(seeds):
        with open(os.path.join(corpus, f"seed{i:02d}.json"), "w") as f:
            f.write(s)
    longest = max(len(s) for s in seeds)
    cmd = [a.fuzzer, corpus, f"-max_total_time={a.seconds}", f"-max_len={longest + 1024}", "-rss_limit_mb=4096",
           "-timeout=10", "-print_final_stats=1", f"-artifact_prefix={a.workdir}/"]
    print(" ".join(cmd))
    sys.stdout.flush()
    rc = subprocess.call(cmd)
    ok = rc == 0
    print(f"PASS fuzz_validate ran {a.seconds} s without a crash" if ok else f"FAIL fuzz_validate exited {rc}")
    print(f"{1 if ok else 0} passed, {0 if ok else 1} failed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
