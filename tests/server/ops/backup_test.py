#!/usr/bin/env python3
"""A backup taken while uploads go on, restored into a fresh database:
every upload acknowledged before the backup began is there, and once the
original is brought to the same uploads (those acknowledged after the
snapshot deleted from it with the admin token), both answer the same counts,
aggregates, experiment tables and GPU pages.

SQLite: gmlab-server backup --db URL --to FILE and gmlab-server restore
--from FILE --db URL. PostgreSQL: pg_dump --format=custom --compress=1 and pg_restore,
exactly as deploy/README.md ("Backups") gives them. Then what an operator
may get wrong: a target that exists or cannot be written, a source that is
not a gmlab-server database, a PostgreSQL URL given to gmlab-server backup;
each is refused with the reason, and nothing is left behind."""
import glob
import json
import os
import subprocess
import sys
import threading
import time
import urllib.parse

SERVER_TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, SERVER_TESTS)
from harness import Checks, Server, arguments, as_new_run, default_db, fresh_workdir, load_document, trimmed, wait_folded  # noqa: E402

ADMIN = "backup-test-admin-token-0123456789"
OPTS = ["--write-rate", "0", "--read-rate", "0", "--admin-token", ADMIN]
UPLOADERS = 2


def uploads(srv, head, stop, acked, lock, tag):
    i = 0
    while not stop.is_set():
        sid = "%s-%d" % (tag, i)
        i += 1
        try:
            st, _, r = srv.json("POST", "/api/v1/results", as_new_run(head + ', "submission_id": "%s"}' % sid, sid))
        except OSError:
            continue
        if st in (200, 201):
            with lock:
                acked[sid] = r["id"]


def same(c, a, b, doc):
    """Both servers answer the same for every model and experiment."""
    sa, sb = wait_folded(a), wait_folded(b)
    c.check("the same number of uploads", sa == sb, (sa, sb))
    _, _, ga = a.json("GET", "/api/v1/gpus")
    _, _, gb = b.json("GET", "/api/v1/gpus")
    c.check("the same models with the same counts", ga == gb, (ga, gb))
    names = sorted({r["experiment"]["name"] for r in doc["results"]})
    diff = []
    for g in ga["gpus"]:
        for n in names:
            pa = a.request("GET", "/api/v1/gpus/%s/experiments/%s" % (g["key"], n))
            pb = b.request("GET", "/api/v1/gpus/%s/experiments/%s" % (g["key"], n))
            if (pa[0], pa[2]) != (pb[0], pb[2]):
                diff.append(("aggregate", g["key"], n))
            ea, eb = a.request("GET", "/api/v1/experiments/" + n), b.request("GET", "/api/v1/experiments/" + n)
            if (ea[0], ea[2]) != (eb[0], eb[2]):
                diff.append(("experiment", n))
        pa, pb = a.request("GET", "/gpu/" + g["key"]), b.request("GET", "/gpu/" + g["key"])
        if (pa[0], pa[2]) != (pb[0], pb[2]):
            diff.append(("page", g["key"]))
    c.check("every aggregate, experiment table and GPU page is the same (%d experiments)" % len(names), not diff, diff[:5])


def postgres_urls(db):
    u = urllib.parse.urlsplit(db)
    admin = urllib.parse.urlunsplit((u.scheme, u.netloc, "/postgres", u.query, ""))
    restored = urllib.parse.urlunsplit((u.scheme, u.netloc, "/gmlab_restored", u.query, ""))
    return admin, restored


def backup_during_uploads(c, args, workdir, doc):
    pg = args.db.startswith("postgres")
    db = default_db(args)
    head = json.dumps(doc)[:-1]
    srv = Server(args.server, db, workdir, OPTS, "original")
    acked, lock, stop = {}, threading.Lock(), threading.Event()
    threads = [threading.Thread(target=uploads, args=(srv, head, stop, acked, lock, "u%d" % k)) for k in range(UPLOADERS)]
    for t in threads:
        t.start()
    restored = None
    try:
        time.sleep(1.5)
        with lock:
            before = dict(acked)
        target = os.path.join(workdir, "backup.pgdump" if pg else "backup.sqlite")
        t0 = time.time()
        if pg:
            cmd = ["pg_dump", "--format=custom", "--compress=1", "--file", target, "--dbname", db]
        else:
            cmd = [args.server, "backup", "--db", db, "--to", target]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        took = time.time() - t0
        time.sleep(0.2)
        stop.set()
        for t in threads:
            t.join()
        print("backup: %s -> exit %d in %.2f s, %d bytes; %d uploads acknowledged before it began, %d in all; %s" %
              (cmd[0], r.returncode, took, os.path.getsize(target) if os.path.exists(target) else 0, len(before),
               len(acked), r.stdout.strip() or r.stderr.strip()))
        c.check("the backup ran while uploads went on (%d acknowledged before, %d in all)" % (len(before), len(acked)),
                r.returncode == 0 and len(before) > 5 and len(acked) > len(before), (r.returncode, r.stderr))
        if not pg:
            c.check("gmlab-server backup reports the uploads, the schema version and the size",
                    "uploads, schema version 2," in r.stdout and target in r.stdout, r.stdout)
        if pg:
            admin, url = postgres_urls(db)
            subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", admin, "-c", "CREATE DATABASE gmlab_restored"],
                           check=True, capture_output=True)
            rr = subprocess.run(["pg_restore", "--no-owner", "--exit-on-error", "--dbname", url, target],
                                capture_output=True, text=True, timeout=300)
        else:
            url = "sqlite:" + os.path.join(workdir, "restored.sqlite")
            rr = subprocess.run([args.server, "restore", "--from", target, "--db", url], capture_output=True, text=True, timeout=300)
        c.check("the restore into a fresh database succeeds", rr.returncode == 0, rr.stderr[-800:])
        restored = Server(args.server, url, workdir, OPTS, "restored")
        missing = [sid for sid, rid in before.items() if restored.request("GET", "/api/v1/results/" + rid)[0] != 200]
        c.check("every upload acknowledged before the backup began is in the restored database", not missing, missing[:5])
        later = [rid for sid, rid in acked.items() if sid not in before and restored.request("GET", "/api/v1/results/" + rid)[0] != 200]
        for rid in later:
            srv.request("DELETE", "/api/v1/results/" + rid, headers={"Authorization": "Bearer " + ADMIN})
        print("%d uploads acknowledged after the snapshot were deleted from the original to compare" % len(later))
        doc_a = srv.request("GET", "/api/v1/results/%s?format=document" % next(iter(before.values())))
        doc_b = restored.request("GET", "/api/v1/results/%s?format=document" % next(iter(before.values())))
        c.check("a stored document reads back the same from the restored database", doc_a[2] == doc_b[2] and doc_a[0] == 200)
        same(c, srv, restored, doc)
    finally:
        stop.set()
        srv.stop()
        if restored:
            restored.stop()


