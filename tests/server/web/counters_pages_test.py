#!/usr/bin/env python3
"""A GPU model's page shows the model against the hardware counters across
the model's uploads, against a real server and database (a fresh SQLite file,
or --db postgres://... for the PostgreSQL suite).

Uploads: fixtures/counted_h200.json (a run of stride_copy and bank_conflicts
on an H200 with --counters on, every point counted; two series of each kept,
bank_conflicts at nine strides), two copies of it with one counted figure off
the model, and the standard H200 run (--document, --counters auto: only some
points counted). The same four uploads without their counters go to a second
model, whose page must show no counters and the same charts.

Checks: the counters section of stride_copy and bank_conflicts (model, counted
median and quartiles, n per point, agreement within the series' tolerance),
none for a series without an agreement or an experiment without counters, the
chart (model dashed, counted medians as crosses), the API's "counters" beside
an unchanged "series", the export and the comparison pages without counter
rows, the per-upload CSV with them, and a deleted upload leaving them."""
import copy
import csv
import html.parser
import io
import json
import os
import sys
import time

# tests/server, where the shared helpers are (harness.py, zstd_codec.py, fixtures/).
SERVER_TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, SERVER_TESTS)
from harness import Checks, Server, arguments, as_new_run, default_db, fresh_workdir, load_document, trimmed  # noqa: E402

FIXTURE = os.path.join(SERVER_TESTS, "fixtures", "counted_h200.json")
COUNTER_PREFIXES = ("counters.", "model.", "tolerance.")
OFF_SERIES, OFF_X, OFF_VALUE = "guide, 8-byte words", 3.0, 25.0  # the model says 24 sectors per request


def counted_points(doc, experiment, series, counter):
    """{x: (counted, model, tolerance)} of one series' counted figure."""
    out = {}
    for r in doc["results"]:
        if r["experiment"]["name"] != experiment:
            continue
        for s in r["series"]:
            a = s.get("agreement", {}).get(counter)
            if s["name"] != series or not a:
                continue
            for p in s["points"]:
                c, m = p.get("counters", {}).get(counter), p.get("predicted", {}).get(a["prediction"])
                if c is not None and m is not None:
                    out[p["x"]] = (c, m, a["tolerance"])
    return out


def counter_row_count(doc):
    """Rows validation adds to a document: three per counted figure of a point."""
    n = 0
    for r in doc["results"]:
        for s in r["series"]:
            for counter in s.get("agreement", {}):
                n += 3 * len(counted_points(doc, r["experiment"]["name"], s["name"], counter))
    return n


def without_counters(doc, name):
    """The document as a run without --counters would have it, as another model."""
    d = copy.deepcopy(doc)
    d["device"]["name"] = name
    for r in d["results"]:
        r["counters"] = {"available": False, "mode": "off", "reason": "not asked for"}
        for s in r["series"]:
            s.pop("agreement", None)
            for p in s["points"]:
                p.pop("counters", None)
    return d


def points_at(doc, experiment, series, x):
    """The points of one series of one experiment at x."""
    for r in doc["results"]:
        for s in r["series"]:
            if r["experiment"]["name"] == experiment and s["name"] == series:
                yield from (p for p in s["points"] if p["x"] == x)


def with_counted(doc, experiment, series, x, counter, value):
    d = copy.deepcopy(doc)
    for p in points_at(d, experiment, series, x):
        p["counters"][counter] = value
    return d


class CounterTables(html.parser.HTMLParser):
    """Each <details class="counter-figure">: open or not, its summary's text,
    and its table's rows (cell texts, and whether the row is flagged)."""

    def __init__(self):
        super().__init__()
        self.figures, self.cur, self.in_summary, self.row, self.cell = [], None, False, None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "details" and a.get("class") == "counter-figure":
            self.cur = {"open": "open" in a, "summary": "", "rows": []}
        elif self.cur is None:
            return
        elif tag == "summary":
            self.in_summary = True
        elif tag == "tr":
            self.row = {"flagged": a.get("class") == "flagged", "cells": []}
        elif tag == "td" and self.row is not None:
            self.cell = ""

    def handle_endtag(self, tag):
        if self.cur is None:
            return
        if tag == "summary":
            self.in_summary = False
        elif tag == "td" and self.cell is not None:
            self.row["cells"].append(self.cell)
            self.cell = None
        elif tag == "tr" and self.row is not None:
            if self.row["cells"]:
                self.cur["rows"].append(self.row)
            self.row = None
        elif tag == "details":
            self.figures.append(self.cur)
            self.cur = None

    def handle_data(self, data):
        if self.cur is not None and self.in_summary:
            self.cur["summary"] += data
        if self.cell is not None:
            self.cell += data


