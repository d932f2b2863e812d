// The PostgreSQL storage's writes: an upload with its point sets and queue
// entry in one statement, a delete, moderation's set_counted, and the rate
// limit's tokens (rows of rate_buckets, shared by every server process).
#include <chrono>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "storage/point_codec.hpp"
#include "storage/postgres/internal.hpp"
#include "storage/rate_limit.hpp"

namespace gmserver::postgres {

InsertOutcome PostgresStorage::insert(const StoredRun &run, const std::vector<PointRow> &points, StoredRun *existing) {
    const std::string memory = std::to_string(run.gpu.memory_bytes);
    const std::string bus = std::to_string(run.gpu.bus_width_bits);
    for (const std::string *f : {&run.id, &run.submission_id, &run.delete_token_hash, &run.created_at, &run.gpu.key,
                                 &run.gpu.name, &run.gpu.compute_capability, &run.gpu.driver_version,
                                 &run.gpu.runtime_version})
        check_text(*f, "a run field");
    // The document goes compressed (the client's gzip as it came, or zstd),
    // into a column PostgreSQL does not compress again.
    const std::string document = packed_document(run);
    // Points packed per experiment, before any connection is taken.
    const auto by_experiment = points_by_experiment(points);
    BinaryArray experiments(kTextOid), sets(kByteaOid);
    for (const auto &[experiment, rows] : by_experiment) {
        check_text(experiment, "an experiment name");
        experiments.add(experiment);
        sets.add(encode_points(rows));
    }
    const std::string exps = experiments.bytes(), data = sets.bytes();
    const InsertOutcome outcome = with_connection([&](PGconn *c, bool &committing) {
        // One statement is one transaction: once it is sent its outcome may
        // be unknown, so it is never retried.
        committing = true;
        Result r = exec(c, "insert_run",
                        {run.id, run.submission_id, run.delete_token_hash, run.created_at, run.gpu.key, run.gpu.name,
                         run.gpu.compute_capability, memory, bus, run.gpu.driver_version, run.gpu.runtime_version,
                         Param(document, true), Param(exps, true), Param(data, true)},
                        PGRES_TUPLES_OK);
        if (r.rows() > 0) return InsertOutcome::Inserted;
        if (existing) {
            Result e = exec(c, "get_by_submission", {run.submission_id}, PGRES_TUPLES_OK);
            if (e.rows() != 1) throw std::runtime_error("postgres: duplicate submission vanished");
            *existing = run_from(e, 0);
        }
        return InsertOutcome::DuplicateSubmission;
    });
    if (outcome == InsertOutcome::Inserted && refresher_) refresher_->poke();
    return outcome;
}

// In one transaction holding the model's lock (so no fold of the model runs
// meanwhile): change(c, gpu_key) with the model of run `id`, committed when
// it returns. False, with nothing changed, when there is no such run.
bool PostgresStorage::change_run(const std::string &id,
                                 const std::function<bool(PGconn *, const std::string &)> &change) {
    if (id.find('\0') != std::string::npos) return false;
    return with_connection([&](PGconn *c, bool &committing) {
        Result k = exec(c, "run_model", {id}, PGRES_TUPLES_OK);
        if (k.rows() == 0) return false;
        const std::string gpu_key = k.text(0, 0);
        Transaction tx(c);
        exec(c, "lock_model", {gpu_key}, PGRES_TUPLES_OK);
        // A concurrent delete of the same run may have won the lock.
        if (exec(c, "lock_run", {id}, PGRES_TUPLES_OK).rows() == 0) return false;
        const bool result = change(c, gpu_key);
        committing = true;  // from here on the outcome may be unknown: no retry
        tx.commit();
        return result;
    });
}

// A run still queued leaves the queue; a folded one is subtracted from the
// stored aggregates. Then its rows go.
bool PostgresStorage::remove(const std::string &id) {
    return change_run(id, [&](PGconn *c, const std::string &gpu_key) {
        // One left out of the aggregates (set_counted) is in neither.
        const bool was_uncounted = affected(exec(c, "recount", {id}, PGRES_COMMAND_OK)) > 0;
        if (affected(exec(c, "unqueue_run", {id}, PGRES_COMMAND_OK)) == 0 && !was_uncounted) {
            subtract_folded(c, id, gpu_key);
        }
        exec(c, "delete_point_sets", {id}, PGRES_COMMAND_OK);
        return affected(exec(c, "delete_run", {id}, PGRES_COMMAND_OK)) > 0;
    });
}

// A run already folded into its model's aggregates leaves them: its point
// sets are folded out and the model counts one upload less. Inside the
// caller's transaction, holding the model's lock.
void PostgresStorage::subtract_folded(PGconn *c, const std::string &id, const std::string &gpu_key) {
    States states(*this, c, gpu_key);
    Result sets = exec(c, "run_point_sets", {id}, PGRES_TUPLES_OK, true);
    for (int i = 0; i < sets.rows(); ++i) states.fold(sets.text(i, 0), sets.bytes(i, 1), -1);
    states.save();
    exec(c, "unfold_model", {gpu_key}, PGRES_COMMAND_OK);
}

// --- Moderation: uploads left out of the aggregates (crowd/crowd.hpp) ---
// Leaving out takes the run from the queue, or subtracts it if folded;
// counting again queues it for the refresher.
bool PostgresStorage::set_counted(const std::string &id, bool counted) {
    bool requeued = false;
    const bool found = change_run(id, [&](PGconn *c, const std::string &gpu_key) {
        requeued = false;
        const bool uncounted = exec(c, "uncounted_has", {id}, PGRES_TUPLES_OK).rows() > 0;
        if (!counted && !uncounted) {
            if (affected(exec(c, "unqueue_run", {id}, PGRES_COMMAND_OK)) == 0) subtract_folded(c, id, gpu_key);
            exec(c, "uncount", {id, gpu_key}, PGRES_COMMAND_OK);
        } else if (counted && uncounted) {
            exec(c, "recount", {id}, PGRES_COMMAND_OK);
            exec(c, "requeue_run", {id}, PGRES_COMMAND_OK);
            requeued = true;
        }
        return true;
    });
    if (requeued && refresher_) refresher_->poke();
    return found;
}

bool PostgresStorage::take_token(const std::string &client, bool write, double rate, double burst, int *retry_after_s) {
    if (rate <= 0) return true;
    if (burst < 1) burst = 1;
    const std::string key = (write ? "w " : "r ") + client;
    if (key.find('\0') != std::string::npos) return false;
    const std::string r = float_text(rate), b = float_text(burst);
    maybe_sweep_tokens();
    Result res = with_connection([&](PGconn *c, bool &) { return exec(c, "take_token", {key, r, b}, PGRES_TUPLES_OK); });
    if (res.rows() == 1 && res.text(0, 0) == "t") return true;
    if (retry_after_s) *retry_after_s = retry_after_seconds(res.rows() == 1 ? res.f64(0, 1) : 0, rate);
    return false;
}

// Now and then (every 60 s per process) the full buckets are deleted, so
// that many distinct clients cannot grow the table without bound.
void PostgresStorage::maybe_sweep_tokens() {
    const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    auto last = last_sweep_.load();
    if (now - last < std::chrono::steady_clock::duration(std::chrono::seconds(60)).count()) return;
    if (!last_sweep_.compare_exchange_strong(last, now)) return;
    with_connection([&](PGconn *c, bool &) { return exec(c, "sweep_tokens", {}, PGRES_COMMAND_OK); });
}

}  // namespace gmserver::postgres
