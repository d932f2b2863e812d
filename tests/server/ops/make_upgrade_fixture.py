#!/usr/bin/env python3
"""Makes the upgrade test's fixture: a database written by a given
gmlab-server binary (that of an earlier release), saved as SQL text, and what
that server answered about it.

    make_upgrade_fixture.py --server OLD/gmlab-server --document results/nvidia-h200.json \\
        --out tests/server/ops/upgrade --name release-f352c5a [--db postgresql://...]

Without --db the database is a fresh SQLite file, saved with Python's
sqlite3 iterdump() as NAME.sqlite.sql; with --db (an empty PostgreSQL
database, e.g. under tests/server/postgres/run_with_postgres.sh) it is saved
with pg_dump --format=plain as NAME.postgres.sql. Beside it NAME.BACKEND.json
holds the old server's answers: every upload's id, submission id, model,
status and the SHA-256 of its stored document, the models, every model's
aggregate of every experiment, the view across models, the stats and the
moderation log.

What the database holds: SYNTHETIC uploads (tests/server/fixtures/
make_fixtures.py; two experiments each, to keep the file small) of three GPU
models, sent as plain JSON, gzip and zstd (stored as sent or compressed by
the server); one hidden and one held by the moderator, one deleted with its
delete token; and two uploads still queued for the aggregates (the server
was stopped before its refresher folded them). The answers are read after a
second start of the same binary has folded those two.

Only 127.0.0.1 is contacted."""
import argparse
import gzip
import hashlib
import json
import os
import random
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER_TESTS = os.path.dirname(HERE)
sys.path.insert(0, SERVER_TESTS)
sys.path.insert(0, os.path.join(SERVER_TESTS, "fixtures"))
from harness import Server, wait_folded  # noqa: E402
import make_fixtures as fx  # noqa: E402
import zstd_codec  # noqa: E402

EXPERIMENTS = ("stream", "transpose")
MODERATOR = "fixture-moderator-token-0123456789"
ADMIN = "fixture-admin-token-0123456789"
MODELS = 3
PER_MODEL = 3


def small_base(source):
    base = fx.load_base(source)
    base["results"] = [r for r in base["results"] if r["experiment"]["name"] in EXPERIMENTS]
    return base


def encoded(doc, k):
    """The document as plain JSON, gzip or zstd, in turn."""
    text = json.dumps(doc, separators=(",", ":")).encode()
    if k % 3 == 0:
        return text, {"Content-Type": "application/json"}
    if k % 3 == 1:
        return gzip.compress(text), {"Content-Type": "application/json", "Content-Encoding": "gzip"}
    return zstd_codec.compress(text), {"Content-Type": "application/json", "Content-Encoding": "zstd"}


def upload(srv, doc, k, sid, uploads):
    body, headers = encoded(doc, k)
    st, _, r = srv.json("POST", "/api/v1/results", body, dict(headers, **{"X-Submission-Id": sid}))
    if st != 201:
        raise RuntimeError("upload %s: %s %s" % (sid, st, r))
    uploads.append({"id": r["id"], "submission_id": sid, "gpu": r["gpu_url"].rsplit("/", 1)[1],
                    "status": r.get("status", "accepted"), "delete_token": r["delete_token"]})


def moderate(srv, rid, action, reason):
    st, _, r = srv.json("POST", "/api/v1/moderation/" + rid, json.dumps({"action": action, "reason": reason}),
                        {"Authorization": "Bearer " + MODERATOR})
    if st != 200:
        raise RuntimeError("moderation %s %s: %s %s" % (action, rid, st, r))


def answers(srv, uploads):
    """What the server says about every upload, model and experiment."""
    out = {"uploads": [], "aggregates": {}, "experiments": {}}
    for u in uploads:
        e = {k: u[k] for k in ("id", "submission_id", "gpu", "status")}
        st, _, doc = srv.request("GET", "/api/v1/results/%s?format=document" % u["id"])
        e["http_status"] = st
        if st == 200:
            e["document_sha256"] = hashlib.sha256(doc).hexdigest()
            e["document_bytes"] = len(doc)
            _, _, meta = srv.json("GET", "/api/v1/results/" + u["id"])
            e["created_at"] = meta["created_at"]
            _, _, standing = srv.json("GET", "/api/v1/results/%s/standing" % u["id"])
            e["status"] = standing["status"]
        out["uploads"].append(e)
    _, _, gpus = srv.json("GET", "/api/v1/gpus")
    out["gpus"] = gpus["gpus"]
    for g in gpus["gpus"]:
        for name in EXPERIMENTS:
            st, _, agg = srv.json("GET", "/api/v1/gpus/%s/experiments/%s" % (g["key"], name))
            out["aggregates"].setdefault(g["key"], {})[name] = agg if st == 200 else None
    for name in EXPERIMENTS:
        _, _, table = srv.json("GET", "/api/v1/experiments/" + name)
        out["experiments"][name] = table
    _, _, out["stats"] = srv.json("GET", "/api/v1/stats")
    _, _, log = srv.json("GET", "/api/v1/moderation/log", headers={"Authorization": "Bearer " + MODERATOR})
    out["moderation_log"] = log["log"]
    return out