def figure_tables(page):
    p = CounterTables()
    p.feed(page)
    return {f["summary"].split(" against the model")[0]: f for f in p.figures}


def chart_specs(page):
    start = page.find('<script id="gmlab-charts"')
    if start < 0:
        return []
    start = page.find(">", start) + 1
    return json.loads(page[start:page.find("</script>", start)])


def headline_charts(specs):
    """The experiment charts, without the counters charts and the canvas ids
    (which the counters charts between them renumber)."""
    return [{k: v for k, v in s.items() if k != "canvas"} for s in specs if s.get("y_title") != "counted figure"]


def main():
    args = arguments(__doc__)
    fresh_workdir(args.workdir)
    c = Checks()
    srv = Server(args.server, default_db(args), args.workdir, ["--write-rate", "0", "--read-rate", "0"])
    try:
        run(srv, c, load_document(FIXTURE), trimmed(load_document(args.document)))
    finally:
        srv.stop()
    return c.finish()


def post(srv, c, doc, what):
    st, _, body = srv.json("POST", "/api/v1/results", json.dumps(doc), {"Content-Type": "application/json"})
    c.check(f"upload {what}: 201, accepted", st == 201 and body and body.get("status") == "accepted", (st, body))
    return body or {}


def page(srv, path):
    st, _, raw = srv.request("GET", path)
    return st, raw.decode()


def without_counter(doc, experiment, series, x, counter):
    d = copy.deepcopy(doc)
    for p in points_at(d, experiment, series, x):
        p.get("counters", {}).pop(counter, None)
    return d


