#!/usr/bin/env python3
"""Validates gmlab documents against the published JSON Schemas.

    validate.py --schema-dir docs/schema FILE... [--glob 'results/*.json']
    validate.py --schema-dir docs/schema --self-test SAMPLE_RESULT.json

The kind of each document is read from its "schema" field. --self-test checks
that the schema rejects broken variants of a valid result document.
"""
import argparse
import copy
import glob
import json
import os
import sys

import jsonschema

# One schema file per major version; its minor versions only add optional fields.
SCHEMAS = {
    "gmlab.result/1": "gmlab.result-1.schema.json",
    "gmlab.result/1.1": "gmlab.result-1.schema.json",
    "gmlab.result/1.2": "gmlab.result-1.schema.json",
    "gmlab.result/1.3": "gmlab.result-1.schema.json",
    "gmlab.run/1": "gmlab.run-1.schema.json",
    "gmlab.run/1.1": "gmlab.run-1.schema.json",
    "gmlab.run/1.2": "gmlab.run-1.schema.json",
    "gmlab.run/1.3": "gmlab.run-1.schema.json",
}


def load_validators(schema_dir):
    schemas = {}
    for kind, filename in SCHEMAS.items():
        with open(os.path.join(schema_dir, filename)) as f:
            schemas[kind] = json.load(f)
    store = {s["$id"]: s for s in schemas.values()}
    validators = {}
    for kind, schema in schemas.items():
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        resolver = jsonschema.RefResolver.from_schema(schema, store=store)
        validators[kind] = cls(schema, resolver=resolver)
    return validators


def errors_of(validators, doc):
    kind = doc.get("schema") if isinstance(doc, dict) else None
    if kind not in validators:
        return [f"unknown schema field {kind!r}"]
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}" for e in validators[kind].iter_errors(doc)]


def not_applicable(d):
    d["applicable"] = False
    d["series"] = []
    d["verification"]["elements_checked"] = 0
    d["notes"] = ["needs two or more GPUs; this machine has 1"]


BREAKERS = {
    "schema renamed": lambda d: d.__setitem__("schema", "gmlab.result/2"),
    "device missing": lambda d: d.pop("device"),
    "negative median": lambda d: d["series"][0]["points"][0]["time_ms"].__setitem__("median", -1.0),
    "zero repetitions": lambda d: d["series"][0]["points"][0]["time_ms"].__setitem__("n", 0),
    "bandwidth is text": lambda d: d["series"][0]["points"][0].__setitem__("bandwidth_gbs", "fast"),
    "verification failed": lambda d: d["verification"].__setitem__("passed", False),
    "no series": lambda d: d.__setitem__("series", []),
    "bad timestamp": lambda d: d.__setitem__("started_at", "yesterday"),
    "memory fraction too big": lambda d: d["settings"].__setitem__("memory_fraction", 2),
    "prediction is text": lambda d: d["series"][0]["points"][0]["predicted"].__setitem__("x", "y"),
    "nothing checked": lambda d: d["verification"].__setitem__("elements_checked", 0),
    "not applicable with series": lambda d: d.__setitem__("applicable", False),
    "not applicable without a note": lambda d: (not_applicable(d), d.__setitem__("notes", [])),
    "applicable is text": lambda d: d.__setitem__("applicable", "no"),
    "unknown minor version": lambda d: d.__setitem__("schema", "gmlab.result/1.7"),
    "eight deciles": lambda d: d["series"][0]["points"][0]["time_ms"].__setitem__("quantiles", [1.0] * 8),
    "decile is text": lambda d: d["series"][0]["points"][0]["time_ms"].__setitem__("quantiles", ["1"] * 9),
    "negative decile": lambda d: d["series"][0]["points"][0]["time_ms"].__setitem__("quantiles", [-1.0] * 9),
    "negative sample": lambda d: d["series"][0]["points"][0]["time_ms"].__setitem__("samples", [-1.0]),
    "quick is text": lambda d: d.__setitem__("quick", "yes"),
    "counters unavailable without a reason": lambda d: d.__setitem__("counters", {"mode": "auto", "available": False}),
    "counter is text": lambda d: d["series"][0]["points"][0].__setitem__("counters", {"dram__bytes_read.sum": "many"}),
    "negative counter": lambda d: d["series"][0]["points"][0].__setitem__("counters", {"sectors_per_request_ld": -4}),
    "counters mode unknown": lambda d: d["settings"].__setitem__("counters", "sometimes"),
    "1.3 series without a quantity": lambda d: d["series"][0].pop("quantity"),
    "unknown quantity": lambda d: d["series"][0]["quantity"].__setitem__("name", "speed"),
    "a latency with a bandwidth": lambda d: (d["series"][0]["quantity"].__setitem__("name", "latency"),
                                             d["series"][0]["points"][0].update(bytes=8.0, bandwidth_gbs=1.0)),
    "a call's cost with a DRAM fraction": lambda d: (d["series"][0]["quantity"].__setitem__("name", "time_per_call"),
                                                     d["series"][0]["points"][0].update(fraction_of_theoretical=9.9)),
}


