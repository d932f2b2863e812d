#!/usr/bin/env python3
"""Upgrades: this server opens a database written by the last release
(fixtures made by tests/server/ops/make_upgrade_fixture.py with that
release's gmlab-server, kept as SQL text in tests/server/ops/upgrade/),
brings it to the current schema version in one transaction at start, and
answers what the old server answered: every stored upload reads back byte
for byte, deleted ones stay deleted, statuses, models, aggregates, the view
across models and the moderation log are the same. Uploads the old server
left queued are folded once. A second start changes nothing; a database
stamped with a newer schema version is refused with a clear message and left
as it was; a fresh database gets the current version.

Run with --db postgres://... (an empty database) for PostgreSQL; the fixture
is loaded with psql."""
import glob
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import urllib.parse

SERVER_TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, SERVER_TESTS)
from harness import Checks, Server, arguments, fresh_workdir, wait_folded  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "upgrade")
MODERATOR = "fixture-moderator-token-0123456789"
SCHEMA_VERSION = 2


def psql(url, *a, capture=True):
    return subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, *a], check=True,
                          capture_output=capture, text=True)


def pg_scalar(url, q):
    return psql(url, "-A", "-t", "-c", q).stdout.strip()


class Backend:
    """Loads a fixture into a fresh database and reads its schema version."""

    def __init__(self, args, workdir):
        self.pg = args.db.startswith("postgres")
        self.args, self.workdir = args, workdir
        if self.pg:
            u = urllib.parse.urlsplit(args.db)
            self.admin = urllib.parse.urlunsplit((u.scheme, u.netloc, "/postgres", u.query, ""))
            self.make_url = lambda name: urllib.parse.urlunsplit((u.scheme, u.netloc, "/" + name, u.query, ""))

    def load(self, sql_path, name):
        if self.pg:
            psql(self.admin, "-c", 'CREATE DATABASE "%s"' % name)
            url = self.make_url(name)
            psql(url, "-f", sql_path)
            return url
        path = os.path.join(self.workdir, name + ".sqlite")
        con = sqlite3.connect(path)
        with open(sql_path) as f:
            con.executescript(f.read())
        con.close()
        return "sqlite:" + path

    def fresh(self, name):
        if self.pg:
            psql(self.admin, "-c", 'CREATE DATABASE "%s"' % name)
            return self.make_url(name)
        return "sqlite:" + os.path.join(self.workdir, name + ".sqlite")

    def version(self, url):
        if self.pg:
            if pg_scalar(url, "SELECT to_regclass('gmlab_schema') IS NULL") == "t":
                return 0
            return int(pg_scalar(url, "SELECT max(version) FROM gmlab_schema") or 0)
        con = sqlite3.connect(url[len("sqlite:"):])
        v = con.execute("PRAGMA user_version").fetchone()[0]
        con.close()
        return v

    def set_version(self, url, v):
        if self.pg:
            psql(url, "-c", "UPDATE gmlab_schema SET version = %d" % v)
        else:
            con = sqlite3.connect(url[len("sqlite:"):])
            con.execute("PRAGMA user_version = %d" % v)
            con.commit()
            con.close()

    def tables(self, url):
        if self.pg:
            return pg_scalar(url, "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname = 'public'")
        con = sqlite3.connect(url[len("sqlite:"):])
        t = ",".join(r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"))
        con.close()
        return t


def compare(c, srv, want, label):
    """The server's answers against the old server's."""
    stats = wait_folded(srv)
    c.check("%s: the stats are the old server's (%s)" % (label, want["stats"]), stats == want["stats"], stats)
    bad = []
    for u in want["uploads"]:
        st, _, doc = srv.request("GET", "/api/v1/results/%s?format=document" % u["id"])
        if st != u["http_status"]:
            bad.append((u["id"], "status", st))
            continue
        if st != 200:
            continue
        if hashlib.sha256(doc).hexdigest() != u["document_sha256"]:
            bad.append((u["id"], "document"))
        _, _, meta = srv.json("GET", "/api/v1/results/" + u["id"])
        if meta["created_at"] != u["created_at"] or meta["gpu"]["key"] != u["gpu"]:
            bad.append((u["id"], "meta"))
        _, _, standing = srv.json("GET", "/api/v1/results/%s/standing" % u["id"])
        if standing["status"] != u["status"]:
            bad.append((u["id"], "status", standing["status"], u["status"]))
    stored = sum(1 for u in want["uploads"] if u["http_status"] == 200)
    c.check("%s: every one of the %d stored uploads reads back byte for byte, with its model, date and status; "
            "the deleted one stays deleted" % (label, stored), not bad, bad[:5])
    _, _, gpus = srv.json("GET", "/api/v1/gpus")
    c.check("%s: the models and their counts are the old server's" % label, gpus["gpus"] == want["gpus"], gpus)
    diff = []
    for key, exps in want["aggregates"].items():
        for name, agg in exps.items():
            st, _, got = srv.json("GET", "/api/v1/gpus/%s/experiments/%s" % (key, name))
            if (got if st == 200 else None) != agg:
                diff.append((key, name))
    c.check("%s: every model's aggregate of every experiment is the old server's" % label, not diff, diff)
    diff = [n for n, table in want["experiments"].items() if srv.json("GET", "/api/v1/experiments/" + n)[2] != table]
    c.check("%s: the view across models is the old server's" % label, not diff, diff)
    _, _, log = srv.json("GET", "/api/v1/moderation/log", headers={"Authorization": "Bearer " + MODERATOR})
    c.check("%s: the moderation log is the old server's" % label, log["log"] == want["moderation_log"], log)


def config(workdir):
    path = os.path.join(workdir, "server.json")
    with open(path, "w") as f:
        json.dump({"moderator_token": MODERATOR}, f)
    os.chmod(path, 0o600)
    return ["--write-rate", "0", "--read-rate", "0", "--config", path]


def main():
    args = arguments(__doc__)
    workdir = fresh_workdir(os.path.abspath(args.workdir))
    c = Checks()
    be = Backend(args, workdir)
    kind = "postgres" if be.pg else "sqlite"
    opts = config(workdir)
    fixtures = sorted(glob.glob(os.path.join(FIXTURES, "*.%s.sql" % kind)))
    c.check("there are %s fixtures" % kind, fixtures, FIXTURES)
    for n, sql in enumerate(fixtures):
        name = os.path.basename(sql)[: -len(".%s.sql" % kind)]
        with open(sql[:-len(".sql")] + ".json") as f:
            want = json.load(f)
        url = be.load(sql, "upgrade_%d" % n)
        c.check("%s: the fixture has no schema version (written before versions were kept)" % name, be.version(url) == 0,
                be.version(url))
        tables = be.tables(url)
        srv = Server(args.server, url, workdir, opts, "upgrade-%d" % n)
        try:
            c.check("%s: opened and brought to schema version %d" % (name, SCHEMA_VERSION), be.version(url) == SCHEMA_VERSION,
                    be.version(url))
            c.check("%s: no table was lost or added by the upgrade" % name,
                    set(be.tables(url).split(",")) - {"gmlab_schema"} == set(tables.split(",")), (tables, be.tables(url)))
            compare(c, srv, want, name)
        finally:
            srv.stop()
        srv = Server(args.server, url, workdir, opts, "upgrade-%d-again" % n)
        try:
            c.check("%s: a second start changes nothing" % name, be.version(url) == SCHEMA_VERSION)
            compare(c, srv, want, name + ", started again")
        finally:
            srv.stop()

        # A database from the future.
        be.set_version(url, 99)
        r = subprocess.run([args.server, "--db", url, "--listen", "127.0.0.1:0"], capture_output=True, text=True, timeout=60)
        c.check("%s stamped with schema version 99: refused, exit 1, saying so" % name,
                r.returncode == 1 and "schema version 99" in r.stderr and "newer" in r.stderr and "nothing was changed" in r.stderr,
                (r.returncode, r.stderr))
        c.check("... and left as it was (still version 99)", be.version(url) == 99, be.version(url))
        r = subprocess.run([args.server, "backup", "--db", url, "--to", os.path.join(workdir, "future.sqlite")],
                           capture_output=True, text=True, timeout=60)
        c.check("... and backup refuses it too (SQLite) or points to pg_dump (PostgreSQL)",
                r.returncode == 1 and ("schema version 99" in r.stderr or "pg_dump" in r.stderr), r.stderr)

    url = be.fresh("fresh_db")
    Server(args.server, url, workdir, opts, "fresh").stop()
    c.check("a fresh database gets schema version %d" % SCHEMA_VERSION, be.version(url) == SCHEMA_VERSION, be.version(url))
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
