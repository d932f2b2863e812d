#!/usr/bin/env python3
"""gmlab-upload against a fake server on 127.0.0.1: retries, Retry-After,
exit codes, the spool and --flush, --dry-run.

usage: test_upload.py GMLAB_UPLOAD SOURCE_DIR [GMLAB]
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server"))
from fake_server import FakeServer  # noqa: E402
from harness import Checks  # noqa: E402  (the server tests' pass/fail counter)
import zstd_codec  # noqa: E402

UPLOAD, SOURCE = sys.argv[1], sys.argv[2]
GMLAB = sys.argv[3] if len(sys.argv) > 3 else None
checks = Checks()
check = checks.check


def small_run(tmp):
    """A real run document (from results/) cut to its two smallest results."""
    with open(os.path.join(SOURCE, "results", "nvidia-h200.json")) as f:
        run = json.load(f)
    run["results"] = [r for r in run["results"] if r["experiment"]["name"] in ("stream", "matmul_ab")]
    run["command"] = "gmlab run --json /home/alice/runs/h200.json stream matmul_ab"
    path = os.path.join(tmp, "run.json")
    with open(path, "w") as f:
        json.dump(run, f)
    return path, run


def upload(*args, env=None):
    t0 = time.monotonic()
    p = subprocess.run([UPLOAD, *args], capture_output=True, text=True, timeout=120, env=env)
    return p, time.monotonic() - t0


def gzip_doc_matches(sent, original):
    """The sent document is the prepared one: the original's results, unchanged."""
    return sent.get("results") == original["results"]


def spooled(spool):
    return sorted(f for f in os.listdir(spool) if f.endswith(".json")) if os.path.isdir(spool) else []