def self_test(validators, sample_path):
    with open(sample_path) as f:
        good = json.load(f)
    assert not errors_of(validators, good), errors_of(validators, good)
    breakers = BREAKERS
    failed = 0
    # Every form of every version is valid: compact (deciles, no samples),
    # full (deciles and samples), /1 (samples, no deciles), 1.1 (no counters).
    forms = {}
    compact = copy.deepcopy(good)
    for s in compact["series"]:
        for p in s["points"]:
            p["time_ms"].pop("samples", None)
            p["time_ms"]["quantiles"] = [p["time_ms"]["median"]] * 9
    forms["compact 1.3"] = compact
    full = copy.deepcopy(compact)
    for s in full["series"]:
        for p in s["points"]:
            p["time_ms"]["samples"] = [p["time_ms"]["median"]] * p["time_ms"]["n"]
    forms["full 1.3"] = full
    v1 = copy.deepcopy(full)
    v1["schema"] = "gmlab.result/1"
    for s in v1["series"]:
        for p in s["points"]:
            p["time_ms"].pop("quantiles")
    forms["version 1 with samples"] = v1
    quick = copy.deepcopy(compact)
    quick["quick"] = True
    forms["quick run"] = quick
    # 1.1: the compact form without the counters that 1.2 adds.
    v11 = copy.deepcopy(compact)
    v11["schema"] = "gmlab.result/1.1"
    v11.pop("counters", None)
    v11["settings"].pop("counters", None)
    for s in v11["series"]:
        s.pop("agreement", None)
        for p in s["points"]:
            p.pop("counters", None)
    forms["compact 1.1 without counters"] = v11
    # 1.2: the series declare no quantity (the last release's documents).
    v12 = copy.deepcopy(compact)
    v12["schema"] = "gmlab.result/1.2"
    for s in v12["series"]:
        s.pop("quantity", None)
    forms["compact 1.2 without quantities"] = v12
    for name, doc in forms.items():
        errs = errors_of(validators, doc)
        if errs:
            print(f"REJECTED but should not: {name}: {errs}")
            failed += 1
        else:
            print(f"accepted as it should: {name}")
    # A result that does not apply (peer with one GPU) is valid: no series, nothing checked, a note.
    na = copy.deepcopy(good)
    not_applicable(na)
    if errors_of(validators, na):
        print(f"REJECTED but should not: not applicable result: {errors_of(validators, na)}")
        failed += 1
    else:
        print("accepted as it should: not applicable result")
    for name, breaker in breakers.items():
        doc = copy.deepcopy(good)
        breaker(doc)
        if errors_of(validators, doc):
            print(f"rejected as it should: {name}")
        else:
            print(f"ACCEPTED but should not: {name}")
            failed += 1
    return failed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="*")
    ap.add_argument("--schema-dir", required=True)
    ap.add_argument("--glob", action="append", default=[])
    ap.add_argument("--self-test")
    args = ap.parse_args()
    validators = load_validators(args.schema_dir)
    if args.self_test:
        failed = self_test(validators, args.self_test)
        checks = len(BREAKERS) + 7  # the breakers, six valid forms and the not-applicable result
        print(f"{checks - failed} passed, {failed} failed")
        return 1 if failed else 0
    files = list(args.files)
    for pattern in args.glob:
        files += sorted(glob.glob(pattern))
    bad = 0
    for path in files:
        with open(path) as f:
            doc = json.load(f)
        errs = errors_of(validators, doc)
        print(f"{path}: {'valid ' + doc['schema'] if not errs else 'INVALID'}")
        for e in errs[:20]:
            print("   ", e)
        bad += bool(errs)
    if not files:
        print("no documents given")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
