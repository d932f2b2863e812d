#!/usr/bin/env python3
"""gmlab-server against hostile input: oversize and gzip-bomb bodies, deep
JSON, huge strings and arrays, malformed UTF-8, implausible measurements, SQL
and HTML injection in every text field (stored and served back verbatim, never
executed), rate limits with Retry-After, and X-Forwarded-For from trusted and
untrusted peers."""
import copy
import json
import re
import sys

from harness import Checks, Server, arguments, default_db, fresh_workdir, gz, load_document, trimmed
import zstd_codec

INJECT = "Robert'); DROP TABLE runs;-- \" <script>alert(1)</script> <img src=x onerror=alert(2)> & ü"


def post(srv, body, headers=None):
    return srv.json("POST", "/api/v1/results", body, headers)


def alive(srv):
    return srv.request("GET", "/api/v1/stats")[0] == 200


def limits(srv, c, doc):
    text = json.dumps(doc)
    st, _, e = post(srv, "x" * 1000001)
    c.check("a body one byte over the limit is 413 too_large", st == 413 and e and e.get("code") == "too_large", (st, e))
    st, _, e = post(srv, "x" * 1000000)
    c.check("a body at the limit is read (and rejected as JSON)", st == 422 and e["code"] == "invalid_json", (st, e))
    st, _, e = post(srv, gz(" " * (50 << 20)), {"Content-Encoding": "gzip"})
    c.check("a gzip bomb is 413 after decompression", st == 413 and e and e.get("code") == "too_large", (st, e))
    st, _, e = post(srv, zstd_codec.compress(b" " * (50 << 20), 3), {"Content-Encoding": "zstd"})
    c.check("a zstd bomb is 413 after decompression", st == 413 and e and e.get("code") == "too_large", (st, e))
    st, _, e = post(srv, zstd_codec.compress(text.encode())[:-10], {"Content-Encoding": "zstd"})
    c.check("a truncated zstd body is 400 bad_encoding", st == 400 and e and e.get("code") == "bad_encoding", (st, e))
    c.check("server alive after oversize bodies", alive(srv))
    st, _, e = post(srv, gz(text), {"Content-Encoding": "gzip"})
    c.check("a gzip body within the limit is accepted", st == 201, (st, e))
    st, _, e = post(srv, "[" * 100000 + "]" * 100000)
    c.check("100000-deep JSON is rejected as too deep", st == 422 and e["code"] == "too_deep", (st, e))
    st, _, e = post(srv, '{"a":' * 65 + "1" + "}" * 65)
    c.check("65-deep objects are rejected", st == 422 and e["code"] == "too_deep", (st, e))
    big = copy.deepcopy(doc)
    big["results"][0]["notes"].append("n" * 70000)
    st, _, e = post(srv, json.dumps(big))
    c.check("a 70 kB string is rejected", st == 422 and e["code"] == "too_large", (st, e))
    st, _, e = post(srv, json.dumps({"k" * 70000: 1}))
    c.check("a 70 kB key is rejected", st == 422 and e["code"] == "too_large", (st, e))
    st, _, e = post(srv, "[" + ",".join(["0"] * 100001) + "]")
    c.check("an array of 100001 items is rejected", st == 422 and e["code"] == "too_large", (st, e))
    c.check("server alive after deep and huge JSON", alive(srv))


def utf8(srv, c, doc):
    text = json.dumps(doc, ensure_ascii=False)
    for label, bad in [("a lone continuation byte", b"\x80"), ("an overlong slash", b"\xc0\xaf"),
                       ("a truncated sequence", b"\xe2\x82"), ("an encoded surrogate", b"\xed\xa0\x80"),
                       ("a code point above U+10FFFF", b"\xf4\x90\x80\x80")]:
        body = text.replace('"NVIDIA H200"', '"NVIDIA H200 @@"', 1).encode().replace(b"@@", bad)
        st, _, e = post(srv, body)
        c.check(f"malformed UTF-8 ({label}) is rejected", st == 422 and e["code"] == "invalid_json", (st, e))
    body = text.replace('"NVIDIA H200"', '"NVIDIA H200 \\ud800"', 1)
    st, _, e = post(srv, body)
    c.check("a lone surrogate escape is rejected", st == 422 and e["code"] == "invalid_json", (st, e))


