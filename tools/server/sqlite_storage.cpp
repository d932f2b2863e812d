#include "sqlite_storage.hpp"
#ifdef GM_HAVE_POSTGRES
#include "postgres_storage.hpp"
#endif

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <thread>

#include <sqlite3.h>

#include "aggregate.hpp"
#include "point_codec.hpp"
#include "rate_limit.hpp"
#include "refresher.hpp"

namespace gmserver {
namespace {

#define COLUMNS \
    "id, submission_id, delete_token_hash, created_at, gpu_key, gpu_name, cc, memory_bytes, bus_width, driver, runtime, document"

// Two connections, each behind a mutex: one writes (SQLite serialises
// writers anyway) and one reads (short indexed lookups), so that reads never
// wait for a write transaction.
class SqliteStorage final : public Storage {
public:
    SqliteStorage(const std::string &path, const StorageOptions &options) {
        if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr) !=
            SQLITE_OK) {
            std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
            sqlite3_close(db_);
            throw std::runtime_error("cannot open SQLite database " + path + ": " + msg);
        }
        sqlite3_busy_timeout(db_, 5000);
        // WAL with synchronous=NORMAL: a committed transaction survives the
        // process being killed (the WAL is written before COMMIT returns); only
        // a power loss may drop the last transactions.
        exec("PRAGMA journal_mode=WAL");
        exec("PRAGMA synchronous=NORMAL");
        exec("PRAGMA foreign_keys=ON");
        // Checkpoints (copying the WAL into the database, with its fsync) run
        // on a thread of their own instead of inside whichever upload's commit
        // crosses the threshold: measured, they were what held uploads up.
        exec("PRAGMA wal_autocheckpoint=0");
        // document: the run document as zstd (older files: JSON text; both are read).
        exec("CREATE TABLE IF NOT EXISTS runs ("
             " id TEXT PRIMARY KEY, submission_id TEXT UNIQUE, delete_token_hash TEXT NOT NULL,"
             " created_at TEXT NOT NULL, gpu_key TEXT NOT NULL, gpu_name TEXT NOT NULL, cc TEXT NOT NULL,"
             " memory_bytes INTEGER NOT NULL, bus_width INTEGER NOT NULL, driver TEXT NOT NULL, runtime TEXT NOT NULL,"
             " document NOT NULL)");
        exec("CREATE INDEX IF NOT EXISTS runs_gpu ON runs(gpu_key, created_at)");
        // One row per (run, experiment) with its points packed (point_codec.hpp).
        exec("CREATE TABLE IF NOT EXISTS point_sets ("
             " run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, gpu_key TEXT NOT NULL,"
             " experiment TEXT NOT NULL, data BLOB NOT NULL)");
        exec("CREATE INDEX IF NOT EXISTS point_sets_run ON point_sets(run_id)");
        // Point sets are read by run (folds, deletes, the queue's merge); a
        // model's are found through its runs. An index by (gpu_key,
        // experiment), which earlier versions had, put each of an upload's
        // two dozen rows on a leaf page of its own: about 100 KB more written
        // per upload, for no read the server makes any more.
        exec("DROP INDEX IF EXISTS point_sets_model");
        migrate_point_rows();
        create_aggregate_tables();
        // Reads go through a connection of their own: in WAL mode they see the
        // last committed state without waiting for the writer, so a page is
        // not held up by an upload or by the refresher's fold.
        if (sqlite3_open_v2(path.c_str(), &rdb_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, nullptr) != SQLITE_OK) {
            std::string msg = rdb_ ? sqlite3_errmsg(rdb_) : "out of memory";
            sqlite3_close(rdb_);
            sqlite3_close_v2(db_);
            throw std::runtime_error("cannot open SQLite database " + path + " for reading: " + msg);
        }
        sqlite3_busy_timeout(rdb_, 5000);
        checkpointer_ = std::thread([this, path] { checkpoint_loop(path); });
        if (options.background_refresh)
            refresher_ = std::make_unique<BackgroundRefresher>([this](std::size_t n) { return refresh(n); }, kRefreshBatch,
                                                               kRefreshPoll, kRefreshGather);
    }
    ~SqliteStorage() override {
        refresher_.reset();
        {
            std::lock_guard<std::mutex> lock(stop_mu_);
            stopping_ = true;
        }
        stop_cv_.notify_all();
        checkpointer_.join();
        writer_statements_.clear();
        sqlite3_close_v2(rdb_);
        sqlite3_close_v2(db_);
    }

