// The SQLite storage's reads, on the read connection: runs, models, points,
// and the aggregates as readers see them (the stored ones with the model's
// queued uploads merged in).
#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/point_codec.hpp"
#include "storage/sqlite/internal.hpp"

namespace gmserver::sqlite {

std::optional<StoredRun> SqliteStorage::get(const std::string &id) {
    std::lock_guard<std::mutex> lock(rmu_);
    Stmt q(rdb_, "SELECT " GM_SQLITE_RUN_COLUMNS " FROM runs WHERE id = ?");
    q.bind(1, id);
    if (!q.step()) return std::nullopt;
    return q.run();
}

std::vector<GpuCount> SqliteStorage::gpus() {
    std::lock_guard<std::mutex> lock(rmu_);
    // The identity shown for a model is that of its most recent upload.
    // Counts come from the runs_gpu index alone and each model's latest
    // row through it: a scan of runs would read every row's document.
    std::vector<GpuCount> out;
    // Counts: each upload is either folded (models) or queued (agg_queue),
    // never both; a model's count is the sum. One read transaction, so that
    // a fold committing in between is seen entirely or not at all.
    ReadSnapshot snapshot(*this);
    {
        Stmt q(rdb_, "SELECT k, SUM(n) FROM (SELECT gpu_key AS k, uploads AS n FROM models UNION ALL"
                    " SELECT gpu_key, COUNT(*) FROM agg_queue GROUP BY gpu_key) GROUP BY k HAVING SUM(n) > 0");
        while (q.step()) {
            GpuCount g;
            g.gpu.key = q.text(0);
            g.uploads = static_cast<std::uint64_t>(sqlite3_column_int64(q.s, 1));
            out.push_back(std::move(g));
        }
    }
    Stmt latest(rdb_, "SELECT gpu_name, cc, memory_bytes, bus_width, driver, runtime FROM runs"
                     " WHERE gpu_key = ? ORDER BY created_at DESC, id DESC LIMIT 1");
    for (GpuCount &g : out) {
        sqlite3_reset(latest.s);
        latest.bind(1, g.gpu.key);
        if (!latest.step()) continue;
        g.gpu.name = latest.text(0);
        g.gpu.compute_capability = latest.text(1);
        g.gpu.memory_bytes = static_cast<std::uint64_t>(sqlite3_column_int64(latest.s, 2));
        g.gpu.bus_width_bits = sqlite3_column_int(latest.s, 3);
        g.gpu.driver_version = latest.text(4);
        g.gpu.runtime_version = latest.text(5);
    }
    // Most uploaded models first, then by key.
    std::sort(out.begin(), out.end(), [](const GpuCount &a, const GpuCount &b) {
        return a.uploads != b.uploads ? a.uploads > b.uploads : a.gpu.key < b.gpu.key;
    });
    return out;
}

std::vector<PointRow> SqliteStorage::points(const std::string &gpu_key, const std::string &experiment) {
    std::vector<PointRow> out;
    for_each_point(gpu_key, experiment, [&](const PointRow &r) { out.push_back(r); });
    return out;
}

void SqliteStorage::for_each_point(const std::string &gpu_key, const std::string &experiment,
                                   const std::function<void(const PointRow &)> &visit) {
    std::lock_guard<std::mutex> lock(rmu_);
    Stmt q(rdb_, "SELECT p.run_id, p.data FROM runs r JOIN point_sets p ON p.run_id = r.id AND p.experiment = ?2"
                " WHERE r.gpu_key = ?1 ORDER BY r.created_at, r.id");
    q.bind(1, gpu_key);
    q.bind(2, experiment);
    while (q.step()) visit_stored_points("SQLite", q.blob(1), q.text(0), experiment, visit);
}

std::vector<StoredRun> SqliteStorage::runs_of(const std::string &gpu_key, std::size_t limit) {
    std::lock_guard<std::mutex> lock(rmu_);
    Stmt q(rdb_, "SELECT id, created_at FROM runs WHERE gpu_key = ? ORDER BY created_at DESC, id LIMIT ?");
    q.bind(1, gpu_key);
    sqlite3_bind_int64(q.s, 2, static_cast<sqlite3_int64>(limit));
    std::vector<StoredRun> out;
    while (q.step()) {
        StoredRun r;
        r.id = q.text(0);
        r.created_at = q.text(1);
        r.gpu.key = gpu_key;
        out.push_back(std::move(r));
    }
    return out;
}

std::uint64_t SqliteStorage::count() {
    std::lock_guard<std::mutex> lock(rmu_);
    Stmt q(rdb_, "SELECT COUNT(*) FROM runs");
    q.step();
    return static_cast<std::uint64_t>(sqlite3_column_int64(q.s, 0));
}

std::optional<std::string> SqliteStorage::aggregate(const std::string &gpu_key, const std::string &experiment) {
    return read_aggregate(gpu_key, experiment, false);
}

std::optional<std::string> SqliteStorage::aggregate_state(const std::string &gpu_key, const std::string &experiment) {
    return read_aggregate(gpu_key, experiment, true);
}

std::vector<std::pair<std::string, std::string>> SqliteStorage::aggregates_of_experiment(const std::string &experiment) {
    std::map<std::string, std::string> by_model;
    std::vector<std::string> queued;
    {
        // One snapshot: every upload is either folded or queued in it.
        std::lock_guard<std::mutex> lock(rmu_);
        ReadSnapshot snapshot(*this);
        Stmt q(rdb_, "SELECT gpu_key, result FROM aggregates WHERE experiment = ?");
        q.bind(1, experiment);
        while (q.step()) by_model.emplace(q.text(0), q.text(1));
        Stmt m(rdb_, "SELECT DISTINCT gpu_key FROM agg_queue");
        while (m.step()) queued.push_back(m.text(0));
    }
    return with_queued_merged(std::move(by_model), queued,
                              [&](const std::string &key) { return read_aggregate(key, experiment, false); });
}

std::uint64_t SqliteStorage::pending() {
    std::lock_guard<std::mutex> lock(rmu_);
    Stmt q(rdb_, "SELECT COUNT(*) FROM agg_queue");
    q.step();
    return static_cast<std::uint64_t>(sqlite3_column_int64(q.s, 0));
}

QueueState SqliteStorage::queue_state() {
    std::lock_guard<std::mutex> lock(rmu_);
    Stmt q(rdb_, "SELECT COUNT(*), MIN(created_at) FROM agg_queue");
    q.step();
    return {static_cast<std::uint64_t>(sqlite3_column_int64(q.s, 0)), q.text(1)};
}

// aggregate() (the API's JSON) or aggregate_state() (the encoded
// histogram): the stored aggregate, with the model's queued uploads merged
// into a copy of it.
std::optional<std::string> SqliteStorage::read_aggregate(const std::string &gpu_key, const std::string &experiment, bool state) {
    std::lock_guard<std::mutex> lock(rmu_);
    // One read transaction: the stored aggregate and the queue as of one moment.
    ReadSnapshot snapshot(*this);
    const std::vector<std::string> pending = pending_runs(rdb_, gpu_key, kMaxMergedPending);
    const bool stored_form = pending.empty();  // the stored column is the answer
    Stmt a(rdb_, stored_form && !state ? "SELECT result FROM aggregates WHERE gpu_key = ? AND experiment = ?"
                                       : "SELECT state FROM aggregates WHERE gpu_key = ? AND experiment = ?");
    a.bind(1, gpu_key);
    a.bind(2, experiment);
    const bool stored = a.step();
    if (stored_form) {
        if (!stored) return std::nullopt;
        return state ? std::string(a.blob(0)) : a.text(0);
    }
    // Uploads not folded yet: merged into a copy of the stored aggregate.
    HistogramAggregate h = stored ? HistogramAggregate::decode(a.blob(0)) : HistogramAggregate();
    Stmt q(rdb_, "SELECT data FROM point_sets WHERE run_id = ? AND experiment = ?");
    PointSetFolder folder("SQLite");
    for (const std::string &run : pending) {
        sqlite3_reset(q.s);
        q.bind(1, run);
        q.bind(2, experiment);
        while (q.step()) folder.fold(h, q.blob(0), +1, "run " + run);
    }
    if (h.empty()) return std::nullopt;
    return state ? h.encode() : h.result().dump();
}

// Documents are stored as zstd or as the client's gzip; files written
// before that hold JSON text.
std::string SqliteStorage::stored_document(std::string_view data) {
    if (is_compressed_document(data)) return decompress_document(data);
    return std::string(data);
}

}  // namespace gmserver::sqlite