def dump(db, path):
    if db.startswith("postgres"):
        out = subprocess.run(["pg_dump", "--format=plain", "--no-owner", "--no-privileges", "--dbname", db],
                             stdout=subprocess.PIPE, text=True, check=True).stdout
        # Newer pg_dump guards a dump with \restrict KEY ... \unrestrict KEY,
        # which older psql does not know: the fixture is ours and trusted.
        with open(path, "w") as f:
            f.writelines(l for l in out.splitlines(True) if not l.startswith(("\\restrict", "\\unrestrict")))
    else:
        con = sqlite3.connect(db[len("sqlite:"):])
        with open(path, "w") as f:
            for line in con.iterdump():
                f.write(line + "\n")
        con.close()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--server", required=True, help="the gmlab-server binary of the earlier release")
    p.add_argument("--document", required=True, help="results/nvidia-h200.json")
    p.add_argument("--out", required=True)
    p.add_argument("--name", required=True, help="e.g. release-f352c5a")
    p.add_argument("--db", default="", help="an empty PostgreSQL database (default: a fresh SQLite file)")
    p.add_argument("--commit", default="", help="the commit the binary was built from, recorded in the answers")
    a = p.parse_args()
    work = tempfile.mkdtemp(prefix="gmlab-upgrade-fixture-")
    backend = "postgres" if a.db.startswith("postgres") else "sqlite"
    db = a.db or "sqlite:" + os.path.join(work, "fixture.sqlite")
    config = os.path.join(work, "server.json")
    with open(config, "w") as f:
        json.dump({"moderator_token": MODERATOR}, f)
    os.chmod(config, stat.S_IRUSR | stat.S_IWUSR)
    opts = ["--write-rate", "0", "--read-rate", "0", "--config", config, "--admin-token", ADMIN]
    base = small_base(a.document)
    rng = random.Random(29)
    uploads = []
    srv = Server(a.server, db, work, opts, "old-1")
    try:
        k = 0
        for m in range(MODELS):
            for i in range(PER_MODEL):
                upload(srv, fx.make_document(base, fx.MODELS[m], rng, i), k, "fixture-%d-%d" % (m, i), uploads)
                k += 1
        moderate(srv, uploads[1]["id"], "hide", "fixture: hidden by the moderator")
        moderate(srv, uploads[PER_MODEL + 2]["id"], "hold", "fixture: held by the moderator")
        gone = uploads[2 * PER_MODEL]
        st, _, _ = srv.json("DELETE", "/api/v1/results/" + gone["id"], headers={"Authorization": "Bearer " + gone["delete_token"]})
        if st != 200:
            raise RuntimeError("delete: %s" % st)
        if wait_folded(srv)["pending"]:
            raise RuntimeError("the aggregates were not folded within 60 s")
        # Two more, and the server stopped before its refresher (which waits
        # a second after an upload) folds them: they stay queued.
        for i in range(2):
            upload(srv, fx.make_document(base, fx.MODELS[0], rng, PER_MODEL + i), k, "fixture-queued-%d" % i, uploads)
            k += 1
        srv.proc.send_signal(signal.SIGTERM)
        srv.proc.wait(timeout=30)
    finally:
        srv.stop()
    os.makedirs(a.out, exist_ok=True)
    sql = os.path.join(a.out, "%s.%s.sql" % (a.name, backend))
    dump(db, sql)
    srv = Server(a.server, db, work, opts, "old-2")
    try:
        if wait_folded(srv)["pending"]:
            raise RuntimeError("the aggregates were not folded within 60 s")
        made = answers(srv, uploads)
    finally:
        srv.stop()
    made["made_by"] = {"binary": "gmlab-server", "commit": a.commit, "backend": backend,
                       "script": "tests/server/ops/make_upgrade_fixture.py"}
    made["deleted"] = [gone["id"]]
    with open(os.path.join(a.out, "%s.%s.json" % (a.name, backend)), "w") as f:
        json.dump(made, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote %s (%d bytes) and its answers" % (sql, os.path.getsize(sql)))
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