    InsertOutcome insert(const StoredRun &run, const std::vector<PointRow> &points, StoredRun *existing) override {
        // The expensive part, compression and packing, happens before the lock.
        const std::string document = packed_document(run);
        std::map<std::string, std::vector<const PointRow *>> by_experiment;
        for (const PointRow &p : points) by_experiment[p.experiment].push_back(&p);
        std::vector<std::pair<const std::string *, std::string>> sets;
        for (const auto &[experiment, rows] : by_experiment) sets.emplace_back(&experiment, encode_points(rows));

        std::lock_guard<std::mutex> lock(mu_);
        exec_cached("BEGIN IMMEDIATE");
        try {
            if (!run.submission_id.empty()) {
                std::optional<StoredRun> found;
                {
                    Stmt q(db_, writer_statements_, "SELECT " COLUMNS " FROM runs WHERE submission_id = ?");
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

    std::optional<StoredRun> get(const std::string &id) override {
        std::lock_guard<std::mutex> lock(rmu_);
        Stmt q(rdb_, "SELECT " COLUMNS " FROM runs WHERE id = ?");
        q.bind(1, id);
        if (!q.step()) return std::nullopt;
        return q.run();
    }

    bool remove(const std::string &id) override {
        std::lock_guard<std::mutex> lock(mu_);
        exec_cached("BEGIN IMMEDIATE");
        try {
            const std::optional<std::string> found = gpu_key_of(id);
            if (!found) {
                exec_cached("ROLLBACK");
                return false;
            }
            const std::string &gpu_key = *found;
            // A queued run is not in the aggregates yet: dropping it from the
            // queue is all. A folded one is subtracted from them; one left out
            // (set_counted) is in neither.
            Stmt du(db_, "DELETE FROM uncounted WHERE run_id = ?");
            du.bind(1, id);
            du.done();
            const bool was_uncounted = sqlite3_changes(db_) > 0;
            Stmt dq(db_, writer_statements_, "DELETE FROM agg_queue WHERE run_id = ?");
            dq.bind(1, id);
            dq.done();
            if (!was_uncounted && sqlite3_changes(db_) == 0) subtract_folded(id, gpu_key);
            Stmt p(db_, "DELETE FROM point_sets WHERE run_id = ?");
            p.bind(1, id);
            p.done();
            Stmt r(db_, "DELETE FROM runs WHERE id = ?");
            r.bind(1, id);
            r.done();
            const bool deleted = sqlite3_changes(db_) > 0;
            exec_cached("COMMIT");
            return deleted;
        } catch (...) {
            sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
            throw;
        }
    }

    std::vector<GpuCount> gpus() override {
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

    std::vector<PointRow> points(const std::string &gpu_key, const std::string &experiment) override {
        std::vector<PointRow> out;
        for_each_point(gpu_key, experiment, [&](const PointRow &r) { out.push_back(r); });
        return out;
    }

    void for_each_point(const std::string &gpu_key, const std::string &experiment,
                        const std::function<void(const PointRow &)> &visit) override {
        std::lock_guard<std::mutex> lock(rmu_);
        Stmt q(rdb_, "SELECT p.run_id, p.data FROM runs r JOIN point_sets p ON p.run_id = r.id AND p.experiment = ?2"
                    " WHERE r.gpu_key = ?1 ORDER BY r.created_at, r.id");
        q.bind(1, gpu_key);
        q.bind(2, experiment);
        while (q.step()) {
            const std::string run_id = q.text(0);
            if (!decode_points(q.blob(1), run_id, experiment, visit))
                throw std::runtime_error("SQLite: the stored points of run " + run_id + " are damaged");
        }
    }

    std::vector<StoredRun> runs_of(const std::string &gpu_key, std::size_t limit) override {
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

    std::uint64_t count() override {
        std::lock_guard<std::mutex> lock(rmu_);
        Stmt q(rdb_, "SELECT COUNT(*) FROM runs");
        q.step();
        return static_cast<std::uint64_t>(sqlite3_column_int64(q.s, 0));
    }

    bool take_token(const std::string &client, bool write, double rate, double burst, int *retry_after_s) override {
        return buckets_.take((write ? "w " : "r ") + client, rate, burst, retry_after_s);
    }

    std::optional<std::string> aggregate(const std::string &gpu_key, const std::string &experiment) override {
        return read_aggregate(gpu_key, experiment, false);
    }

    std::optional<std::string> aggregate_state(const std::string &gpu_key, const std::string &experiment) override {
        return read_aggregate(gpu_key, experiment, true);
    }

    std::vector<std::pair<std::string, std::string>> aggregates_of_experiment(const std::string &experiment) override {
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
        for (const std::string &key : queued) {
            if (std::optional<std::string> merged = read_aggregate(key, experiment, false)) by_model[key] = std::move(*merged);
            else by_model.erase(key);
        }
        return {by_model.begin(), by_model.end()};
    }

    std::size_t refresh(std::size_t max_runs) override {
        std::vector<std::string> models;
        {
            std::lock_guard<std::mutex> lock(mu_);
            Stmt q(db_, "SELECT DISTINCT gpu_key FROM agg_queue");
            while (q.step()) models.push_back(q.text(0));
        }
        std::size_t folded = 0;
        for (const std::string &key : models) {
            // A transaction per model and batch: the lock is given back between
            // them, so uploads wait at most for one batch.
            while (folded < max_runs) {
                const std::size_t n = fold_model(key, std::min(max_runs - folded, kRefreshBatch));
                folded += n;
                if (n == 0) break;
            }
        }
        return folded;
    }

    std::uint64_t pending() override {
        std::lock_guard<std::mutex> lock(rmu_);
        Stmt q(rdb_, "SELECT COUNT(*) FROM agg_queue");
        q.step();
        return static_cast<std::uint64_t>(sqlite3_column_int64(q.s, 0));
    }

    // --- Moderation: uploads left out of the aggregates (crowd.hpp) ---
    bool set_counted(const std::string &id, bool counted) override {
        std::unique_lock<std::mutex> lock(mu_);
        exec_cached("BEGIN IMMEDIATE");
        try {
            const std::optional<std::string> found = gpu_key_of(id);
            if (!found) {
                exec_cached("ROLLBACK");
                return false;
            }
            const std::string &gpu_key = *found;
            bool uncounted = false;
            {
                Stmt u(db_, "SELECT 1 FROM uncounted WHERE run_id = ?");
                u.bind(1, id);
                uncounted = u.step();
            }
            bool requeued = false;
            if (!counted && !uncounted) {
                Stmt dq(db_, writer_statements_, "DELETE FROM agg_queue WHERE run_id = ?");
                dq.bind(1, id);
                dq.done();
                if (sqlite3_changes(db_) == 0) subtract_folded(id, gpu_key);  // folded already
                Stmt ins(db_, "INSERT INTO uncounted (run_id, gpu_key) VALUES (?, ?)");
                ins.bind(1, id);
                ins.bind(2, gpu_key);
                ins.done();
            } else if (counted && uncounted) {
                Stmt du(db_, "DELETE FROM uncounted WHERE run_id = ?");
                du.bind(1, id);
                du.done();
                Stmt q(db_, "INSERT INTO agg_queue (run_id, gpu_key, created_at) SELECT id, gpu_key, created_at FROM runs WHERE id = ?");
                q.bind(1, id);
                q.done();
                requeued = true;
            }
            exec_cached("COMMIT");
            lock.unlock();
            if (requeued && refresher_) refresher_->poke();
            return true;
        } catch (...) {
            sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
            throw;
        }
    }

private:
    // The writer's statements, prepared once and reused: for the short
    // statements of an upload, preparing cost about as much as running them.
    // Keyed by SQL text; a statement already in use (a nested use of the same
    // text) is prepared afresh instead.
    class StatementCache {
    public:
        struct Entry {
            sqlite3_stmt *stmt;
            bool in_use;
        };
        explicit StatementCache(sqlite3 *&db) : db_(db) {}
        ~StatementCache() { clear(); }
        StatementCache(const StatementCache &) = delete;
        StatementCache &operator=(const StatementCache &) = delete;
        // Nullptr when the statement is in use; else it is marked in use
        // until give_back.
        Entry *take(const char *sql) {
            auto it = entries_.find(std::string_view(sql));
            if (it == entries_.end()) {
                sqlite3_stmt *s = nullptr;
                if (sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &s, nullptr) != SQLITE_OK)
                    throw std::runtime_error(std::string("SQLite: ") + sqlite3_errmsg(db_));
                it = entries_.emplace(std::string(sql), Entry{s, false}).first;
            }
            if (it->second.in_use) return nullptr;
            it->second.in_use = true;
            return &it->second;
        }
        static void give_back(Entry &e) {
            sqlite3_reset(e.stmt);
            sqlite3_clear_bindings(e.stmt);
            e.in_use = false;
        }
        // Before the connection closes.
        void clear() {
            for (auto &[sql, e] : entries_) sqlite3_finalize(e.stmt);
            entries_.clear();
        }

    private:
        sqlite3 *&db_;
        std::map<std::string, Entry, std::less<>> entries_;  // nodes stay put: Stmt holds an Entry *
    };

    struct Stmt {
        sqlite3 *db;
        sqlite3_stmt *s = nullptr;
        StatementCache::Entry *cached = nullptr;  // set when s came from the cache
        Stmt(sqlite3 *d, const char *sql) : db(d) { prepare(sql); }
        Stmt(sqlite3 *d, StatementCache &c, const char *sql) : db(d), cached(c.take(sql)) {
            if (cached) s = cached->stmt;
            else prepare(sql);
        }
        ~Stmt() {
            if (cached) StatementCache::give_back(*cached);
            else sqlite3_finalize(s);
        }
        void prepare(const char *sql) {
            if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) != SQLITE_OK)
                throw std::runtime_error(std::string("SQLite: ") + sqlite3_errmsg(db));
        }
        Stmt(const Stmt &) = delete;
        Stmt &operator=(const Stmt &) = delete;
        void bind(int i, const std::string &v) { sqlite3_bind_text(s, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT); }
        void bind_blob(int i, const std::string &v) {
            sqlite3_bind_blob(s, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
        }
        std::string_view blob(int col) const {
            const void *b = sqlite3_column_blob(s, col);
            return b ? std::string_view(static_cast<const char *>(b), static_cast<std::size_t>(sqlite3_column_bytes(s, col)))
                     : std::string_view();
        }
        bool step() {
            const int rc = sqlite3_step(s);
            if (rc == SQLITE_ROW) return true;
            if (rc == SQLITE_DONE) return false;
            throw std::runtime_error(std::string("SQLite: ") + sqlite3_errmsg(db));
        }
        void done() {
            if (step()) throw std::runtime_error("SQLite: statement returned rows");
        }
        std::string text(int col) const {
            const unsigned char *t = sqlite3_column_text(s, col);
            return t ? std::string(reinterpret_cast<const char *>(t), static_cast<std::size_t>(sqlite3_column_bytes(s, col)))
                     : std::string();
        }
        StoredRun run() const {
            StoredRun r;
            r.id = text(0);
            r.submission_id = text(1);
            r.delete_token_hash = text(2);
            r.created_at = text(3);
            r.gpu.key = text(4);
            r.gpu.name = text(5);
            r.gpu.compute_capability = text(6);
            r.gpu.memory_bytes = static_cast<std::uint64_t>(sqlite3_column_int64(s, 7));
            r.gpu.bus_width_bits = sqlite3_column_int(s, 8);
            r.gpu.driver_version = text(9);
            r.gpu.runtime_version = text(10);
            r.document = stored_document(blob(11));
            return r;
        }
    };

    // The model a stored run was counted for; nothing when no such run.
    std::optional<std::string> gpu_key_of(const std::string &id) {
        Stmt k(db_, "SELECT gpu_key FROM runs WHERE id = ?");
        k.bind(1, id);
        if (!k.step()) return std::nullopt;
        return k.text(0);
    }

    // A run already folded into its model's aggregates leaves them: its point
    // sets are folded out and the model counts one upload less. Inside the
    // caller's write transaction.
    void subtract_folded(const std::string &id, const std::string &gpu_key) {
        States states(*this, gpu_key);
        Stmt sets(db_, writer_statements_, "SELECT experiment, data FROM point_sets WHERE run_id = ?");
        sets.bind(1, id);
        while (sets.step()) states.fold(sets.text(0), sets.blob(1), -1);
        states.save();
        Stmt m(db_, "UPDATE models SET uploads = uploads - 1 WHERE gpu_key = ? AND uploads > 0");
        m.bind(1, gpu_key);
        m.done();
    }

    // Uploads folded per transaction. A batch of 128 uploads of 868 points
    // takes about 10 ms, the longest an upload waits for the refresher.
    static constexpr std::size_t kRefreshBatch = 128;

    // The stored aggregates of one model's experiments, loaded as a fold or
    // a delete touches them, written back by save(). Called with mu_ held,
    // inside a write transaction.
    class States {
    public:
        States(SqliteStorage &s, std::string gpu_key) : s_(s), key_(std::move(gpu_key)) {}
        void fold(const std::string &experiment, std::string_view blob, int sign) {
            if (!decode_point_set(blob, strings_, points_))
                throw std::runtime_error("SQLite: the stored points of an upload of " + key_ + " are damaged");
            get(experiment).fold(strings_, points_, sign);
        }
        void save() {
            Stmt put(s_.db_, "INSERT OR REPLACE INTO aggregates (gpu_key, experiment, uploads, state, result) VALUES (?,?,?,?,?)");
            Stmt del(s_.db_, "DELETE FROM aggregates WHERE gpu_key = ? AND experiment = ?");
            for (const auto &[experiment, h] : states_) {
                if (h.empty()) {
                    sqlite3_reset(del.s);
                    del.bind(1, key_);
                    del.bind(2, experiment);
                    del.done();
                    continue;
                }
                const std::string state = h.encode(), result = h.result().dump();
                sqlite3_reset(put.s);
                put.bind(1, key_);
                put.bind(2, experiment);
                sqlite3_bind_int64(put.s, 3, static_cast<sqlite3_int64>(h.uploads()));
                put.bind_blob(4, state);
                put.bind(5, result);
                put.done();
            }
        }

    private:
        HistogramAggregate &get(const std::string &experiment) {
            auto it = states_.find(experiment);
            if (it != states_.end()) return it->second;
            Stmt q(s_.db_, "SELECT state FROM aggregates WHERE gpu_key = ? AND experiment = ?");
            q.bind(1, key_);
            q.bind(2, experiment);
            return states_.emplace(experiment, q.step() ? HistogramAggregate::decode(q.blob(0)) : HistogramAggregate())
                .first->second;
        }
        SqliteStorage &s_;
        const std::string key_;
        std::map<std::string, HistogramAggregate> states_;
        std::vector<std::string> strings_;
        std::vector<HistogramAggregate::Point> points_;
    };

    // The model's queued uploads, oldest first, read through `c` (its mutex held).
    // aggregate() (the API's JSON) or aggregate_state() (the encoded
    // histogram): the stored aggregate, with the model's queued uploads merged
    // into a copy of it.
    std::optional<std::string> read_aggregate(const std::string &gpu_key, const std::string &experiment, bool state) {
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
        std::vector<std::string> strings;
        std::vector<HistogramAggregate::Point> points;
        for (const std::string &run : pending) {
            sqlite3_reset(q.s);
            q.bind(1, run);
            q.bind(2, experiment);
            while (q.step()) {
                if (!decode_point_set(q.blob(0), strings, points))
                    throw std::runtime_error("SQLite: the stored points of run " + run + " are damaged");
                h.fold(strings, points, +1);
            }
        }
        if (h.empty()) return std::nullopt;
        return state ? h.encode() : h.result().dump();
    }

    static std::vector<std::string> pending_runs(sqlite3 *c, const std::string &gpu_key, std::size_t limit) {
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
    std::size_t fold_model(const std::string &gpu_key, std::size_t limit) {
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

    // The aggregates' tables. A file from before them has its every upload
    // queued, so that the refresher folds them all once.
    void create_aggregate_tables() {
        exec_cached("BEGIN IMMEDIATE");
        try {
            bool existed = false;
            {
                Stmt t(db_, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'agg_queue'");
                existed = t.step();
            }
            exec("CREATE TABLE IF NOT EXISTS agg_queue (run_id TEXT PRIMARY KEY, gpu_key TEXT NOT NULL,"
                 " created_at TEXT NOT NULL)");
            exec("CREATE INDEX IF NOT EXISTS agg_queue_model ON agg_queue(gpu_key, created_at, run_id)");
            // result before state: SQLite reads a row's columns in order, and
            // reaching a column after a large blob walks the blob's overflow
            // pages (the state of a popular model is megabytes).
            exec("CREATE TABLE IF NOT EXISTS aggregates (gpu_key TEXT NOT NULL, experiment TEXT NOT NULL,"
                 " uploads INTEGER NOT NULL, result TEXT NOT NULL, state BLOB NOT NULL, PRIMARY KEY (gpu_key, experiment))");
            // aggregates_of_experiment(): one experiment's row of every model.
            exec("CREATE INDEX IF NOT EXISTS aggregates_experiment ON aggregates(experiment, gpu_key)");
            exec("CREATE TABLE IF NOT EXISTS models (gpu_key TEXT PRIMARY KEY, uploads INTEGER NOT NULL)");
            // Uploads a moderator or the outlier rule left out (set_counted).
            exec("CREATE TABLE IF NOT EXISTS uncounted (run_id TEXT PRIMARY KEY, gpu_key TEXT NOT NULL)");
            if (!existed) exec("INSERT INTO agg_queue (run_id, gpu_key, created_at) SELECT id, gpu_key, created_at FROM runs");
            exec_cached("COMMIT");
        } catch (...) {
            sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
            throw;
        }
    }

    // Documents are stored as zstd or as the client's gzip; files written
    // before that hold JSON text.
    static std::string stored_document(std::string_view data) {
        if (is_compressed_document(data)) return decompress_document(data);
        return std::string(data);
    }

    void insert_point_sets(const std::string &run_id, const std::string &gpu_key,
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

    // Files from before point_sets keep one row per point in "points": they are
    // packed into point_sets once, in one transaction, and the old table dropped.
    void migrate_point_rows() {
        {
            Stmt t(db_, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'points'");
            if (!t.step()) return;
        }
        exec_cached("BEGIN IMMEDIATE");
        try {
            Stmt q(db_, "SELECT p.run_id, r.gpu_key, p.experiment, p.series, p.field, p.x, p.value FROM points p"
                        " JOIN runs r ON r.id = p.run_id ORDER BY p.run_id, p.experiment, p.rowid");
            std::vector<PointRow> rows;
            std::string gpu_key;
            auto flush = [&] {
                if (rows.empty()) return;
                std::vector<const PointRow *> refs;
                for (const PointRow &p : rows) refs.push_back(&p);
                insert_point_sets(rows.front().run_id, gpu_key, {{&rows.front().experiment, encode_points(refs)}});
                rows.clear();
            };
            while (q.step()) {
                PointRow p{q.text(0), q.text(2), q.text(3), q.text(4), sqlite3_column_double(q.s, 5), sqlite3_column_double(q.s, 6)};
                if (!rows.empty() && (rows.front().run_id != p.run_id || rows.front().experiment != p.experiment)) flush();
                gpu_key = q.text(1);
                rows.push_back(std::move(p));
            }
            flush();
            exec("DROP TABLE points");
            exec_cached("COMMIT");
        } catch (...) {
            sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
            throw;
        }
    }

    // A read transaction on the read connection (its mutex held by the
    // caller): what it reads is one snapshot of the file.
    class ReadSnapshot {
    public:
        explicit ReadSnapshot(SqliteStorage &s) : s_(s) { s_.exec_read("BEGIN"); }
        ~ReadSnapshot() { sqlite3_exec(s_.rdb_, "COMMIT", nullptr, nullptr, nullptr); }
        ReadSnapshot(const ReadSnapshot &) = delete;
        ReadSnapshot &operator=(const ReadSnapshot &) = delete;

    private:
        SqliteStorage &s_;
    };

    void exec_read(const char *sql) {
        char *err = nullptr;
        if (sqlite3_exec(rdb_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
            std::string msg = err ? err : "unknown error";
            sqlite3_free(err);
            throw std::runtime_error(std::string("SQLite: ") + msg);
        }
    }

    // One statement of the writer's, from its cache (BEGIN, COMMIT: the
    // upload path runs them hundreds of times a second).
    void exec_cached(const char *sql) {
        Stmt st(db_, writer_statements_, sql);
        st.done();
    }

    void exec(const char *sql) {
        char *err = nullptr;
        if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
            std::string msg = err ? err : "unknown error";
            sqlite3_free(err);
            throw std::runtime_error(std::string("SQLite: ") + msg);
        }
    }

    // A PASSIVE checkpoint every kCheckpointEvery on a second connection: it
    // never waits for or blocks the writer, and the WAL is reused from the
    // start once a checkpoint has caught up with it.
    void checkpoint_loop(const std::string &path) {
        constexpr auto kCheckpointEvery = std::chrono::milliseconds(250);
        constexpr int kReuseWalFrames = 8192;   // 32 MiB of 4 KiB pages
        constexpr int kMaxWalFrames = 65536;    // 256 MiB
        sqlite3 *c = nullptr;
        if (sqlite3_open_v2(path.c_str(), &c, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
            sqlite3_close(c);
            c = nullptr;  // without it the WAL only grows; reads and writes still work
        }
        if (c) {
            sqlite3_busy_timeout(c, 2000);
            // A connection learns that the file is in WAL mode when it first
            // reads it; until then a checkpoint through it does nothing (it
            // reports -1 frames).
            if (sqlite3_exec(c, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr) != SQLITE_OK) {
                sqlite3_close(c);
                c = nullptr;
            }
        }
        std::unique_lock<std::mutex> lock(stop_mu_);
        while (!stop_cv_.wait_for(lock, kCheckpointEvery, [this] { return stopping_; })) {
            if (!c) continue;
            int frames = 0, copied = 0;
            sqlite3_wal_checkpoint_v2(c, nullptr, SQLITE_CHECKPOINT_PASSIVE, &frames, &copied);
            // Under steady uploads a passive checkpoint copies every frame
            // there was when it began, but new ones arrive while it runs, so
            // it never catches up and the WAL, only reused from its start once
            // one has, keeps growing. Past kReuseWalFrames a second passive
            // checkpoint runs holding the writer's lock: it copies only what
            // the first one missed (milliseconds, where the first took tens),
            // and the next upload starts the WAL afresh.
            if (frames > kReuseWalFrames) {
                std::lock_guard<std::mutex> writer(mu_);
                sqlite3_wal_checkpoint_v2(c, nullptr, SQLITE_CHECKPOINT_PASSIVE, &frames, &copied);
            }
            // A reader holding an old snapshot can still keep the WAL from
            // being reused (it grew by gigabytes in a bulk fill): past
            // kMaxWalFrames the checkpoint waits for readers and writer, holds
            // the next one off while it copies the rest, and truncates the WAL.
            if (frames > kMaxWalFrames)
                sqlite3_wal_checkpoint_v2(c, nullptr, SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
        }
        if (c) {
            sqlite3_wal_checkpoint_v2(c, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
            sqlite3_close_v2(c);
        }
    }

    sqlite3 *db_ = nullptr;   // the writer, and the refresher's reads
    StatementCache writer_statements_{db_};  // db_'s, used under mu_
    std::mutex mu_;
    sqlite3 *rdb_ = nullptr;  // every other read
    std::mutex rmu_;
    TokenBuckets buckets_;
    std::unique_ptr<BackgroundRefresher> refresher_;
    std::thread checkpointer_;
    std::mutex stop_mu_;
    std::condition_variable stop_cv_;
    bool stopping_ = false;
};

}  // namespace

std::unique_ptr<Storage> open_sqlite_storage(const std::string &path, const StorageOptions &options) {
    return std::make_unique<SqliteStorage>(path, options);
}

std::unique_ptr<Storage> open_storage(const std::string &url, const StorageOptions &options) {
    if (url.rfind("postgres://", 0) == 0 || url.rfind("postgresql://", 0) == 0) {
#ifdef GM_HAVE_POSTGRES
        return open_postgres_storage(url, options);
#else
        throw std::runtime_error("this gmlab-server was built without PostgreSQL support");
#endif
    }
    const std::string path = url.rfind("sqlite:", 0) == 0 ? url.substr(7) : url;
    if (path.empty()) throw std::runtime_error("empty SQLite path");
    return open_sqlite_storage(path, options);
}

}  // namespace gmserver
