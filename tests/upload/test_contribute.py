#!/usr/bin/env python3
"""gmlab contribute against a fake server on 127.0.0.1, with a run measured
earlier (--run), so that no GPU is needed: where the server comes from, the
config file's errors, consent through a terminal (a pty) or --yes, the result
and GPU model URLs, the delete token kept in $XDG_CONFIG_HOME/gmlab, and one
exit code per failure with the run kept (spool or its JSON file).

usage: test_contribute.py GMLAB SOURCE_DIR
"""
import json
import os
import pty
import select
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server"))
from fake_server import FakeServer  # noqa: E402
from harness import Checks  # noqa: E402

GMLAB, SOURCE = sys.argv[1], sys.argv[2]
checks = Checks()
check = checks.check


def small_run(tmp):
    with open(os.path.join(SOURCE, "results", "nvidia-h200.json")) as f:
        run = json.load(f)
    run["results"] = [r for r in run["results"] if r["experiment"]["name"] in ("stream", "matmul_ab")]
    path = os.path.join(tmp, "run.json")
    with open(path, "w") as f:
        json.dump(run, f)
    return path


def contribute(args, env, stdin=subprocess.DEVNULL):
    return subprocess.run([GMLAB, "contribute", *args], capture_output=True, text=True, timeout=180, env=env, stdin=stdin)