def plausibility(srv, c, doc):
    def mutated(f):
        d = copy.deepcopy(doc)
        f(d)
        return post(srv, json.dumps(d))

    p0 = lambda d: d["results"][0]["series"][0]["points"][0]
    cases = [
        ("bandwidth 3x the device's DRAM bandwidth", lambda d: p0(d).update(bandwidth_gbs=3 * d["device"]["theoretical_bandwidth_gbs"])),
        ("a negative median time", lambda d: p0(d)["time_ms"].update(median=-1.0)),
        ("a zero time", lambda d: p0(d)["time_ms"].update(min=0.0)),
        ("n = 0", lambda d: p0(d)["time_ms"].update(n=0)),
        ("more samples than n", lambda d: p0(d)["time_ms"].update(n=2, samples=[p0(d)["time_ms"]["median"]] * 3)),
        ("median above max", lambda d: p0(d)["time_ms"].update(median=p0(d)["time_ms"]["max"] * 2)),
        ("bandwidth disagreeing with bytes / time", lambda d: p0(d).update(bytes=p0(d)["bytes"] * 2)),
        ("a fraction out of range", lambda d: p0(d).update(fraction_of_theoretical=-0.5)),
        ("a huge number", lambda d: p0(d).update(x=1e400 if False else 1.7e308 * 10)),
        ("a wrong schema", lambda d: d.update(schema="gmlab.run/9")),
        ("a result with its own device", lambda d: d["results"][0].update(device=d["device"])),
        ("no results", lambda d: d.update(results=[])),
        ("a string where a number belongs", lambda d: p0(d)["time_ms"].update(mean="fast")),
        ("an absurd memory size", lambda d: d["device"].update(global_memory_bytes=-5)),
        ("a malformed compute capability", lambda d: d["device"].update(compute_capability="9.0; DROP TABLE runs")),
    ]
    for label, f in cases:
        try:
            st, _, e = mutated(f)
        except (ValueError, OverflowError):
            continue
        c.check(f"rejects {label}", st == 422 and e and e.get("code") in ("implausible", "invalid_document", "invalid_json"), (st, e))
    st, _, e = post(srv, "NaN")
    c.check("NaN is not JSON", st == 422, st)


def injection(srv, c, doc):
    d = copy.deepcopy(doc)
    d["device"]["name"] = "GPU " + INJECT
    d["device"]["driver_version"] = INJECT
    d["device"]["runtime_version"] = INJECT
    d["command"] = INJECT
    d["created_at"] = "2026-01-01T00:00:00Z"
    for r in d["results"]:
        r["notes"].append(INJECT)
        r["experiment"]["summary"] = INJECT
        if r["series"]:  # a not-applicable result (peer on one GPU) has none
            r["series"][0]["name"] = INJECT
    st, _, a = post(srv, json.dumps(d, ensure_ascii=False))
    c.check("a document with injections in every text field is stored", st == 201, (st, a))
    if st != 201:
        return
    st, _, got = srv.json("GET", "/api/v1/results/" + a["id"])
    c.check("injected text comes back verbatim as JSON", got["document"] == d)
    c.check("injected device name is kept raw", got["gpu"]["name"] == "GPU " + INJECT and got["gpu"]["driver_version"] == INJECT)
    c.check("the injected GPU's key is normalised to [a-z0-9.-]",
            all(ch in "abcdefghijklmnopqrstuvwxyz0123456789.-" for ch in got["gpu"]["key"]), got["gpu"]["key"])
    st, _, s = srv.json("GET", "/api/v1/stats")
    c.check("no table was dropped", st == 200 and s["results"] >= 2, s)
    key = got["gpu"]["key"]
    st, _, agg = srv.json("GET", f"/api/v1/gpus/{key}/experiments/stream")
    c.check("an injected series name is aggregated verbatim", st == 200 and any(x["name"] == INJECT for x in agg["series"]), st)
    st, _, _ = srv.json("GET", "/api/v1/gpus/x'%20OR%20'1'='1/experiments/stream")
    c.check("SQL in the GPU key of a URL finds nothing", st == 404, st)
    st, _, _ = srv.json("GET", f"/api/v1/gpus/{key}/experiments/stream'%20OR%20'1'='1")
    c.check("SQL in the experiment of a URL finds nothing", st == 404, st)
    st, _, e = srv.json("POST", "/api/v1/results", json.dumps(doc), {"X-Submission-Id": "x'; DROP TABLE runs;--"})
    c.check("SQL in a submission id is refused", st == 400, st)
    st, _, e = srv.json("DELETE", "/api/v1/results/" + a["id"], headers={"Authorization": "Bearer ' OR '1'='1"})
    c.check("SQL in a delete token is 403", st == 403, st)
    st, _, e = srv.json("DELETE", "/api/v1/results/" + a["id"], headers={"Authorization": "Bearer " + "t" * 4000})
    c.check("a 4 kB token is 403", st == 403, st)
    st, _, e = srv.json("DELETE", "/api/v1/results/" + a["id"], headers={"Authorization": "Bearer " + "t" * 20000})
    c.check("a 20 kB header is refused with 431", st == 431, st)
    c.check("the result survives hostile tokens", srv.request("GET", "/api/v1/results/" + a["id"])[0] == 200)
    st, _, e = srv.json("DELETE", "/api/v1/results/" + a["id"], headers={"Authorization": "Bearer"})
    c.check("an empty Bearer token is 401", st == 401, st)
    st, _, e = srv.json("GET", "/api/v1/results/%3Cscript%3E")
    c.check("an error about a hostile id does not echo markup", st == 404 and "<script>" not in json.dumps(e), e)
    for path in ["/", "/gpu/" + key, "/result/" + a["id"]]:
        st, h, body = srv.request("GET", path)
        if st == 404 and h.get("content-type", "").startswith("application/json"):
            continue  # built without pages
        page = body.decode()
        # Outside script blocks the markup must be escaped; inside them (chart
        # data as JSON) it must not be able to close the block.
        markup = re.sub(r"<script[^>]*>.*?</script>", "", page, flags=re.S)
        c.check(f"page {path.split('/')[1] or 'home'} escapes the injected markup",
                st == 200 and "<script>alert(1)</script>" not in page and "<img src=x" not in markup
                and "&lt;script&gt;alert(1)" in page, st)


