#!/usr/bin/env python3
"""kill -9 gmlab-server while uploads are in flight, restart it on the same
database, and check that every upload that was answered 201 is there, whole,
and that a retry of an acknowledged submission gets its original id back."""
import json
import sys
import threading
import time

from harness import Checks, Server, arguments, default_db, fresh_workdir, load_document, trimmed

ROUNDS = 3
CLIENTS = 6


def uploader(srv, text_for, acked, stop, errors):
    i = 0
    while not stop.is_set():
        sid = f"{threading.get_ident()}-{i}-{time.monotonic_ns()}"
        i += 1
        try:
            st, _, body = srv.json("POST", "/api/v1/results", text_for(sid))
        except (OSError, ValueError):
            continue  # the server died under us: this upload was never acknowledged
        if st == 201:
            acked.append((sid, body["id"]))
        elif st is not None and st >= 500:
            errors.append(st)


def main():
    args = arguments(__doc__)
    fresh_workdir(args.workdir)
    c = Checks()
    doc = trimmed(load_document(args.document), 10)
    head, tail = json.dumps(doc)[:-1], "}"
    text_for = lambda sid: f'{head}, "submission_id": "{sid}"{tail}'
    db = default_db(args)
    acked, errors = [], []
    for rnd in range(ROUNDS):
        srv = Server(args.server, db, args.workdir, ["--write-rate", "0", "--read-rate", "0"], f"round{rnd}")
        stop = threading.Event()
        before = len(acked)
        threads = [threading.Thread(target=uploader, args=(srv, text_for, acked, stop, errors)) for _ in range(CLIENTS)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 10
        while len(acked) - before < 20 and time.monotonic() < deadline:
            time.sleep(0.05)
        srv.kill9()  # uploads are still in flight here
        stop.set()
        for t in threads:
            t.join()
        c.check(f"round {rnd}: uploads were acknowledged before the kill", len(acked) - before >= 20, len(acked) - before)
    c.check("no upload got a 5xx", not errors, errors[:5])

    srv = Server(args.server, db, args.workdir, ["--write-rate", "0", "--read-rate", "0"], "after")
    try:
        missing = [i for _, i in acked if srv.request("GET", "/api/v1/results/" + i)[0] != 200]
        c.check(f"all {len(acked)} acknowledged uploads survived kill -9", not missing, missing[:5])
        st, _, s = srv.json("GET", "/api/v1/stats")
        c.check("the stored count covers every acknowledged upload", s["results"] >= len(acked), (s, len(acked)))
        sid, rid = acked[len(acked) // 2]
        st, _, got = srv.json("GET", "/api/v1/results/" + rid)
        c.check("a surviving upload is whole", st == 200 and got["document"]["submission_id"] == sid
                and len(got["document"]["results"]) == len(doc["results"]))
        st, _, again = srv.json("POST", "/api/v1/results", text_for(sid))
        c.check("a retry after the crash gets the original id", st == 200 and again["id"] == rid, (st, again))
        st, _, agg = srv.json("GET", "/api/v1/gpus/nvidia-h200-cc9.0-140gib-6016bit/experiments/stream")
        n = max(p["n"] for s in agg["series"] for p in s["points"]) if st == 200 else 0
        c.check("points of every stored upload are there", n == s["results"], (n, s["results"]))
    finally:
        srv.stop()
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
