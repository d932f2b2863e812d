#!/usr/bin/env python3
"""Uploads cannot multiply a page's size: after one upload of the run, 20
more of the same run with every x shifted by a small factor of its own
(x * (1 + 0.001 k)) leave the GPU model's page and /compare of two models
about the size they had (at most 1.2 times): no series has more points than
after one upload, and each point at a power of two or at 1..16 holds every
upload. 5 uploads with series names of their own leave no more series on a
page than one upload had. A fresh SQLite file, or --db postgres://... (an
empty database)."""
import copy
import json
import os
import sys
import time
import urllib.parse

SERVER_TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, SERVER_TESTS)
from harness import Checks, Server, arguments, compact, default_db, fresh_workdir, load_document, trimmed, wait_folded  # noqa: E402

SHIFTED = 20
MAX_GROWTH = 1.2


def shifted(doc, k, submission_id):
    """The document with every point's x times 1 + 0.001 k."""
    d = copy.deepcopy(doc)
    f = 1 + 0.001 * k
    for r in d["results"]:
        for s in r.get("series", []):
            for p in s["points"]:
                p["x"] = p["x"] * f
    d["submission_id"] = submission_id
    return d


def renamed(doc, k, submission_id):
    """The document with every series named for this upload."""
    d = copy.deepcopy(doc)
    for r in d["results"]:
        for s in r.get("series", []):
            s["name"] = "%s (upload %d)" % (s["name"], k)
    d["submission_id"] = submission_id
    return d


def other_model(doc):
    d = copy.deepcopy(doc)
    d["device"]["name"] = d["device"]["name"] + " page-growth twin"
    d["submission_id"] = "page-growth-twin"
    return d


def post(srv, c, doc, what):
    st, _, r = srv.json("POST", "/api/v1/results", json.dumps(doc), {"Content-Type": "application/json"})
    ok = c.check("%s: stored (201)" % what, st == 201 and r, (st, r))
    return r if ok else None


def page(srv, path):
    t0 = time.monotonic()
    st, _, body = srv.request("GET", path)
    return st, len(body), (time.monotonic() - t0) * 1000


def shapes(srv, key, names):
    """Per experiment, per series name: its x values, and the series' n."""
    out = {}
    for name in names:
        st, _, agg = srv.json("GET", "/api/v1/gpus/%s/experiments/%s" % (urllib.parse.quote(key, safe=""), name))
        if st != 200:
            continue
        out[name] = {s["name"]: [(p["x"], p["n"]) for p in s["points"]] for s in agg["series"]}
    return out


def main():
    args = arguments(__doc__)
    fresh_workdir(args.workdir)
    c = Checks()
    doc = compact(trimmed(load_document(args.document)))
    doc["submission_id"] = "page-growth-0"
    names = sorted({r["experiment"]["name"] for r in doc["results"]})
    srv = Server(args.server, default_db(args), args.workdir, ["--write-rate", "0", "--read-rate", "0"])
    try:
        first = post(srv, c, doc, "the run")
        twin = post(srv, c, other_model(doc), "the run as a second model")
        if not first or not twin:
            return c.finish()
        key = urllib.parse.unquote(first["gpu_url"].rsplit("/gpu/", 1)[1])
        twin_key = urllib.parse.unquote(twin["gpu_url"].rsplit("/gpu/", 1)[1])
        gpu_path = "/gpu/" + urllib.parse.quote(key, safe="")
        compare_path = "/compare?a=%s&b=%s" % (urllib.parse.quote(key, safe=""), urllib.parse.quote(twin_key, safe=""))
        wait_folded(srv)
        st, gpu_before, _ = page(srv, gpu_path)
        c.check("the GPU page after one upload", st == 200 and gpu_before > 10000, (st, gpu_before))
        st, compare_before, _ = page(srv, compare_path)
        c.check("/compare of the two models after one upload", st == 200 and compare_before > 1000, (st, compare_before))
        before = shapes(srv, key, names)
        c.check("the model's aggregates read", len(before) >= 10, sorted(before))

        stored = sum(1 for k in range(1, SHIFTED + 1)
                     if post(srv, c, shifted(doc, k, "page-growth-%d" % k), "the run with x * %.3f" % (1 + 0.001 * k)))
        stats = wait_folded(srv)
        c.check("every shifted upload folded", stored == SHIFTED and stats["pending"] == 0, (stored, stats))
        st, gpu_after, ms = page(srv, gpu_path)
        c.check("the GPU page after %d shifted uploads: %d bytes, %.1f times its size after one (at most %.1f; %.0f ms)"
                % (SHIFTED, gpu_after, gpu_after / gpu_before, MAX_GROWTH, ms),
                st == 200 and gpu_after <= MAX_GROWTH * gpu_before, (gpu_before, gpu_after))
        st, compare_after, ms = page(srv, compare_path)
        c.check("/compare after them: %d bytes, %.1f times its size (at most %.1f; %.0f ms)"
                % (compare_after, compare_after / compare_before, MAX_GROWTH, ms),
                st == 200 and compare_after <= MAX_GROWTH * compare_before, (compare_before, compare_after))
        after = shapes(srv, key, names)
        grown = [(e, s, len(xs), len(after.get(e, {}).get(s, [])))
                 for e, series in before.items() for s, xs in series.items() if len(after.get(e, {}).get(s, [])) > len(xs)]
        c.check("no series of any experiment has more points than after one upload", not grown, grown[:5])
        # Where the run's own x lie on the canonical axis (powers of two, 1..16:
        # a shift of up to 2 % comes back to them), every upload adds to them.
        def on_axis(x):
            return x == int(x) and 1 <= x and (x <= 16 or (int(x) & (int(x) - 1)) == 0)
        held = [(e, s, x, dict(after.get(e, {}).get(s, [])).get(x, 0))
                for e, series in before.items() for s, xs in series.items() for x, _ in xs if on_axis(x)]
        # (More where a neighbour's shifted x came within 2.5 % of it: 31 * 1.01 is 32.)
        short = [h for h in held if h[3] < SHIFTED + 1]
        c.check("each of the %d points at powers of two and at 1..16 holds all %d uploads" % (len(held), SHIFTED + 1),
                len(held) > 300 and not short, (len(held), short[:5]))

        # Series named for each upload: no more series on a page than one upload had.
        for k in range(1, 6):
            post(srv, c, renamed(doc, k, "page-growth-renamed-%d" % k), "the run with series names of its own (%d)" % k)
        wait_folded(srv)
        most = shapes(srv, key, names)
        more = [(e, len(before[e]), len(most.get(e, {}))) for e in before if len(most.get(e, {})) > len(before[e])]
        c.check("no experiment shows more series than one upload had", not more, more[:5])
        st, gpu_renamed, _ = page(srv, gpu_path)
        c.check("the GPU page after 5 uploads with series of their own: %.2f times its size after one" % (gpu_renamed / gpu_before),
                st == 200 and gpu_renamed <= MAX_GROWTH * gpu_before, (gpu_before, gpu_renamed))
    finally:
        srv.stop()
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
