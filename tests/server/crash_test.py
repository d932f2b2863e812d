#!/usr/bin/env python3
"""kill -9 gmlab-server while uploads are in flight, restart it on the same
database, and check that every upload that was answered 2xx is there, whole,
and stored once.

Every upload carries its own submission_id. One whose answer never came (the
server died under it) is retried, as a client would, until it is answered:
on the other replica at once, or on the restarted server. At the end every
submission has been acknowledged, so the stored count must equal the number of
submissions exactly: one more would be a duplicate, one fewer a loss.

--replicas 2 (PostgreSQL only) runs two servers on the database and kills one
of them in each round; uploads go to both in turn, and the survivor must keep
acknowledging uploads while the other is down."""
import argparse
import json
import sys
import threading
import time

from harness import Checks, Server, as_new_run, default_db, fresh_workdir, load_document, trimmed

ROUNDS = 3
CLIENTS = 6
KEY = "nvidia-h200-cc9.0-140gib-6016bit"
OPTS = ["--write-rate", "0", "--read-rate", "0"]


class Ledger:
    """What the clients learned: sid -> id of each acknowledged submission,
    sids whose answer never came, and answers that must not happen."""

    def __init__(self):
        self.lock = threading.Lock()
        self.acked = {}
        self.unanswered = set()
        self.errors = []
        self.conflicts = []
        self.by_port = {}  # acknowledgements per server port
        self.lost = 0  # answers lost in all (a submission may lose more than one)
        self.retried_stored = 0  # unanswered submissions that had been stored: answered 200 on retry

    def ack(self, sid, rid):
        with self.lock:
            if sid in self.acked and self.acked[sid] != rid:
                self.conflicts.append((sid, self.acked[sid], rid))
            self.acked.setdefault(sid, rid)
            self.unanswered.discard(sid)

    def count(self):
        with self.lock:
            return len(self.acked)


def post(srv, text_for, sid, ledger):
    """True when the submission was answered (acknowledged or refused)."""
    try:
        st, _, body = srv.json("POST", "/api/v1/results", text_for(sid))
    except (OSError, ValueError):
        return False  # the server died under us: the outcome is unknown
    if st in (200, 201):
        with ledger.lock:
            if st == 200 and sid in ledger.unanswered:
                ledger.retried_stored += 1
            ledger.by_port[srv.port] = ledger.by_port.get(srv.port, 0) + 1
        ledger.ack(sid, body["id"])
    else:
        with ledger.lock:
            ledger.errors.append((sid, st, body))
    return True


