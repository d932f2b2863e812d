#!/usr/bin/env python3
"""gmlab-server trusts what it knows, not what an uploader claims (issue 47,
items 5, 6, 7, 9 and 10), each part against a real server on SQLite or,
with --db postgres://..., on PostgreSQL:

- plausibility: a known model's device facts come from the server's table
  (100000 multiprocessors, a deleted L2 size are refused or ignored), figures
  are held to physical bounds (an 18.9 PB/s L1 figure, a 30,000 GB/s DRAM
  copy, latencies of 1e-12 and 1e14 cycles), summaries to their points, and an
  unknown model's chip to its earlier uploads;
- one model, one name: spoofed device and experiment names (U+200B, U+2060,
  U+00AD, U+FEFF, U+3164, tag characters, a Cyrillic Н, full-width letters)
  are 422 naming the field, and nothing is stored;
- one run, one row: the same run posted again with no, a fresh or another
  document's submission_id is stored once; a squatter cannot block a run;
- CSV cells that a spreadsheet would read as formulas are quoted with ' in the
  per-result CSV and the export;
- security headers on every answer, a public 404 that names no other address,
  and a document the pages could not show refused at upload."""
import copy
import csv
import io
import json
import sys

from harness import Checks, Server, arguments, as_new_run, default_db, free_port, fresh_workdir, load_document, trimmed


def post(srv, doc, headers=None):
    return srv.json("POST", "/api/v1/results", doc if isinstance(doc, (str, bytes)) else json.dumps(doc, ensure_ascii=False),
                    headers)


def stored_count(srv):
    return srv.json("GET", "/api/v1/stats")[2]["results"]


def series_of(doc, quantity, unit=None):
    """The first series of the quantity (and y unit), with its result."""
    for r in doc["results"]:
        for s in r["series"]:
            if s.get("quantity", {}).get("name") == quantity and (unit is None or s["y"].get("unit") == unit):
                return r, s
    raise LookupError(quantity)


def set_plotted(point, field, value):
    if field in point:
        point[field] = value
    else:
        point["values"][field] = value


def refused(c, label, answer, code, field):
    st, _, e = answer
    c.check(f"{label}: 422 {code} naming {field}",
            st == 422 and e is not None and e.get("code") == code and field in e.get("message", ""), (st, e))


def plausibility(srv, c, doc):
    before = stored_count(srv)
    d = copy.deepcopy(doc)
    d["device"]["multiprocessors"] = 100000
    r, s = series_of(d, "l1_shared_bandwidth", "GB/s")
    set_plotted(s["points"][0], s["y"]["field"], 18.9e6)
    refused(c, "100000 multiprocessors on a known model (to let 18.9 PB/s of L1 through)", post(srv, d), "implausible",
            "device.multiprocessors")
    d = copy.deepcopy(doc)
    r, s = series_of(d, "l1_shared_bandwidth", "GB/s")
    set_plotted(s["points"][0], s["y"]["field"], 18.9e6)
    refused(c, "18.9 PB/s of L1 with an honest device block", post(srv, d), "implausible", "points[0]")

    d = copy.deepcopy(doc)
    del d["device"]["l2_cache_bytes"]
    r, s = series_of(d, "dram_bandwidth")
    p = s["points"][-1]
    p["bandwidth_gbs"] = 30000.0
    p["bytes"] = 30000.0 * p["time_ms"]["median"] * 1e6
    refused(c, "a 30,000 GB/s DRAM copy with l2_cache_bytes deleted", post(srv, d), "implausible", "bandwidth_gbs")
    d = copy.deepcopy(doc)
    d["device"]["theoretical_bandwidth_gbs"] = 30000.0
    refused(c, "a known model claiming 30,000 GB/s of DRAM", post(srv, d), "implausible", "device.theoretical_bandwidth_gbs")

    for value in (1e-12, 1e14):
        d = copy.deepcopy(doc)
        r, s = series_of(d, "latency", "cycles")
        set_plotted(s["points"][0], s["y"]["field"], value)
        refused(c, f"a latency of {value:g} cycles", post(srv, d), "implausible", "latency")

    d = copy.deepcopy(doc)
    r, s = series_of(d, "dram_bandwidth")
    key = next(k for k in r["summary"] if k.endswith("_gbs") and "theoretical" not in k)
    r["summary"][key] = 1e6
    refused(c, f"a summary figure ({key}) far above every point it summarises", post(srv, d), "implausible", "summary." + key)
    d = copy.deepcopy(doc)
    r, s = series_of(d, "latency", "cycles")
    key = next((k for k in r.get("summary", {}) if k.endswith("_cycles") and "_over_" not in k), None)
    if key:
        r["summary"][key] = 1e9
        refused(c, f"a summary latency ({key}) above every point", post(srv, d), "implausible", "summary." + key)

    # A model the table does not know: held to physical ranges, to its own
    # bus, and to its earlier uploads.
    unknown = copy.deepcopy(doc)
    unknown["device"]["name"] = "Trust Test GPU"
    d = copy.deepcopy(unknown)
    d["device"]["multiprocessors"] = 100000
    refused(c, "an unknown model with 100000 multiprocessors", post(srv, d), "implausible", "device.multiprocessors")
    d = copy.deepcopy(unknown)
    d["device"]["theoretical_bandwidth_gbs"] *= 2
    refused(c, "an unknown model whose DRAM bandwidth is not what its bus carries", post(srv, d), "implausible",
            "device.theoretical_bandwidth_gbs")
    c.check("nothing implausible was stored", stored_count(srv) == before, stored_count(srv))
    st, _, first = post(srv, as_new_run(json.dumps(unknown), "unknown-1"))
    c.check("the unknown model's honest upload is stored", st == 201, (st, first))
    d = json.loads(as_new_run(json.dumps(unknown), "unknown-2"))
    d["device"]["multiprocessors"] = 264
    refused(c, "a later upload of it claiming twice the multiprocessors", post(srv, d), "implausible", "earlier uploads")
    d = json.loads(as_new_run(json.dumps(unknown), "unknown-3"))
    st, _, again = post(srv, d)
    c.check("a later honest upload of it is stored", st == 201, (st, again))


