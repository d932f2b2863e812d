// The SQLite storage's writes: an upload with its point sets and queue entry,
// a delete, moderation's set_counted, and the rate limit's tokens (in memory:
// an SQLite file is served by one process).
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "storage/point_codec.hpp"
#include "storage/sqlite/internal.hpp"

namespace gmserver::sqlite {

InsertOutcome SqliteStorage::insert(const StoredRun &run, const std::vector<PointRow> &points, StoredRun *existing) {
    // The expensive part, compression and packing, happens before the lock.
    const std::string document = packed_document(run);
    const auto by_experiment = points_by_experiment(points);
    std::vector<std::pair<const std::string *, std::string>> sets;
    for (const auto &[experiment, rows] : by_experiment) sets.emplace_back(&experiment, encode_points(rows));

    std::lock_guard<std::mutex> lock(mu_);
    exec_cached("BEGIN IMMEDIATE");
    try {
        if (!run.submission_id.empty()) {
            std::optional<StoredRun> found;
            {
                Stmt q(db_, writer_statements_, "SELECT " GM_SQLITE_RUN_COLUMNS " FROM runs WHERE submission_id = ?");
                q.bind(1, run.submission_id);
                if (q.step()) found = q.run();
            }
            if (found) {
                if (existing) *existing = *found;
                exec_cached("ROLLBACK");
                return InsertOutcome::DuplicateSubmission;
            }
        }
        Stmt ins(db_, writer_statements_, "INSERT INTO runs (id, submission_id, delete_token_hash, created_at, gpu_key, gpu_name, cc,"
                      " memory_bytes, bus_width, driver, runtime, document) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)");
        ins.bind(1, run.id);
        if (run.submission_id.empty()) sqlite3_bind_null(ins.s, 2);
        else ins.bind(2, run.submission_id);
        ins.bind(3, run.delete_token_hash);
        ins.bind(4, run.created_at);
        ins.bind(5, run.gpu.key);
        ins.bind(6, run.gpu.name);
        ins.bind(7, run.gpu.compute_capability);
        sqlite3_bind_int64(ins.s, 8, static_cast<sqlite3_int64>(run.gpu.memory_bytes));
        sqlite3_bind_int(ins.s, 9, run.gpu.bus_width_bits);
        ins.bind(10, run.gpu.driver_version);
        ins.bind(11, run.gpu.runtime_version);
        ins.bind_blob(12, document);
        ins.done();
        insert_point_sets(run.id, run.gpu.key, sets);
        // Queued for the aggregates in the same transaction: stored means queued.
        Stmt q(db_, writer_statements_, "INSERT INTO agg_queue (run_id, gpu_key, created_at) VALUES (?,?,?)");
        q.bind(1, run.id);
        q.bind(2, run.gpu.key);
        q.bind(3, run.created_at);
        q.done();
        exec_cached("COMMIT");
    } catch (...) {
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
    if (refresher_) refresher_->poke();
    return InsertOutcome::Inserted;
}

// In one write transaction: change(gpu_key) with the model of run `id`;
// false, with nothing changed, when there is no such run.
bool SqliteStorage::change_run(const std::string &id, const std::function<bool(const std::string &)> &change) {
    std::lock_guard<std::mutex> lock(mu_);
    exec_cached("BEGIN IMMEDIATE");
    try {
        const std::optional<std::string> gpu_key = gpu_key_of(id);
        if (!gpu_key) {
            exec_cached("ROLLBACK");
            return false;
        }
        const bool result = change(*gpu_key);
        exec_cached("COMMIT");
        return result;
    } catch (...) {
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
}

// Takes run `id` out of the queue, or, when it was folded already, out of
// the aggregates. Inside the caller's write transaction.
void SqliteStorage::leave_aggregates(const std::string &id, const std::string &gpu_key) {
    if (change_rows("DELETE FROM agg_queue WHERE run_id = ?", id) == 0) subtract_folded(id, gpu_key);
}

// One of the writer's statements with run `id` as its one parameter; the
// number of rows it changed. Inside the caller's write transaction.
int SqliteStorage::change_rows(const char *sql, const std::string &id) {
    Stmt s(db_, writer_statements_, sql);
    s.bind(1, id);
    s.done();
    return sqlite3_changes(db_);
}

bool SqliteStorage::remove(const std::string &id) {
    return change_run(id, [&](const std::string &gpu_key) {
        // A queued run is not in the aggregates yet: dropping it from the
        // queue is all. A folded one is subtracted from them; one left out
        // (set_counted) is in neither.
        if (change_rows("DELETE FROM uncounted WHERE run_id = ?", id) == 0) leave_aggregates(id, gpu_key);
        else change_rows("DELETE FROM agg_queue WHERE run_id = ?", id);
        change_rows("DELETE FROM point_sets WHERE run_id = ?", id);
        return change_rows("DELETE FROM runs WHERE id = ?", id) > 0;
    });
}

// --- Moderation: uploads left out of the aggregates (crowd/crowd.hpp) ---
bool SqliteStorage::set_counted(const std::string &id, bool counted) {
    bool requeued = false;
    const bool found = change_run(id, [&](const std::string &gpu_key) {
        bool uncounted = false;
        {
            Stmt u(db_, "SELECT 1 FROM uncounted WHERE run_id = ?");
            u.bind(1, id);
            uncounted = u.step();
        }
        if (!counted && !uncounted) {
            leave_aggregates(id, gpu_key);
            Stmt ins(db_, "INSERT INTO uncounted (run_id, gpu_key) VALUES (?, ?)");
            ins.bind(1, id);
            ins.bind(2, gpu_key);
            ins.done();
        } else if (counted && uncounted) {
            change_rows("DELETE FROM uncounted WHERE run_id = ?", id);
            change_rows("INSERT INTO agg_queue (run_id, gpu_key, created_at) SELECT id, gpu_key, created_at FROM runs WHERE id = ?", id);
            requeued = true;
        }
        return true;
    });
    if (requeued && refresher_) refresher_->poke();
    return found;
}

bool SqliteStorage::take_token(const std::string &client, bool write, double rate, double burst, int *retry_after_s) {
    return buckets_.take((write ? "w " : "r ") + client, rate, burst, retry_after_s);
}

// The model a stored run was counted for; nothing when no such run.
std::optional<std::string> SqliteStorage::gpu_key_of(const std::string &id) {
    Stmt k(db_, "SELECT gpu_key FROM runs WHERE id = ?");
    k.bind(1, id);
    if (!k.step()) return std::nullopt;
    return k.text(0);
}

// A run already folded into its model's aggregates leaves them: its point
// sets are folded out and the model counts one upload less. Inside the
// caller's write transaction.
void SqliteStorage::subtract_folded(const std::string &id, const std::string &gpu_key) {
    States states(*this, gpu_key);
    Stmt sets(db_, writer_statements_, "SELECT experiment, data FROM point_sets WHERE run_id = ?");
    sets.bind(1, id);
    while (sets.step()) states.fold(sets.text(0), sets.blob(1), -1);
    states.save();
    Stmt m(db_, "UPDATE models SET uploads = uploads - 1 WHERE gpu_key = ? AND uploads > 0");
    m.bind(1, gpu_key);
    m.done();
}

void SqliteStorage::insert_point_sets(const std::string &run_id, const std::string &gpu_key,
                                      const std::vector<std::pair<const std::string *, std::string>> &sets) {
    Stmt pt(db_, writer_statements_, "INSERT INTO point_sets (run_id, gpu_key, experiment, data) VALUES (?,?,?,?)");
    for (const auto &[experiment, data] : sets) {
        sqlite3_reset(pt.s);
        pt.bind(1, run_id);
        pt.bind(2, gpu_key);
        pt.bind(3, *experiment);
        pt.bind_blob(4, data);
        pt.done();
    }
}

}  // namespace gmserver::sqlite
