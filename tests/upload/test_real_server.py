#!/usr/bin/env python3
"""gmlab-upload against a real gmlab-server process with a temporary SQLite
file on 127.0.0.1: upload, a server that comes up during the retries, the
spool and --flush, idempotency of a spooled document sent twice, and a
genuine run uploaded after a squatter took its submission_id.

usage: test_real_server.py GMLAB_UPLOAD GMLAB_SERVER SOURCE_DIR
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server"))
from harness import Checks, free_port  # noqa: E402  (the server tests' pass/fail counter)

UPLOAD, SERVER, SOURCE = sys.argv[1], sys.argv[2], sys.argv[3]
checks = Checks()
check = checks.check


def start_server(db, port):
    proc = subprocess.Popen([SERVER, "--db", db, "--listen", "127.0.0.1:%d" % port, "--write-rate", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line = proc.stdout.readline()
    if "listening on" not in line:
        proc.kill()
        raise RuntimeError("gmlab-server did not start: " + line)
    return proc


def stop_server(proc):
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def upload(*args):
    return subprocess.run([UPLOAD, *args], capture_output=True, text=True, timeout=120)


def result_id(out):
    m = re.search(r"^id: ([0-9a-f]{32})$", out, re.M)
    return m.group(1) if m else None


def get_json(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.status, json.loads(r.read())


def spooled(spool):
    return sorted(f for f in os.listdir(spool) if f.endswith(".json")) if os.path.isdir(spool) else []


with tempfile.TemporaryDirectory() as tmp:
    with open(os.path.join(SOURCE, "results", "nvidia-h200.json")) as f:
        run = json.load(f)
    run["results"] = [r for r in run["results"] if r["experiment"]["name"] in ("stream", "matmul_ab", "transpose")]
    run_path = os.path.join(tmp, "run.json")
    with open(run_path, "w") as f:
        json.dump(run, f)
    db = os.path.join(tmp, "results.sqlite")
    spool = os.path.join(tmp, "spool")
    port = free_port()
    base = "http://127.0.0.1:%d" % port

    # 1. A plain upload: 0, URL and token printed, the stored document has no serials.
    server = start_server(db, port)
    p = upload(run_path, "--server", base, "--spool", spool)
    rid = result_id(p.stdout)
    check("upload_exit_0", p.returncode == 0 and rid is not None, (p.returncode, p.stdout, p.stderr))
    check("upload_prints_url_and_token", rid is not None and ("/result/" + rid) in p.stdout and
          re.search(r"delete token: [0-9a-f]{32}", p.stdout) is not None, p.stdout)
    status, stored = get_json(base + "/api/v1/results/" + (rid or "0" * 32)) if rid else (0, {})
    text = json.dumps(stored)
    check("stored_on_server", status == 200, status)
    check("stored_without_serials", run["device"]["uuid"] not in text and run["device"]["pci_bus_id"] not in text)

    # 2. Implausible for the server but well-formed locally: rejected, exit 3.
    implausible = json.loads(json.dumps(run))
    implausible["device"]["theoretical_bandwidth_gbs"] = 1.0
    bad_path = os.path.join(tmp, "implausible.json")
    with open(bad_path, "w") as f:
        json.dump(implausible, f)
    p = upload(bad_path, "--server", base, "--spool", spool)
    check("implausible_rejected_exit_3", p.returncode == 3 and spooled(spool) == [], (p.returncode, p.stderr))

    # 3. Server down: exit 4, spooled.
    stop_server(server)
    p = upload(run_path, "--server", base, "--spool", spool, "--retries", "1", "--backoff", "0.05")
    files = spooled(spool)
    check("server_down_exit_4_spooled", p.returncode == 4 and len(files) == 1, (p.returncode, files, p.stderr))
    spooled_text = open(os.path.join(spool, files[0])).read() if files else "{}"

    # 4. The server comes back: --flush sends it and empties the spool.
    server = start_server(db, port)
    p = upload("--flush", "--server", base, "--spool", spool)
    first = result_id(p.stdout)
    check("flush_exit_0", p.returncode == 0 and first is not None, (p.returncode, p.stdout, p.stderr))
    check("flush_empties_spool", spooled(spool) == [], spooled(spool))

    # 5. The same spooled document once more: the server answers with the same id.
    if files:
        with open(os.path.join(spool, files[0]), "w") as f:
            f.write(spooled_text)
    p = upload("--flush", "--server", base, "--spool", spool)
    again = result_id(p.stdout)
    check("same_spooled_document_same_id", p.returncode == 0 and first is not None and again == first,
          (first, again, p.stdout, p.stderr))
    check("second_flush_empties_spool", spooled(spool) == [], spooled(spool))
    stop_server(server)

    # 6. A server that is not up yet when the upload starts: the retries reach it.
    t0 = time.monotonic()
    proc = subprocess.Popen([UPLOAD, run_path, "--server", base, "--spool", spool, "--retries", "8", "--backoff", "0.4"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    server = start_server(db, port)
    out, err = proc.communicate(timeout=120)
    check("retries_reach_late_server", proc.returncode == 0 and result_id(out) is not None and "retrying" in err,
          (proc.returncode, out, err))
    print("late server: uploaded after %.2f s" % (time.monotonic() - t0))
    check("late_server_nothing_spooled", spooled(spool) == [], spooled(spool))

    # 7. A squatter posts another document first under the submission_id a
    # genuine run will come with (a public digest of the document): the
    # genuine run is still stored and gmlab-upload links to it, not to the
    # squatter's.
    genuine = json.loads(json.dumps(run))
    genuine["created_at"] = "2026-12-01T00:00:00Z"
    genuine_path = os.path.join(tmp, "genuine.json")
    with open(genuine_path, "w") as f:
        json.dump(genuine, f)
    p = upload(genuine_path, "--server", base, "--dry-run")
    sent = json.loads(p.stdout.split("The exact document:\n", 1)[1]) if "The exact document:\n" in p.stdout else {}
    squatter = json.loads(json.dumps(run))
    squatter["created_at"] = "2026-12-02T00:00:00Z"
    squatter["submission_id"] = sent.get("submission_id", "")
    request = urllib.request.Request(base + "/api/v1/results", data=json.dumps(squatter).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as r:
        squatted = json.loads(r.read())
    check("squatter_stored_first", r.status == 201 and sent.get("submission_id"), (r.status, sent.get("submission_id")))
    p = upload(genuine_path, "--server", base, "--spool", spool)
    gid = result_id(p.stdout)
    check("genuine_upload_after_squatter_stored", p.returncode == 0 and gid is not None and gid != squatted.get("id"),
          (p.returncode, p.stdout, p.stderr))
    status, got = get_json(base + "/api/v1/results/" + (gid or "0" * 32)) if gid else (0, {})
    check("genuine_upload_links_to_the_genuine_run", status == 200 and got["document"]["created_at"] == genuine["created_at"]
          and ("/result/" + gid) in p.stdout, (status, got.get("document", {}).get("created_at")))
    stop_server(server)

sys.exit(checks.finish())
