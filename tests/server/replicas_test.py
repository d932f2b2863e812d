#!/usr/bin/env python3
"""Two gmlab-server processes on one PostgreSQL database behave as one
service: a client's write limit holds across both, a submission_id retried on
the other replica (or raced on both) is stored once, a delete token works on
either, and both answer the same counts and aggregates at once.

Run with --db postgres://... (run_with_postgres.sh passes one)."""
import json
import sys
import threading

from harness import Checks, Server, arguments, as_new_run, fresh_workdir, load_document, trimmed

KEY = "nvidia-h200-cc9.0-140gib-6016bit"
BURST = 6


def main():
    args = arguments(__doc__)
    if not args.db.startswith("postgres"):
        print("replicas_test: --db must be a postgres:// URL")
        return 2
    fresh_workdir(args.workdir)
    c = Checks()
    doc = trimmed(load_document(args.document), 2)
    head = json.dumps(doc)[:-1]
    body = lambda sid: as_new_run(f'{head}, "submission_id": "{sid}"}}', sid)
    # Clients are told apart by X-Forwarded-For from the trusted loopback, so
    # that each part of the test has a bucket of its own. The write rate is
    # low enough that no token comes back while the burst is spent.
    opts = ["--write-rate", "0.05", "--write-burst", str(BURST), "--read-rate", "0", "--trusted-proxy", "127.0.0.1"]
    a = Server(args.server, args.db, args.workdir, opts, "replica-a")
    b = Server(args.server, args.db, args.workdir, opts, "replica-b")
    replicas = [a, b]
    try:
        def post(srv, sid, client):
            return srv.json("POST", "/api/v1/results", body(sid), {"X-Forwarded-For": client})

        # 1. One client's write limit across both replicas: uploads alternate.
        statuses = []
        for i in range(2 * BURST + 4):
            st, hdrs, _ = post(replicas[i % 2], f"limit-{i}", "10.0.0.1")
            statuses.append((i % 2, st, hdrs.get("retry-after")))
        accepted = [s for s in statuses if s[1] == 201]
        c.check(f"the burst of {BURST} writes is shared by both replicas", len(accepted) == BURST,
                [s[1] for s in statuses])
        c.check("both replicas took part of the burst", {s[0] for s in accepted} == {0, 1}, accepted)
        refused = [s for s in statuses[BURST:] if s[1] == 429]
        c.check("every write past the burst is refused, by either replica",
                len(refused) == len(statuses) - BURST and {s[0] for s in refused} == {0, 1}, statuses[BURST:])
        c.check("a refusal says when to retry", all(s[2] and int(s[2]) >= 1 for s in refused), refused[:2])
        st, _, _ = post(a, "limit-other", "10.0.0.2")
        c.check("another client's bucket is its own", st == 201, st)

        # 2. A submission retried on the other replica is stored once.
        st, _, first = post(a, "retry-1", "10.0.0.3")
        st2, _, again = post(b, "retry-1", "10.0.0.3")
        c.check("a retry on the other replica gets the first upload's id",
                st == 201 and st2 == 200 and again["duplicate"] and again["id"] == first["id"], (st, st2, again))
        c.check("the retry hands out no delete token", "delete_token" not in again, again)

        # 3. The same submission raced on both replicas: one 201, the rest 200 with its id.
        _, _, before = a.json("GET", "/api/v1/stats")
        results, lock = [], threading.Lock()

        def racer(k):
            try:
                r = post(replicas[k % 2], "race-1", f"10.0.1.{k}")
            except OSError as e:
                r = (None, None, str(e))
            with lock:
                results.append(r)

        threads = [threading.Thread(target=racer, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        created = [r for r in results if r[0] == 201]
        ids = {r[2]["id"] for r in results if r[0] in (200, 201)}
        c.check("a raced submission is created once", len(created) == 1 and len(ids) == 1,
                [(r[0], r[2]) for r in results])
        _, _, after = b.json("GET", "/api/v1/stats")
        c.check("and stored once", after["results"] == before["results"] + 1, (before, after))

        # 4. A delete token works on either replica.
        st, _, up = post(a, "delete-me", "10.0.0.4")
        st_wrong, _, _ = b.json("DELETE", "/api/v1/results/" + up["id"], None,
                                {"Authorization": "Bearer " + "0" * 32, "X-Forwarded-For": "10.0.0.4"})
        st_del, _, _ = b.json("DELETE", "/api/v1/results/" + up["id"], None,
                              {"Authorization": "Bearer " + up["delete_token"], "X-Forwarded-For": "10.0.0.4"})
        st_get = a.request("GET", "/api/v1/results/" + up["id"])[0]
        c.check("a wrong token is refused by the other replica", st_wrong == 403, st_wrong)
        c.check("the token of an upload on one replica deletes it on the other", st_del == 200 and st_get == 404,
                (st_del, st_get))

        # 5. Counts and aggregates agree at once, whichever replica answers.
        _, _, sa = a.json("GET", "/api/v1/stats")
        _, _, ga = a.json("GET", "/api/v1/gpus")
        _, _, gb = b.json("GET", "/api/v1/gpus")
        c.check("both replicas list the same models and counts", ga == gb and ga["gpus"][0]["uploads"] == sa["results"],
                (ga, gb, sa))
        path = f"/api/v1/gpus/{KEY}/experiments/stream"
        sta, _, xa = a.json("GET", path)
        stb, _, xb = b.json("GET", path)
        c.check("both replicas answer the same aggregate, counting every stored upload",
                sta == 200 and xa == xb and xa["uploads"] == sa["results"], (sta, stb, xa and xa.get("uploads"), sa))
    finally:
        for s in replicas:
            s.stop()
    for name in ("replica-a", "replica-b"):
        with open(f"{args.workdir}/{name}.log") as f:
            log = f.read()
        c.check(f"{name} logged no refresh failure", "refreshing the aggregates" not in log, log[-500:])
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
