// The SQLite file: its two connections, the schema and its version, the
// migrations from earlier versions, and the thread that checkpoints the WAL.
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "storage/point_codec.hpp"
#include "storage/schema_version.hpp"
#include "storage/sqlite/internal.hpp"
#include "storage/sqlite/sqlite_storage.hpp"

namespace gmserver::sqlite {

SqliteStorage::SqliteStorage(const std::string &path, const StorageOptions &options) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr) !=
        SQLITE_OK) {
        std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
        sqlite3_close(db_);
        count_database_error();
        throw std::runtime_error("cannot open SQLite database " + path + ": " + msg);
    }
    sqlite3_busy_timeout(db_, 5000);
    try {
        // A file of a newer server is refused before anything is set on it.
        if (const long long v = schema_version(); v > kSchemaVersion)
            throw std::runtime_error(newer_schema_message("the database " + path, v));
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
        migrate(path);
    } catch (...) {
        writer_statements_.clear();
        sqlite3_close_v2(db_);
        throw;
    }
    // Reads go through a connection of their own: in WAL mode they see the
    // last committed state without waiting for the writer, so a page is
    // not held up by an upload or by the refresher's fold.
    if (sqlite3_open_v2(path.c_str(), &rdb_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, nullptr) != SQLITE_OK) {
        std::string msg = rdb_ ? sqlite3_errmsg(rdb_) : "out of memory";
        sqlite3_close(rdb_);
        writer_statements_.clear();
        sqlite3_close_v2(db_);
        count_database_error();
        throw std::runtime_error("cannot open SQLite database " + path + " for reading: " + msg);
    }
    sqlite3_busy_timeout(rdb_, 5000);
    checkpointer_ = std::thread([this, path] { checkpoint_loop(path); });
    if (options.background_refresh)
        refresher_ = std::make_unique<BackgroundRefresher>([this](std::size_t n) { return refresh(n); }, kRefreshBatch,
                                                           kRefreshPoll, kRefreshGather);
}

long long SqliteStorage::schema_version() {
    Stmt v(db_, "PRAGMA user_version");
    return v.step() ? sqlite3_column_int64(v.s, 0) : 0;
}

void SqliteStorage::migrate(const std::string &path) {
    exec_cached("BEGIN IMMEDIATE");
    try {
        // Again under the write lock: another process may have upgraded it.
        const long long version = schema_version();
        if (version > kSchemaVersion) throw std::runtime_error(newer_schema_message("the database " + path, version));
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
        // Version 2: aggregates on the canonical axis, with the uploads'
        // shapes (schema_version.hpp). The stored ones are dropped and every
        // counted upload queued again; the refresher rebuilds them.
        if (version < 2) {
            exec("DELETE FROM aggregates");
            exec("DELETE FROM models");
            exec("INSERT OR IGNORE INTO agg_queue (run_id, gpu_key, created_at) SELECT id, gpu_key, created_at FROM runs"
                 " WHERE id NOT IN (SELECT run_id FROM uncounted)");
        }
        if (version < kSchemaVersion) exec(("PRAGMA user_version = " + std::to_string(kSchemaVersion)).c_str());
        exec_cached("COMMIT");
    } catch (...) {
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
}

SqliteStorage::~SqliteStorage() {
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

// The aggregates' tables. A file from before them has its every upload
// queued, so that the refresher folds them all once.
void SqliteStorage::create_aggregate_tables() {
    {
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
    }
}

// Files from before point_sets keep one row per point in "points": they are
// packed into point_sets once, and the old table dropped.
void SqliteStorage::migrate_point_rows() {
    {
        Stmt t(db_, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'points'");
        if (!t.step()) return;
    }
    {
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
    }
}

void SqliteStorage::exec_read(const char *sql) {
    char *err = nullptr;
    if (sqlite3_exec(rdb_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
        std::string msg = err ? err : "unknown error";
        sqlite3_free(err);
        fail_sqlite(msg);
    }
}

// One statement of the writer's, from its cache (BEGIN, COMMIT: the
// upload path runs them hundreds of times a second).
void SqliteStorage::exec_cached(const char *sql) {
    Stmt st(db_, writer_statements_, sql);
    st.done();
}

void SqliteStorage::exec(const char *sql) {
    char *err = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
        std::string msg = err ? err : "unknown error";
        sqlite3_free(err);
        fail_sqlite(msg);
    }
}

// A PASSIVE checkpoint every kCheckpointEvery on a second connection: it
// never waits for or blocks the writer, and the WAL is reused from the
// start once a checkpoint has caught up with it.
void SqliteStorage::checkpoint_loop(const std::string &path) {
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

}  // namespace gmserver::sqlite

namespace gmserver {

std::unique_ptr<Storage> open_sqlite_storage(const std::string &path, const StorageOptions &options) {
    return std::make_unique<sqlite::SqliteStorage>(path, options);
}

}  // namespace gmserver