def run(srv, c, counted, standard):
    off = with_counted(counted, "stride_copy", OFF_SERIES, OFF_X, "sectors_per_request_ld", OFF_VALUE)
    # Whether `gmlab run --counters auto` counted that point depends on the
    # run: the standard upload leaves it out, so that the point's figures are
    # those of the fixture's uploads alone.
    standard = without_counter(standard, "stride_copy", OFF_SERIES, OFF_X, "sectors_per_request_ld")
    # "The same again" is another run of the same figures (the same run would be stored once).
    uploads = [counted, off, json.loads(as_new_run(json.dumps(off), "again")), standard]
    names = ["counted", "counted, one figure off", "the same again", "standard (auto)"]
    up = []
    for i, (d, what) in enumerate(zip(uploads, names)):
        # A GPU page shows the experiments of the model's latest upload (times
        # to the second): the standard run, with every experiment, comes last.
        if i == len(uploads) - 1:
            time.sleep(1.1)
        up.append(post(srv, c, d, what))
        # Without its counters, "one figure off" is the counted run's twin: a run of its own each.
        twin = without_counters(d, "NVIDIA H200 without counters")
        post(srv, c, json.loads(as_new_run(json.dumps(twin), "twin-%d" % i)), what + ", without counters")
    key = up[0].get("gpu_url", "").rsplit("/", 1)[-1]
    c.check("the counted and the standard run are one model", key and all(u.get("gpu_url", "").endswith("/" + key) for u in up), up)
    st, _, gpus = srv.json("GET", "/api/v1/gpus")
    plain = [g["key"] for g in gpus["gpus"] if g["key"] != key][0]

    # The API: counter rows under "counters", "series" as without them.
    st, _, agg = srv.json("GET", f"/api/v1/gpus/{key}/experiments/stride_copy")
    _, _, agg_plain = srv.json("GET", f"/api/v1/gpus/{plain}/experiments/stride_copy")
    c.check("API: stride_copy has its counter rows under counters", st == 200 and {e["field"] for e in agg.get("counters", [])} ==
            {p + f for p in COUNTER_PREFIXES for f in ("sectors_per_request_ld", "sectors_per_request_st")}, agg.get("counters"))
    c.check("API: series are those of the same uploads without counters",
            agg.get("series") == agg_plain.get("series") and agg["uploads"] == agg_plain["uploads"] == 4)
    c.check("API: no counters where the uploads have none", "counters" not in agg_plain)
    for exp in ("stream", "l2_persist"):
        _, _, a = srv.json("GET", f"/api/v1/gpus/{key}/experiments/{exp}")
        c.check(f"API: {exp} (no agreement) has no counters", a and "counters" not in a, a and a.keys())

    # The GPU page.
    st, html_a = page(srv, f"/gpu/{key}")
    c.check("GPU page: 200", st == 200, st)
    sections = {exp for exp in ("stream", "offset_copy", "stride_copy", "l2_persist", "bank_conflicts", "alignment", "transpose")
                if f'id="{exp}-counters"' in html_a}
    c.check("GPU page: a counters section for each experiment whose series compare counters with their model",
            sections == {"offset_copy", "stride_copy", "bank_conflicts", "alignment"}, sections)
    tables = figure_tables(html_a)
    want_ld = {}
    for d in uploads:
        for x, v in counted_points(d, "stride_copy", "guide, 4-byte words", "sectors_per_request_ld").items():
            want_ld.setdefault(x, []).append(v)
    ld = tables.get("guide, 4-byte words: sectors_per_request_ld")
    c.check("GPU page: stride_copy's sectors_per_request_ld of guide, 4-byte words has a table", ld is not None, list(tables))
    if ld:
        rows = {float(r["cells"][0]): r for r in ld["rows"]}
        c.check("  one row per counted x", sorted(rows) == sorted(want_ld), sorted(rows))
        ok = all(r["cells"][1] == r["cells"][2] == f"{want_ld[x][0][1]:g}" and r["cells"][5] == str(len(want_ld[x])) and r["cells"][6] == "yes"
                 for x, r in rows.items())
        c.check("  model and counted median equal, n the uploads that counted the point", ok, [r["cells"] for r in ld["rows"]])
        c.check("  n differs where --counters auto counted some points only",
                rows[1.0]["cells"][5] == "4" and rows[2.0]["cells"][5] == "3", (rows[1.0]["cells"], rows[2.0]["cells"]))
        c.check("  exact, every point agrees, folded away", "(exact)" in ld["summary"] and "at 16 of 16 points" in ld["summary"] and not ld["open"],
                ld["summary"])
    o = tables.get(OFF_SERIES + ": sectors_per_request_ld")
    if c.check("GPU page: the figure off the model in two of three counted uploads", o is not None, list(tables)):
        r = [r for r in o["rows"] if float(r["cells"][0]) == OFF_X][0]
        c.check("  its median differs from the model, flagged", r["cells"][1:3] == ["24", "25"] and r["cells"][6] == "no" and r["flagged"], r)
        c.check("  the table is open and says 15 of 16", o["open"] and "at 15 of 16 points" in o["summary"], o["summary"])
        c.check("  the other series' figures still agree", "at 16 of 16 points" in tables[OFF_SERIES + ": sectors_per_request_st"]["summary"])
    bank = tables.get("read, 4-byte words: wavefronts_per_request_ld")
    c.check("GPU page: bank_conflicts' wavefronts per request with its 0.1 % tolerance", bank is not None and "(0.1 %)" in bank["summary"],
            bank and bank["summary"])
    c.check("GPU page: no table for a series without an agreement (bank_conflicts' writes)",
            not any(k.startswith("write, 4-byte words") for k in tables), list(tables))

    specs = chart_specs(html_a)
    charts = [s for s in specs if s.get("y_title") == "counted figure"]
    c.check("GPU page: a counters chart for the line experiments with counters (offset_copy, stride_copy, bank_conflicts; not alignment, a bar chart)",
            len(charts) == 3, len(charts))
    stride = [s for s in charts if any(d["label"] == OFF_SERIES + ": model" for d in s["datasets"])]
    if c.check("  stride_copy's: a dashed model line and crosses per figure", len(stride) == 1, len(stride)):
        ds = {d["label"]: d for d in stride[0]["datasets"]}
        model, cross = ds.get(OFF_SERIES + ": model", {}), ds.get(OFF_SERIES + ": sectors_per_request_ld", {})
        c.check("  the model dashed, the counted medians as markers", model.get("dashed") and cross.get("markers"), list(ds))
        c.check("  the markers are the medians", {"x": OFF_X, "y": OFF_VALUE} in cross.get("data", []), cross.get("data"))
        c.check("  figures that share a model draw it once", sum(1 for d in stride[0]["datasets"] if d["label"] == OFF_SERIES + ": model") == 1)
    st, html_b = page(srv, f"/gpu/{plain}")
    c.check("GPU page without counters: no counters section, no counters chart",
            st == 200 and "Model and hardware counters" not in html_b and "-counters\"" not in html_b and
            not any(s.get("y_title") == "counted figure" for s in chart_specs(html_b)))
    c.check("GPU page: the experiment charts are those of the same uploads without counters",
            headline_charts(specs) == headline_charts(chart_specs(html_b)) and len(headline_charts(specs)) > 10, len(headline_charts(specs)))

    # Counter rows stay out of the export and the views across models.
    st, _, raw = srv.request("GET", "/api/v1/export?experiment=stride_copy&format=csv")
    rows = list(csv.DictReader(io.StringIO(raw.decode())))
    headline = 2 * sum(len(s["points"]) for d in uploads for r in d["results"] if r["experiment"]["name"] == "stride_copy" for s in r["series"])
    c.check("export: the headline points only, each with its series' field",
            st == 200 and len(rows) == headline and {r["field"] for r in rows} == {"bandwidth_gbs"}, (st, len(rows), headline))
    for path in (f"/compare?a={key}&b={plain}", "/experiment/stride_copy", f"/compare?gpu_a={key}&gpu_b={plain}"):
        st, text = page(srv, path)
        c.check(f"{path}: 200, no counter rows", st == 200 and not any(p + "sectors_per_request" in text for p in COUNTER_PREFIXES), st)

    # The upload's own CSV lists every stored row, counter rows included.
    st, _, raw = srv.request("GET", f"/api/v1/results/{up[0]['id']}?format=csv")
    rows = list(csv.DictReader(io.StringIO(raw.decode())))
    extra = [r for r in rows if r["field"].startswith(COUNTER_PREFIXES)]
    c.check("per-upload CSV: three rows per counted figure", len(extra) == counter_row_count(counted) == 3 * (2 * 2 * 16 + 9), len(extra))
    c.check("per-upload CSV: counted, model and tolerance of a point",
            {(r["field"], r["value"]) for r in extra if r["series"] == "guide, 4-byte words" and r["x"] == "2"} ==
            {("counters.sectors_per_request_ld", "8"), ("model.sectors_per_request_ld", "8"), ("tolerance.sectors_per_request_ld", "0"),
             ("counters.sectors_per_request_st", "8"), ("model.sectors_per_request_st", "8"), ("tolerance.sectors_per_request_st", "0")})

    # Deleted, the two uploads off the model leave the counters with their headline.
    for u in up[1:3]:
        st, _, _ = srv.json("DELETE", "/api/v1/results/" + u["id"], headers={"Authorization": "Bearer " + u["delete_token"]})
        c.check("delete an upload off the model: 200", st == 200, st)
    st, html_a = page(srv, f"/gpu/{key}")
    o = figure_tables(html_a).get(OFF_SERIES + ": sectors_per_request_ld")
    r = [r for r in o["rows"] if float(r["cells"][0]) == OFF_X][0] if o else {"cells": []}
    c.check("after the deletes the figure agrees again, n 1", r["cells"][1:3] == ["24", "24"] and r["cells"][5] == "1" and r["cells"][6] == "yes",
            r["cells"])


if __name__ == "__main__":
    sys.exit(main())
