// The SQLite storage's refresher: queued uploads folded into the stored
// per-model aggregates (BackgroundRefresher calls refresh()).
#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "storage/sqlite/internal.hpp"

namespace gmserver::sqlite {

std::size_t SqliteStorage::refresh(std::size_t max_runs) {
    std::vector<std::string> models;
    {
        std::lock_guard<std::mutex> lock(mu_);
        Stmt q(db_, "SELECT DISTINCT gpu_key FROM agg_queue");
        while (q.step()) models.push_back(q.text(0));
    }
    return fold_queued_models(models, max_runs, kRefreshBatch,
                              [this](const std::string &key, std::size_t limit) { return fold_model(key, limit); });
}

// The model's queued uploads, oldest first, read through `c` (its mutex held).
std::vector<std::string> SqliteStorage::pending_runs(sqlite3 *c, const std::string &gpu_key, std::size_t limit) {
    Stmt q(c, "SELECT run_id FROM agg_queue WHERE gpu_key = ? ORDER BY created_at, run_id LIMIT ?");
    q.bind(1, gpu_key);
    sqlite3_bind_int64(q.s, 2, static_cast<sqlite3_int64>(limit));
    std::vector<std::string> out;
    while (q.step()) out.push_back(q.text(0));
    return out;
}

// Folds up to `limit` of the model's queued uploads, oldest first, in one
// transaction: their points into the stored aggregates, their count into
// models, and their queue rows deleted. SQLite has one writer at a time,
// so no two folds (of this or another process) overlap.
std::size_t SqliteStorage::fold_model(const std::string &gpu_key, std::size_t limit) {
    std::lock_guard<std::mutex> lock(mu_);
    exec_cached("BEGIN IMMEDIATE");
    try {
        const std::vector<std::string> runs = pending_runs(db_, gpu_key, limit);
        if (runs.empty()) {
            exec_cached("COMMIT");
            return 0;
        }
        States states(*this, gpu_key);
        Stmt sets(db_, writer_statements_, "SELECT experiment, data FROM point_sets WHERE run_id = ?");
        Stmt dq(db_, writer_statements_, "DELETE FROM agg_queue WHERE run_id = ?");
        for (const std::string &run : runs) {
            sqlite3_reset(sets.s);
            sets.bind(1, run);
            while (sets.step()) states.fold(sets.text(0), sets.blob(1), +1);
            sqlite3_reset(dq.s);
            dq.bind(1, run);
            dq.done();
        }
        states.save();
        Stmt m(db_, writer_statements_, "INSERT INTO models (gpu_key, uploads) VALUES (?, ?)"
                    " ON CONFLICT(gpu_key) DO UPDATE SET uploads = uploads + excluded.uploads");
        m.bind(1, gpu_key);
        sqlite3_bind_int64(m.s, 2, static_cast<sqlite3_int64>(runs.size()));
        m.done();
        exec_cached("COMMIT");
        return runs.size();
    } catch (...) {
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
}

SqliteStorage::States::States(SqliteStorage &s, const std::string &gpu_key)
    : ModelStates("SQLite", gpu_key,
                  [&s, gpu_key](const std::string &experiment) {
                      Stmt q(s.db_, "SELECT state FROM aggregates WHERE gpu_key = ? AND experiment = ?");
                      q.bind(1, gpu_key);
                      q.bind(2, experiment);
                      return q.step() ? HistogramAggregate::decode(q.blob(0)) : HistogramAggregate();
                  }),
      s_(s) {}

void SqliteStorage::States::save() {
    Stmt put(s_.db_, "INSERT OR REPLACE INTO aggregates (gpu_key, experiment, uploads, state, result) VALUES (?,?,?,?,?)");
    Stmt del(s_.db_, "DELETE FROM aggregates WHERE gpu_key = ? AND experiment = ?");
    for (const auto &[experiment, h] : states()) {
        if (h.empty()) {
            sqlite3_reset(del.s);
            del.bind(1, gpu_key());
            del.bind(2, experiment);
            del.done();
            continue;
        }
        const std::string state = h.encode(), result = h.result().dump();
        sqlite3_reset(put.s);
        put.bind(1, gpu_key());
        put.bind(2, experiment);
        sqlite3_bind_int64(put.s, 3, static_cast<sqlite3_int64>(h.uploads()));
        put.bind_blob(4, state);
        put.bind(5, result);
        put.done();
    }
}

}  // namespace gmserver::sqlite
