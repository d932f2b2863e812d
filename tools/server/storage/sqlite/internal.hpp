// The SQLite storage's class, shared by its parts (others call
// open_sqlite_storage in sqlite_storage.hpp):
//   database.cpp  the file: connections, tables and migrations, WAL checkpoints
//   writes.cpp    insert, remove, set_counted, rate-limit tokens
//   reads.cpp     runs, models, points and the aggregates as readers see them
//   refresh.cpp   the queue folded into the stored aggregates
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <sqlite3.h>

#include "storage/aggregate.hpp"
#include "storage/backend_shared.hpp"
#include "storage/database_errors.hpp"
#include "storage/rate_limit.hpp"
#include "storage/refresher.hpp"
#include "storage/storage.hpp"

// The columns of runs that Stmt::run() reads, in its order.
#define GM_SQLITE_RUN_COLUMNS \
    "id, submission_id, delete_token_hash, created_at, gpu_key, gpu_name, cc, memory_bytes, bus_width, driver, runtime, document"

namespace gmserver::sqlite {

// An error SQLite returned, counted (database_errors.hpp) and thrown.
[[noreturn]] inline void fail_sqlite(const std::string &message) {
    count_database_error();
    throw std::runtime_error("SQLite: " + message);
}

// Two connections, each behind a mutex: one writes (SQLite serialises
// writers anyway) and one reads (short indexed lookups), so that reads never
// wait for a write transaction.
class SqliteStorage final : public Storage {
public:
    SqliteStorage(const std::string &path, const StorageOptions &options);
    ~SqliteStorage() override;

    InsertOutcome insert(const StoredRun &run, const std::vector<PointRow> &points, StoredRun *existing) override;
    std::optional<StoredRun> get(const std::string &id) override;
    bool remove(const std::string &id) override;
    std::vector<GpuCount> gpus() override;
    std::vector<PointRow> points(const std::string &gpu_key, const std::string &experiment) override;
    void for_each_point(const std::string &gpu_key, const std::string &experiment,
                        const std::function<void(const PointRow &)> &visit) override;
    std::vector<StoredRun> runs_of(const std::string &gpu_key, std::size_t limit) override;
    std::uint64_t count() override;
    bool take_token(const std::string &client, bool write, double rate, double burst, int *retry_after_s) override;
    std::optional<std::string> aggregate(const std::string &gpu_key, const std::string &experiment) override;
    std::optional<std::string> aggregate_state(const std::string &gpu_key, const std::string &experiment) override;
    std::vector<std::pair<std::string, std::string>> aggregates_of_experiment(const std::string &experiment) override;
    std::size_t refresh(std::size_t max_runs) override;
    std::uint64_t pending() override;
    QueueState queue_state() override;
    // --- Moderation: uploads left out of the aggregates (crowd/crowd.hpp) ---
    bool set_counted(const std::string &id, bool counted) override;

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
                    fail_sqlite(sqlite3_errmsg(db_));
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
            if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) != SQLITE_OK) fail_sqlite(sqlite3_errmsg(db));
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
            fail_sqlite(sqlite3_errmsg(db));
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
    std::optional<std::string> gpu_key_of(const std::string &id);

    // In one write transaction: change(gpu_key) with the model of run `id`;
    // false, with nothing changed, when there is no such run.
    bool change_run(const std::string &id, const std::function<bool(const std::string &)> &change);

    // Takes run `id` out of the queue, or, when it was folded already, out
    // of the aggregates. Inside the caller's write transaction.
    void leave_aggregates(const std::string &id, const std::string &gpu_key);

    // One of the writer's statements with run `id` as its one parameter; the
    // number of rows it changed. Inside the caller's write transaction.
    int change_rows(const char *sql, const std::string &id);

    // A run already folded into its model's aggregates leaves them: its point
    // sets are folded out and the model counts one upload less. Inside the
    // caller's write transaction.
    void subtract_folded(const std::string &id, const std::string &gpu_key);

    // Uploads folded per transaction. A batch of 128 uploads of 868 points
    // takes about 10 ms, the longest an upload waits for the refresher.
    static constexpr std::size_t kRefreshBatch = 128;

    // The stored aggregates of one model's experiments, loaded as a fold or
    // a delete touches them, written back by save(). Called with mu_ held,
    // inside a write transaction.
    class States : public ModelStates {
    public:
        States(SqliteStorage &s, const std::string &gpu_key);
        void save();

    private:
        SqliteStorage &s_;
    };

    // aggregate() (the API's JSON) or aggregate_state() (the encoded
    // histogram): the stored aggregate, with the model's queued uploads merged
    // into a copy of it.
    std::optional<std::string> read_aggregate(const std::string &gpu_key, const std::string &experiment, bool state);

    // The model's queued uploads, oldest first, read through `c` (its mutex held).
    static std::vector<std::string> pending_runs(sqlite3 *c, const std::string &gpu_key, std::size_t limit);

    // Folds up to `limit` of the model's queued uploads, oldest first, in one
    // transaction: their points into the stored aggregates, their count into
    // models, and their queue rows deleted. SQLite has one writer at a time,
    // so no two folds (of this or another process) overlap.
    std::size_t fold_model(const std::string &gpu_key, std::size_t limit);

    // The schema, brought to kSchemaVersion (schema_version.hpp) in one
    // write transaction: a file written by a newer server is refused before
    // anything in it changes; one from before the versions was made by the
    // release at version 1 or earlier, and the steps that release ran
    // (migrate_point_rows, create_aggregate_tables) bring it to 1.
    void migrate(const std::string &path);

    // The aggregates' tables. A file from before them has its every upload
    // queued, so that the refresher folds them all once. Inside migrate()'s
    // transaction.
    void create_aggregate_tables();

    // Documents are stored as zstd or as the client's gzip; files written
    // before that hold JSON text.
    static std::string stored_document(std::string_view data);

    void insert_point_sets(const std::string &run_id, const std::string &gpu_key,
                           const std::vector<std::pair<const std::string *, std::string>> &sets);

    // Files from before point_sets keep one row per point in "points": they are
    // packed into point_sets once, and the old table dropped. Inside
    // migrate()'s transaction.
    void migrate_point_rows();

    // PRAGMA user_version: the schema version (0: none was written).
    long long schema_version();

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

    void exec_read(const char *sql);
    // One statement of the writer's, from its cache (BEGIN, COMMIT: the
    // upload path runs them hundreds of times a second).
    void exec_cached(const char *sql);
    void exec(const char *sql);

    // A PASSIVE checkpoint every kCheckpointEvery on a second connection: it
    // never waits for or blocks the writer, and the WAL is reused from the
    // start once a checkpoint has caught up with it.
    void checkpoint_loop(const std::string &path);

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

}  // namespace gmserver::sqlite