def uploader(servers, alive, text_for, ledger, stop, tag, first):
    i = 0
    turn = first  # which live server gets the next request: each in turn
    pending = None  # a submission whose answer never came: retried first
    while not stop.is_set():
        if pending is None:
            pending = f"{tag}-{i}"
            i += 1
        live = [s for s, up in zip(servers, alive) if up[0]]
        if not live:
            break
        srv = live[turn % len(live)]
        turn += 1
        if post(srv, text_for, pending, ledger):
            pending = None
        else:
            with ledger.lock:
                ledger.unanswered.add(pending)
                ledger.lost += 1
            if len(servers) == 1:
                pending = None  # resolved after the restart
            time.sleep(0.01)
    if pending is not None:
        with ledger.lock:
            ledger.unanswered.add(pending)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--server", required=True)
    p.add_argument("--db", default="")
    p.add_argument("--document", required=True)
    p.add_argument("--workdir", required=True)
    p.add_argument("--replicas", type=int, default=1, choices=(1, 2))
    args = p.parse_args()
    if args.replicas > 1 and not args.db.startswith("postgres"):
        print("crash_test: --replicas 2 needs a postgres:// --db")
        return 2
    fresh_workdir(args.workdir)
    c = Checks()
    doc = trimmed(load_document(args.document), 10)
    head = json.dumps(doc)[:-1]
    # Each submission a run of its own (the server stores one run once).
    text_for = lambda sid: as_new_run(f'{head}, "submission_id": "{sid}"}}', sid)
    db = default_db(args)
    ledger = Ledger()
    for rnd in range(ROUNDS):
        servers = [Server(args.server, db, args.workdir, OPTS, f"round{rnd}-{k}") for k in range(args.replicas)]
        alive = [[True] for _ in servers]
        stop = threading.Event()
        before = ledger.count()
        threads = [threading.Thread(target=uploader, args=(servers, alive, text_for, ledger, stop, f"r{rnd}c{t}", t))
                   for t in range(CLIENTS)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 20
        while ledger.count() - before < 20 and time.monotonic() < deadline:
            time.sleep(0.05)
        servers[0].kill9()  # uploads are in flight here
        alive[0][0] = False
        c.check(f"round {rnd}: uploads were acknowledged before the kill", ledger.count() - before >= 20,
                ledger.count() - before)
        if args.replicas > 1:
            # The survivor keeps the service up, the lost answers included.
            at_kill = ledger.count()
            deadline = time.monotonic() + 20
            while ledger.count() - at_kill < 20 and time.monotonic() < deadline:
                time.sleep(0.05)
            c.check(f"round {rnd}: the other replica acknowledged uploads after the kill", ledger.count() - at_kill >= 20,
                    ledger.count() - at_kill)
            served = [ledger.by_port.get(s.port, 0) for s in servers]
            c.check(f"round {rnd}: both replicas acknowledged uploads", all(n > 0 for n in served), served)
        stop.set()
        for t in threads:
            t.join()
        for s in servers[1:]:
            s.kill9()

    srv = Server(args.server, db, args.workdir, OPTS, "after")
    try:
        # Every submission whose answer was lost is retried once more now.
        unanswered = sorted(ledger.unanswered)
        lost = [sid for sid in unanswered if not post(srv, text_for, sid, ledger)]
        c.check(f"every submission whose answer was lost is answered on retry ({ledger.lost} answers lost in all, "
                f"{len(unanswered)} still open after the last round; {ledger.retried_stored} of those uploads had been "
                f"stored: 200 with the stored id)", not lost, lost[:5])
        c.check("no upload got an error", not ledger.errors, ledger.errors[:3])
        c.check("no submission was answered with two ids", not ledger.conflicts, ledger.conflicts[:3])
        acked = dict(ledger.acked)
        missing = [rid for rid in acked.values() if srv.request("GET", "/api/v1/results/" + rid)[0] != 200]
        c.check(f"all {len(acked)} acknowledged uploads survived kill -9", not missing, missing[:5])
        st, _, s = srv.json("GET", "/api/v1/stats")
        c.check(f"stored exactly once each: {s['results']} stored for {len(acked)} submissions",
                s["results"] == len(acked) and len(set(acked.values())) == len(acked), (s, len(acked)))
        sid, rid = sorted(acked.items())[len(acked) // 2]
        st, _, got = srv.json("GET", "/api/v1/results/" + rid)
        c.check("a surviving upload is whole", st == 200 and got["document"]["submission_id"] == sid
                and len(got["document"]["results"]) == len(doc["results"]))
        st, _, again = srv.json("POST", "/api/v1/results", text_for(sid))
        c.check("a retry after the crash gets the original id", st == 200 and again["id"] == rid, (st, again))
        # The aggregates count every stored upload once the refresher has
        # folded what the killed servers left queued (bounded wait).
        n, deadline = -1, time.monotonic() + 60
        while time.monotonic() < deadline:
            st, _, agg = srv.json("GET", f"/api/v1/gpus/{KEY}/experiments/stream")
            n = max(p["n"] for x in agg["series"] for p in x["points"]) if st == 200 else 0
            if n == s["results"] and agg["uploads"] == s["results"]:
                break
            time.sleep(0.5)
        c.check("the aggregates hold every stored upload once", n == s["results"], (n, s["results"]))
        _, _, gpus = srv.json("GET", "/api/v1/gpus")
        c.check("the model's count is the stored count", gpus["gpus"][0]["uploads"] == s["results"], (gpus, s))
    finally:
        srv.stop()
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