SPOOFS = [("U+200B", "NVIDIA H2\u200b00"), ("U+2060", "NVIDIA H2\u206000"), ("U+00AD", "NVIDIA H\u00ad200"),
          ("U+FEFF", "\ufeffNVIDIA H200"), ("U+3164", "NVIDIA H200\u3164"), ("a tag character", "NVIDIA H200\U000e0041"),
          ("a Cyrillic Н", "NVIDIA \u041d200"), ("a full-width Ｈ", "NVIDIA \uff28200")]


def names(srv, c, doc):
    before = stored_count(srv)
    _, _, gpus = srv.json("GET", "/api/v1/gpus")
    for label, name in SPOOFS:
        d = json.loads(as_new_run(json.dumps(doc), "spoof " + label))
        d["device"]["name"] = name
        st, _, e = post(srv, d)
        c.check(f"a device name with {label} is 422 naming device.name",
                st == 422 and e and e.get("code") in ("invalid_name", "invalid_document") and "device.name" in e.get("message", ""),
                (st, e))
    d = json.loads(as_new_run(json.dumps(doc), "spoof experiment"))
    d["results"][0]["experiment"]["name"] = "str\u0435am"  # a Cyrillic е
    st, _, e = post(srv, d)
    c.check("an experiment name mixing scripts is 422 naming experiment.name",
            st == 422 and e and e.get("code") == "invalid_name" and "experiment.name" in e.get("message", ""), (st, e))
    c.check("no spoofed model was stored", stored_count(srv) == before and srv.json("GET", "/api/v1/gpus")[2] == gpus)


def one_run_one_row(srv, c, doc):
    text = as_new_run(json.dumps(doc), "one-run")
    before = stored_count(srv)
    st, _, first = post(srv, text)
    c.check("a run is stored", st == 201, (st, first))
    answers = [post(srv, text) for _ in range(3)]
    answers += [post(srv, as_new_run(json.dumps(dict(json.loads(text), submission_id="fresh-%d" % i)), "one-run"))
                for i in range(3)]
    answers.append(post(srv, text, {"X-Submission-Id": "header-id"}))
    c.check("the same run again, with no, a fresh or a header submission_id: 200 with the first id each time",
            all(a[0] == 200 and a[2]["id"] == first["id"] and a[2]["duplicate"] for a in answers), [a[0] for a in answers])
    c.check("... and stored once", stored_count(srv) == before + 1, (before, stored_count(srv)))

    genuine = as_new_run(json.dumps(dict(doc, submission_id="public-digest-1")), "genuine")
    forged = as_new_run(json.dumps(dict(doc, submission_id="public-digest-1")), "squatter")
    st, _, squat = post(srv, forged)
    st2, _, real = post(srv, genuine)
    c.check("a squatter's earlier post under the genuine run's id does not block it: both 201, ids differ",
            st == 201 and st2 == 201 and real["id"] != squat["id"], (st, st2))
    st, _, got = srv.request("GET", "/api/v1/results/%s?format=document" % real["id"])
    c.check("the genuine run's link gives the genuine document", st == 200 and got == genuine.encode(), st)


FORMULA = '=HYPERLINK("http://evil.example/","click")'