def contribute_on_tty(args, env, answer):
    """Runs with a terminal as stdin, answers the question, returns (rc, all output)."""
    master, slave = pty.openpty()
    p = subprocess.Popen([GMLAB, "contribute", *args], stdin=slave, stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    seen, deadline = b"", time.monotonic() + 60
    while b"[y/N]" not in seen and time.monotonic() < deadline:
        r, _, _ = select.select([master], [], [], 1)
        if r:
            try:
                seen += os.read(master, 4096)
            except OSError:
                break
    os.write(master, (answer + "\n").encode())
    out, _ = p.communicate(timeout=120)
    try:
        while True:
            r, _, _ = select.select([master], [], [], 0.2)
            if not r:
                break
            seen += os.read(master, 4096)
    except OSError:
        pass
    os.close(master)
    return p.returncode, out.decode(errors="replace"), seen.decode(errors="replace")


def one_line(stderr):
    return [line for line in stderr.splitlines() if line.startswith("gmlab:")]


with tempfile.TemporaryDirectory() as tmp:
    run_path = small_run(tmp)
    cfg, state = os.path.join(tmp, "cfg"), os.path.join(tmp, "state")
    base = {k: v for k, v in os.environ.items() if k not in ("GMLAB_SERVER", "XDG_CONFIG_HOME", "XDG_STATE_HOME")}
    base.update({"XDG_CONFIG_HOME": cfg, "XDG_STATE_HOME": state, "HOME": tmp})
    srv = FakeServer().start()
    spool = os.path.join(state, "gmlab", "spool")

    # No server anywhere: exit 5 and how to set one; nothing sent.
    p = contribute(["--run", run_path, "--yes"], base)
    check("no_server_exit_5", p.returncode == 5, (p.returncode, p.stderr))
    check("no_server_says_how", "GMLAB_SERVER" in p.stderr and os.path.join(cfg, "gmlab", "config.json") in p.stderr, p.stderr)
    check("no_server_one_line", len(one_line(p.stderr)) == 1, p.stderr)

    # A malformed URL, from the flag and from the environment: exit 5.
    p = contribute(["--run", run_path, "--yes", "--server", "gmlab.example.org"], base)
    check("malformed_url_exit_5", p.returncode == 5 and "http://" in p.stderr, (p.returncode, p.stderr))
    p = contribute(["--run", run_path, "--yes"], {**base, "GMLAB_SERVER": "https://"})
    check("malformed_env_url_exit_5", p.returncode == 5 and "GMLAB_SERVER" in p.stderr, (p.returncode, p.stderr))

    # A malformed config file: exit 6, naming the file; unreadable (a directory): exit 6.
    os.makedirs(os.path.join(cfg, "gmlab"))
    config = os.path.join(cfg, "gmlab", "config.json")
    with open(config, "w") as f:
        f.write('{"server": ')
    p = contribute(["--run", run_path, "--yes"], base)
    check("malformed_config_exit_6", p.returncode == 6 and config in p.stderr, (p.returncode, p.stderr))
    os.remove(config)
    os.makedirs(config)
    p = contribute(["--run", run_path, "--yes"], base)
    check("unreadable_config_exit_6", p.returncode == 6 and "cannot read" in p.stderr, (p.returncode, p.stderr))
    os.rmdir(config)
    check("nothing_sent_yet", len(srv.requests) == 0, len(srv.requests))

    # The server from the config file; no terminal and no --yes: refused (7) before anything.
    with open(config, "w") as f:
        json.dump({"server": srv.url}, f)
    p = contribute(["--run", run_path], base)
    check("no_tty_no_yes_exit_7", p.returncode == 7 and "--yes" in p.stderr, (p.returncode, p.stderr))

    # A terminal, answered "n": the exact document was shown, nothing sent, exit 7.
    rc, out, tty = contribute_on_tty(["--run", run_path], base, "n")
    check("refused_exit_7", rc == 7, (rc, tty[-500:]))
    check("refused_showed_document", '"submission_id"' in out and '"schema": "gmlab.run/1' in out, out[:300])
    check("refused_showed_no_uuid", '"uuid"' not in out and '"pci_bus_id"' not in out)
    check("refused_nothing_sent", len(srv.requests) == 0, len(srv.requests))
    check("refused_says_where_kept", run_path in tty, tty[-300:])

    # Answered "y": uploaded, both URLs printed, the token kept (mode 0600).
    rc, out, tty = contribute_on_tty(["--run", run_path], base, "y")
    check("consent_exit_0", rc == 0, (rc, tty[-500:]))
    check("consent_one_request", len(srv.requests) == 1, len(srv.requests))
    check("consent_prints_result_url", srv.url + "/results/" in out, out[-400:])
    check("consent_prints_gpu_url", srv.url + "/gpu/fake%20model" in out, out[-400:])
    tokens = os.path.join(cfg, "gmlab", "delete-tokens.jsonl")
    lines = open(tokens).read().splitlines() if os.path.exists(tokens) else []
    check("token_kept", len(lines) == 1 and json.loads(lines[0])["delete_token"] in out, lines)
    check("token_file_private", os.path.exists(tokens) and (os.stat(tokens).st_mode & 0o777) == 0o600)
    check("token_record_has_server", lines and json.loads(lines[0])["server"] == srv.url, lines)
    sent = srv.requests[0]["doc"]
    check("sent_without_board_ids", "uuid" not in sent["device"] and "pci_bus_id" not in sent["device"])

    # --yes and GMLAB_SERVER (over the config file): sent without asking.
    srv.reset()
    p = contribute(["--run", run_path, "--yes"], {**base, "GMLAB_SERVER": srv.url})
    check("yes_exit_0", p.returncode == 0 and len(srv.requests) == 1, (p.returncode, p.stderr))

    # Rejected by the server: exit 9, nothing spooled.
    srv.reset()
    srv.reject_status = 422
    p = contribute(["--run", run_path, "--yes"], base)
    check("rejected_exit_9", p.returncode == 9 and run_path in p.stderr, (p.returncode, p.stderr))
    check("rejected_not_spooled", not os.path.isdir(spool) or not os.listdir(spool))

    # The server down: retried, then exit 8 with the upload in the spool.
    srv.reset()
    srv.stop()
    t0 = time.monotonic()
    p = contribute(["--run", run_path, "--yes"], base)
    check("unreachable_exit_8", p.returncode == 8 and spool in p.stderr, (p.returncode, p.stderr[-400:]))
    check("unreachable_spooled", os.path.isdir(spool) and len(os.listdir(spool)) == 1)
    check("unreachable_retried", p.stderr.count("retrying") >= 1, p.stderr[-400:])
    print("unreachable: %.1f s" % (time.monotonic() - t0))

    # Down, and the spool cannot be written (a file where its directory goes): exit 10.
    bad_state = os.path.join(tmp, "state-file")
    with open(bad_state, "w") as f:
        f.write("not a directory")
    p = contribute(["--run", run_path, "--yes"], {**base, "XDG_STATE_HOME": bad_state})
    check("spool_full_exit_10", p.returncode == 10 and run_path in p.stderr, (p.returncode, p.stderr[-400:]))

    # A --run file that is not a run: usage (2), nothing sent.
    with open(os.path.join(tmp, "bad.json"), "w") as f:
        f.write("{}")
    p = contribute(["--run", os.path.join(tmp, "bad.json"), "--yes"], base)
    check("bad_run_file_exit_2", p.returncode == 2, (p.returncode, p.stderr))

    # --devices naming a malformed list: usage before anything is read.
    p = contribute(["--devices", "0,x", "--yes", "--server", "http://127.0.0.1:9"], base)
    check("bad_devices_usage", p.returncode in (2, 3), (p.returncode, p.stderr))

sys.exit(checks.finish())