def bad_input(c, args, workdir):
    def run(*a):
        return subprocess.run([args.server, *a], capture_output=True, text=True, timeout=60)

    db = "sqlite:" + os.path.join(workdir, "small.sqlite")
    Server(args.server, db, workdir, OPTS, "small").stop()
    ok = os.path.join(workdir, "small-backup.sqlite")
    r = run("backup", "--db", db, "--to", ok)
    c.check("backup of a stopped server's database", r.returncode == 0 and os.path.exists(ok), r.stderr)
    size = os.path.getsize(ok)
    r = run("backup", "--db", db, "--to", ok)
    c.check("a backup target that exists: exit 1, 'already exists', the file untouched",
            r.returncode == 1 and "already exists" in r.stderr and os.path.getsize(ok) == size, (r.returncode, r.stderr))
    r = run("backup", "--db", db, "--to", "/nonexistent-folder/b.sqlite")
    c.check("a target in a folder that does not exist: exit 1, 'not writable'",
            r.returncode == 1 and "not writable" in r.stderr, (r.returncode, r.stderr))
    if os.geteuid() != 0:
        ro = os.path.join(workdir, "read-only")
        os.makedirs(ro)
        os.chmod(ro, 0o500)
        r = run("backup", "--db", db, "--to", os.path.join(ro, "b.sqlite"))
        c.check("a target in a read-only folder: exit 1, 'not writable'", r.returncode == 1 and "not writable" in r.stderr, r.stderr)
    r = run("backup", "--db", "sqlite:" + os.path.join(workdir, "nothing-here.sqlite"), "--to", os.path.join(workdir, "b2.sqlite"))
    c.check("a database that does not exist: exit 1, and it is not created",
            r.returncode == 1 and "does not exist" in r.stderr and not os.path.exists(os.path.join(workdir, "nothing-here.sqlite")),
            r.stderr)
    other = os.path.join(workdir, "other.sqlite")
    subprocess.run(["python3", "-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('create table t(x)'); c.commit()", other],
                   check=True)
    r = run("backup", "--db", "sqlite:" + other, "--to", os.path.join(workdir, "b3.sqlite"))
    c.check("a file that is not a gmlab-server database: exit 1, said so", r.returncode == 1 and "not a gmlab-server database" in r.stderr,
            r.stderr)
    r = run("restore", "--from", ok, "--db", db)
    c.check("a restore onto a database that exists: exit 1, 'already exists'", r.returncode == 1 and "already exists" in r.stderr,
            r.stderr)
    r = run("restore", "--from", other, "--db", "sqlite:" + os.path.join(workdir, "r2.sqlite"))
    c.check("restoring a file that is not a backup: exit 1", r.returncode == 1 and "not a gmlab-server database" in r.stderr, r.stderr)
    r = run("backup", "--db", "postgresql://u@127.0.0.1:1/x", "--to", os.path.join(workdir, "pg.dump"))
    c.check("gmlab-server backup of a PostgreSQL URL: exit 1 naming pg_dump", r.returncode == 1 and "pg_dump" in r.stderr, r.stderr)
    r = run("backup", "--db", db)
    c.check("backup without --to: exit 2 with the usage", r.returncode == 2 and "usage" in r.stderr, r.stderr)
    left = glob.glob(os.path.join(workdir, "*.partial-*"))
    c.check("no partial file is left behind by any of them", not left, left)
    r = run("restore", "--from", ok, "--db", "sqlite:" + os.path.join(workdir, "r3.sqlite"))
    c.check("restore of the small backup: exit 0, and it opens", r.returncode == 0 and "schema version 2" in r.stdout, r.stdout + r.stderr)


def main():
    args = arguments(__doc__)
    workdir = fresh_workdir(os.path.abspath(args.workdir))
    c = Checks()
    doc = trimmed(load_document(args.document), 2)
    backup_during_uploads(c, args, workdir, doc)
    bad_input(c, args, workdir)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