with tempfile.TemporaryDirectory() as tmp:
    run_path, original = small_run(tmp)
    spool = os.path.join(tmp, "spool")
    srv = FakeServer().start()

    # 1. Two 500s, then success: three requests, one submission_id, zstd JSON.
    srv.fail_first, srv.fail_status = 2, 500
    p, _ = upload(run_path, "--server", srv.url, "--spool", spool, "--backoff", "0.05")
    check("retry_5xx_exit_0", p.returncode == 0, p.stderr)
    check("retry_5xx_three_requests", len(srv.requests) == 3, len(srv.requests))
    docs = [r["doc"] for r in srv.requests]
    check("body_is_zstd_json", all(d is not None for d in docs), [r.get("error") for r in srv.requests])
    check("content_type_json", all(r["headers"].get("content-type") == "application/json" for r in srv.requests))
    check("content_encoding_zstd", all(r["headers"].get("content-encoding") == "zstd" for r in srv.requests))
    check("one_zstd_frame_declaring_its_size",
          all(r["raw"][:4] == zstd_codec.MAGIC and len(zstd_codec.decompress(r["raw"])) > len(r["raw"]) * 3
              for r in srv.requests))
    check("path_is_api_v1_results", all(r["path"] == "/api/v1/results" for r in srv.requests))
    sids = {d.get("submission_id") for d in docs if d}
    check("same_submission_id_on_every_retry", len(sids) == 1 and re.fullmatch(r"[0-9a-f]{32}", next(iter(sids)) or ""), sids)
    sent = docs[-1] or {}
    check("uuid_and_pci_bus_id_not_sent",
          "uuid" not in sent.get("device", {}) and "pci_bus_id" not in sent.get("device", {}) and
          "uuid" in original["device"], sent.get("device", {}).keys())
    check("command_directories_removed", sent.get("command") == "gmlab run --json h200.json stream matmul_ab",
          sent.get("command"))
    check("results_sent_unchanged", sent.get("results") == original["results"])
    rid = srv.stored.get(next(iter(sids)))
    check("prints_result_url", rid is not None and ("%s/results/%s" % (srv.url, rid)) in p.stdout, p.stdout)
    check("prints_delete_token", re.search(r"delete token: [0-9a-f]{32}", p.stdout) is not None, p.stdout)
    check("success_spools_nothing", spooled(spool) == [])

    # 2. 429 with Retry-After: 2 is honoured although the backoff is tiny.
    srv.reset()
    srv.fail_first, srv.fail_status, srv.retry_after = 1, 429, 2
    p, _ = upload(run_path, "--server", srv.url, "--spool", spool, "--backoff", "0.01")
    gap = srv.requests[1]["time"] - srv.requests[0]["time"] if len(srv.requests) == 2 else 0
    check("retry_after_exit_0", p.returncode == 0, p.stderr)
    check("retry_after_waited_2s", 1.95 <= gap < 5, "waited %.2f s" % gap)
    print("measured wait after 429 Retry-After: 2 -> %.2f s" % gap)

    # 2b. A server that does not take zstd (415): the same document again at
    # once as gzip, without using up a retry, and accepted.
    srv.reset()
    srv.refuse_zstd = True
    p, _ = upload(run_path, "--server", srv.url, "--spool", spool, "--retries", "0")
    encodings = [r["headers"].get("content-encoding") for r in srv.requests]
    check("zstd_refused_then_gzip_exit_0", p.returncode == 0, p.stderr)
    check("zstd_refused_then_gzip_requests", encodings == ["zstd", "gzip"], encodings)
    check("zstd_refused_then_gzip_same_document", len(srv.requests) == 2 and srv.requests[1]["doc"] is not None and
          gzip_doc_matches(srv.requests[1]["doc"], original), srv.requests[-1].get("error"))
    check("zstd_refused_then_gzip_says_so", "does not take zstd" in p.stderr, p.stderr)
    check("zstd_refused_then_gzip_spools_nothing", spooled(spool) == [])

    # 3. Invalid input: exit 2 and nothing sent.
    srv.reset()
    bad = json.loads(json.dumps(original))
    bad["results"][0]["series"][0]["points"][0]["time_ms"]["n"] = "many"
    bad_path = os.path.join(tmp, "bad.json")
    with open(bad_path, "w") as f:
        json.dump(bad, f)
    truncated = os.path.join(tmp, "truncated.json")
    with open(run_path) as f, open(truncated, "w") as g:
        g.write(f.read()[:5000])
    for name, path in (("invalid_result", bad_path), ("truncated_json", truncated), ("missing_file", os.path.join(tmp, "none.json"))):
        p, _ = upload(path, "--server", srv.url, "--spool", spool)
        check(name + "_exit_2", p.returncode == 2, (p.returncode, p.stderr))
    check("invalid_input_sends_nothing", len(srv.requests) == 0, len(srv.requests))
    p, _ = upload(run_path, "--server", "ftp://127.0.0.1/", "--spool", spool)
    check("non_http_server_url_exit_2", p.returncode == 2 and len(srv.requests) == 0, p.stderr)

    # 4. Rejected (422): exit 3, one request only, nothing spooled.
    srv.reset()
    srv.reject_status = 422
    p, _ = upload(run_path, "--server", srv.url, "--spool", spool, "--backoff", "0.01")
    check("rejected_exit_3", p.returncode == 3, (p.returncode, p.stderr))
    check("rejected_not_retried", len(srv.requests) == 1, len(srv.requests))
    check("rejected_message_shown", "bandwidth above the device's bound" in p.stderr, p.stderr)
    check("rejected_spools_nothing", spooled(spool) == [], spooled(spool))

    # 5. 5xx on every attempt: bounded retries, exit 4, spooled.
    srv.reset()
    srv.fail_first, srv.fail_status = 100, 503
    p, _ = upload(run_path, "--server", srv.url, "--spool", spool, "--retries", "3", "--backoff", "0.01")
    check("persistent_5xx_exit_4", p.returncode == 4, (p.returncode, p.stderr))
    check("persistent_5xx_retries_bounded", len(srv.requests) == 4, len(srv.requests))
    check("persistent_5xx_spooled", len(spooled(spool)) == 1, spooled(spool))
    for f in spooled(spool):
        os.remove(os.path.join(spool, f))

    # 6. Server down: exit 4, the prepared document spooled.
    srv.reset()
    port = srv.port
    srv.stop()
    p, _ = upload(run_path, "--server", "http://127.0.0.1:%d" % port, "--spool", spool, "--retries", "2", "--backoff", "0.01")
    check("network_failure_exit_4", p.returncode == 4, (p.returncode, p.stderr))
    files = spooled(spool)
    check("network_failure_spooled_one", len(files) == 1, files)
    spooled_doc = {}
    if files:
        with open(os.path.join(spool, files[0])) as f:
            spooled_doc = json.load(f)
    sid = spooled_doc.get("submission_id", "")
    check("spooled_document_is_prepared", files == [sid + ".json"] and "uuid" not in spooled_doc.get("device", {}), files)
    check("spool_path_reported", spool in p.stderr and "--flush" in p.stderr, p.stderr)

    # 7. --flush against a server that is still down keeps the file: exit 4.
    p, _ = upload("--flush", "--server", "http://127.0.0.1:%d" % port, "--spool", spool, "--retries", "0")
    check("flush_while_down_exit_4", p.returncode == 4 and spooled(spool) == files, (p.returncode, p.stderr))

    # 8. --flush when it is back: sent with the same submission_id, spool emptied.
    srv = FakeServer().start(port)
    p, _ = upload("--flush", "--server", srv.url, "--spool", spool)
    check("flush_exit_0", p.returncode == 0, (p.returncode, p.stderr))
    check("flush_same_submission_id", len(srv.requests) == 1 and srv.requests[0]["doc"].get("submission_id") == sid,
          [r["doc"].get("submission_id") for r in srv.requests])
    check("flush_empties_spool", spooled(spool) == [], spooled(spool))
    check("flush_prints_url", "/results/" + srv.stored.get(sid, "?") in p.stdout, p.stdout)

    # 9. --flush removes what the server rejects as invalid, exit 3.
    spool_write_target = os.path.join(spool, sid + ".json")
    with open(spool_write_target, "w") as f:
        json.dump(spooled_doc, f)
    srv.reset()
    srv.reject_status = 422
    p, _ = upload("--flush", "--server", srv.url, "--spool", spool)
    check("flush_rejected_exit_3", p.returncode == 3, (p.returncode, p.stderr))
    check("flush_rejected_removed", spooled(spool) == [], spooled(spool))

    # 10. A document that carries a submission_id keeps it.
    srv.reset()
    own = json.loads(json.dumps(original))
    own["submission_id"] = "my-run-0001"
    own_path = os.path.join(tmp, "own.json")
    with open(own_path, "w") as f:
        json.dump(own, f)
    p, _ = upload(own_path, "--server", srv.url, "--spool", spool)
    p2, _ = upload(own_path, "--server", srv.url, "--spool", spool)
    check("own_submission_id_kept", p.returncode == 0 and srv.requests[0]["doc"]["submission_id"] == "my-run-0001")
    ids = [re.search(r"^id: (\w+)$", x.stdout, re.M) for x in (p, p2)]
    check("resubmission_same_id", p2.returncode == 0 and all(ids) and ids[0].group(1) == ids[1].group(1) and
          srv.stored["my-run-0001"] == ids[0].group(1) and "none returned" in p2.stdout, p2.stdout)

    # 10b. A document without one gets its digest: the same file sent twice
    # carries the same submission_id (the server stores it once); another
    # document another id.
    srv.reset()
    upload(run_path, "--server", srv.url, "--spool", spool)
    upload(run_path, "--server", srv.url, "--spool", spool)
    other = json.loads(json.dumps(original))
    other["results"][0]["summary"]["an_other_figure"] = 1.0
    other_path = os.path.join(tmp, "other.json")
    with open(other_path, "w") as f:
        json.dump(other, f)
    upload(other_path, "--server", srv.url, "--spool", spool)
    sids = [r["doc"].get("submission_id") for r in srv.requests]
    check("same_document_same_submission_id", len(sids) == 3 and sids[0] == sids[1] and sids[2] != sids[0], sids)

    # 11. --dry-run: nothing sent, the exact document printed, removals named.
    srv.reset()
    p, _ = upload(run_path, "--server", srv.url, "--spool", spool, "--dry-run")
    check("dry_run_exit_0", p.returncode == 0, p.stderr)
    check("dry_run_sends_nothing", len(srv.requests) == 0 and spooled(spool) == [])
    marker = "The exact document:\n"
    shown = json.loads(p.stdout.split(marker, 1)[1]) if marker in p.stdout else {}
    check("dry_run_prints_document", shown.get("results") == original["results"] and
          re.fullmatch(r"[0-9a-f]{32}", shown.get("submission_id", "")) is not None)
    check("dry_run_names_removals", "removed device.uuid" in p.stdout and "removed device.pci_bus_id" in p.stdout and
          "no host names, user names or serial numbers" in p.stdout, p.stdout[:600])
    check("dry_run_document_has_no_serials", "uuid" not in shown.get("device", {}) and
          original["device"]["uuid"] not in p.stdout)

    # 12. --help documents the exit codes.
    p, _ = upload("--help")
    check("help_lists_exit_codes", p.returncode == 0 and all(s in p.stdout for s in ("0 uploaded", "2 invalid", "3 rejected", "4 network")),
          p.stdout)

    # 13. gmlab run --upload: a bad URL is refused before anything runs.
    if GMLAB:
        p = subprocess.run([GMLAB, "run", "stream", "--upload", "ftp://127.0.0.1/"], capture_output=True, text=True, timeout=60)
        check("gmlab_run_upload_bad_url_exit_2", p.returncode == 2 and "--upload" in p.stderr, (p.returncode, p.stderr))
        p = subprocess.run([GMLAB, "run", "--help"], capture_output=True, text=True, timeout=60)
        check("gmlab_run_help_has_upload", "--upload" in p.stdout, p.stdout[-400:])
    srv.stop()

sys.exit(checks.finish())