def rate_limits(binary, db, workdir, c, doc):
    srv = Server(binary, db, workdir, ["--write-rate", "0.5", "--write-burst", "3", "--read-rate", "1", "--read-burst", "5"], "rate")
    try:
        reads = [srv.request("GET", "/api/v1/gpus") for _ in range(6)]
        c.check("reads within the burst pass", all(r[0] == 200 for r in reads[:5]), [r[0] for r in reads])
        st, h, body = reads[5]
        e = json.loads(body)
        c.check("the read past the burst is 429 rate_limited", st == 429 and e["code"] == "rate_limited", st)
        c.check("429 carries Retry-After >= 1", int(h.get("retry-after", "0")) >= 1, h.get("retry-after"))
        writes = [post(srv, "{}") for _ in range(4)]
        c.check("writes have their own bucket: 3 pass", all(w[0] == 422 for w in writes[:3]), [w[0] for w in writes])
        c.check("the write past the burst is 429", writes[3][0] == 429 and int(writes[3][1].get("retry-after", "0")) >= 2,
                (writes[3][0], writes[3][1].get("retry-after")))
        spoofed = [srv.request("GET", "/api/v1/gpus", headers={"X-Forwarded-For": f"198.51.100.{i}"})[0] for i in range(3)]
        c.check("X-Forwarded-For from an untrusted peer is ignored", spoofed == [429] * 3, spoofed)
    finally:
        srv.stop()
    srv = Server(binary, db, workdir, ["--read-rate", "1", "--read-burst", "2", "--trusted-proxy", "127.0.0.1"], "proxy")
    try:
        a = [srv.request("GET", "/api/v1/gpus", headers={"X-Forwarded-For": "198.51.100.7"})[0] for _ in range(3)]
        b = [srv.request("GET", "/api/v1/gpus", headers={"X-Forwarded-For": "203.0.113.9, 198.51.100.8"})[0] for _ in range(3)]
        c.check("behind a trusted proxy each forwarded client has its own bucket", a == [200, 200, 429] and b == [200, 200, 429], (a, b))
        chained = srv.request("GET", "/api/v1/gpus", headers={"X-Forwarded-For": "198.51.100.9, 127.0.0.1"})[0]
        c.check("trusted hops in X-Forwarded-For are skipped", chained == 200, chained)
    finally:
        srv.stop()


def main():
    args = arguments(__doc__)
    fresh_workdir(args.workdir)
    c = Checks()
    doc = trimmed(load_document(args.document))
    db = default_db(args)
    srv = Server(args.server, db, args.workdir, ["--write-rate", "0", "--read-rate", "0", "--max-body-bytes", "1000000"])
    try:
        limits(srv, c, trimmed(doc, 1))
        utf8(srv, c, trimmed(doc, 1))
        plausibility(srv, c, trimmed(doc, 1))
        injection(srv, c, trimmed(doc, 1))
        c.check("server still alive at the end", alive(srv))
    finally:
        srv.stop()
    rate_limits(args.server, db, args.workdir, c, doc)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