def csv_cells(srv, c, doc):
    d = json.loads(as_new_run(json.dumps(doc), "csv"))
    d["results"][0]["series"][0]["name"] = FORMULA
    d["results"][0]["series"][1]["name"] = "+SUM(1,2)"
    d["results"][0]["series"][2]["name"] = "@cmd"
    st, _, r = post(srv, d)
    c.check("a run with formula-like series names is stored (they are text)", st == 201, (st, r))
    st, _, body = srv.request("GET", "/api/v1/results/%s?format=csv" % r["id"])
    rows = list(csv.reader(io.StringIO(body.decode())))
    series = {row[1] for row in rows[1:]}
    c.check("the per-result CSV quotes each formula-like cell with a leading '",
            "'" + FORMULA in series and "'+SUM(1,2)" in series and "'@cmd" in series and FORMULA not in series, sorted(series)[:5])
    c.check("... as a quoted cell", '"\'=HYPERLINK(""http://evil.example/"",""click"")"' in body.decode(), body[:200])
    st, _, body = srv.request("GET", "/api/v1/export?format=csv")
    if st == 200:
        rows = list(csv.reader(io.StringIO(body.decode())))
        cells = {cell for row in rows for cell in row}
        c.check("the export's CSV holds no unquoted formula", FORMULA not in cells and "+SUM(1,2)" not in cells, st)


def headers_and_pages(srv, c, doc, metrics_port):
    answers = {"a JSON answer": srv.request("GET", "/api/v1/stats"),
               "a JSON 404": srv.request("GET", "/api/v1/no-such"),
               "a 413 from the transport": srv.request("POST", "/api/v1/results", b"x" * 2_000_001,
                                                       {"Content-Type": "application/json"})}
    for label, (st, h, _) in answers.items():
        c.check(f"{label} ({st}) carries X-Content-Type-Options: nosniff", h.get("x-content-type-options") == "nosniff", h)
    st, h, page = srv.request("GET", "/")
    if st == 200 and h.get("content-type", "").startswith("text/html"):
        csp = h.get("content-security-policy", "")
        c.check("an HTML page carries a Content-Security-Policy that allows only its own inline scripts",
                "default-src 'none'" in csp and "script-src 'unsafe-inline'" in csp and "frame-ancestors 'none'" in csp
                and "http" not in csp, csp)
        c.check("... X-Frame-Options: DENY and nosniff", h.get("x-frame-options") == "DENY" and h.get("x-content-type-options") == "nosniff", h)
        st, h, _ = srv.request("GET", "/no/such/page")
        c.check("the HTML 404 carries them too", h.get("x-frame-options") == "DENY" or not h.get("content-type", "").startswith("text/html"), h)
    st, _, e = srv.json("GET", "/metrics")
    c.check("the public /metrics 404 names no other address",
            st == 404 and str(metrics_port) not in json.dumps(e) and "127.0.0.1" not in json.dumps(e), e)

    before = stored_count(srv)
    for label, f, field in [
            ("device.memory_clock_mhz: \"fast\"", lambda d: d["device"].update(memory_clock_mhz="fast"), "device.memory_clock_mhz"),
            ("device.ecc_enabled: \"yes\"", lambda d: d["device"].update(ecc_enabled="yes"), "device.ecc_enabled"),
            ("a result's notes: a number", lambda d: d["results"][0].update(notes=[1]), "results[0].notes"),
            ("gpu_state.before.sm_clock_mhz: \"max\"",
             lambda d: d["results"][0].setdefault("gpu_state", {"source": "nvml", "warnings": []}).update(before={"sm_clock_mhz": "max"}),
             "gpu_state.before.sm_clock_mhz")]:
        d = json.loads(as_new_run(json.dumps(doc), label))
        f(d)
        refused(c, "a document the pages could not show (%s)" % label, post(srv, d), "invalid_document", field)
    c.check("none of them was stored", stored_count(srv) == before)


def main():
    args = arguments(__doc__)
    fresh_workdir(args.workdir)
    c = Checks()
    doc = trimmed(load_document(args.document), 2)
    doc.get("device", {}).pop("uuid", None)
    db = default_db(args)
    metrics_port = free_port()
    srv = Server(args.server, db, args.workdir, ["--write-rate", "0", "--read-rate", "0", "--max-body-bytes", "2000000",
                                                 "--metrics-listen", "127.0.0.1:%d" % metrics_port])
    try:
        plausibility(srv, c, doc)
        names(srv, c, doc)
        one_run_one_row(srv, c, doc)
        csv_cells(srv, c, doc)
        headers_and_pages(srv, c, doc, metrics_port)
    finally:
        srv.stop()
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
