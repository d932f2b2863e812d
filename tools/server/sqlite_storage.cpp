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
#include <stdexcept>
#include <string_view>
#include <thread>

#include <sqlite3.h>

#include "point_codec.hpp"

namespace gmserver {
namespace {

#define COLUMNS \
    "id, submission_id, delete_token_hash, created_at, gpu_key, gpu_name, cc, memory_bytes, bus_width, driver, runtime, document"

// One connection behind a mutex: SQLite serialises writers anyway, and the
// reads the server makes are short indexed lookups.
class SqliteStorage final : public Storage {
public:
    explicit SqliteStorage(const std::string &path) {
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
        // One row per (run, experiment) with its points packed (point_codec.hpp);
        // gpu_key is repeated here so that a model's points need no join.
        exec("CREATE TABLE IF NOT EXISTS point_sets ("
             " run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, gpu_key TEXT NOT NULL,"
             " experiment TEXT NOT NULL, data BLOB NOT NULL)");
        exec("CREATE INDEX IF NOT EXISTS point_sets_run ON point_sets(run_id)");
        exec("CREATE INDEX IF NOT EXISTS point_sets_model ON point_sets(gpu_key, experiment)");
        migrate_point_rows();
        checkpointer_ = std::thread([this, path] { checkpoint_loop(path); });
    }
    ~SqliteStorage() override {
        {
            std::lock_guard<std::mutex> lock(stop_mu_);
            stopping_ = true;
        }
        stop_cv_.notify_all();
        checkpointer_.join();
        sqlite3_close_v2(db_);
    }

    InsertOutcome insert(const StoredRun &run, const std::vector<PointRow> &points, StoredRun *existing) override {
        // The expensive part, compression and packing, happens before the lock.
        const std::string document = compress_document(run.document);
        std::map<std::string, std::vector<const PointRow *>> by_experiment;
        for (const PointRow &p : points) by_experiment[p.experiment].push_back(&p);
        std::vector<std::pair<const std::string *, std::string>> sets;
        for (const auto &[experiment, rows] : by_experiment) sets.emplace_back(&experiment, encode_points(rows));

        std::lock_guard<std::mutex> lock(mu_);
        exec("BEGIN IMMEDIATE");
        try {
            if (!run.submission_id.empty()) {
                std::optional<StoredRun> found;
                {
                    Stmt q(db_, "SELECT " COLUMNS " FROM runs WHERE submission_id = ?");
                    q.bind(1, run.submission_id);
                    if (q.step()) found = q.run();
                }
                if (found) {
                    if (existing) *existing = *found;
                    exec("ROLLBACK");
                    return InsertOutcome::DuplicateSubmission;
                }
            }
            Stmt ins(db_, "INSERT INTO runs (id, submission_id, delete_token_hash, created_at, gpu_key, gpu_name, cc,"
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
            exec("COMMIT");
        } catch (...) {
            sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
            throw;
        }
        return InsertOutcome::Inserted;
    }

    std::optional<StoredRun> get(const std::string &id) override {
        std::lock_guard<std::mutex> lock(mu_);
        Stmt q(db_, "SELECT " COLUMNS " FROM runs WHERE id = ?");
        q.bind(1, id);
        if (!q.step()) return std::nullopt;
        return q.run();
    }

    bool remove(const std::string &id) override {
        std::lock_guard<std::mutex> lock(mu_);
        exec("BEGIN IMMEDIATE");
        try {
            Stmt p(db_, "DELETE FROM point_sets WHERE run_id = ?");
            p.bind(1, id);
            p.done();
            Stmt r(db_, "DELETE FROM runs WHERE id = ?");
            r.bind(1, id);
            r.done();
            const bool deleted = sqlite3_changes(db_) > 0;
            exec("COMMIT");
            return deleted;
        } catch (...) {
            sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
            throw;
        }
    }

    std::vector<GpuCount> gpus() override {
        std::lock_guard<std::mutex> lock(mu_);
        // The identity shown for a model is that of its most recent upload.
        // Counts come from the runs_gpu index alone and each model's latest
        // row through it: a scan of runs would read every row's document.
        std::vector<GpuCount> out;
        {
            Stmt q(db_, "SELECT gpu_key, COUNT(*) FROM runs INDEXED BY runs_gpu GROUP BY gpu_key");
            while (q.step()) {
                GpuCount g;
                g.gpu.key = q.text(0);
                g.uploads = static_cast<std::uint64_t>(sqlite3_column_int64(q.s, 1));
                out.push_back(std::move(g));
            }
        }
        Stmt latest(db_, "SELECT gpu_name, cc, memory_bytes, bus_width, driver, runtime FROM runs"
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
        std::lock_guard<std::mutex> lock(mu_);
        Stmt q(db_, "SELECT run_id, data FROM point_sets WHERE gpu_key = ? AND experiment = ?");
        q.bind(1, gpu_key);
        q.bind(2, experiment);
        while (q.step()) {
            const std::string run_id = q.text(0);
            if (!decode_points(q.blob(1), run_id, experiment, visit))
                throw std::runtime_error("SQLite: the stored points of run " + run_id + " are damaged");
        }
    }

    std::vector<StoredRun> runs_of(const std::string &gpu_key, std::size_t limit) override {
        std::lock_guard<std::mutex> lock(mu_);
        Stmt q(db_, "SELECT id, created_at FROM runs WHERE gpu_key = ? ORDER BY created_at DESC, id LIMIT ?");
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
        std::lock_guard<std::mutex> lock(mu_);
        Stmt q(db_, "SELECT COUNT(*) FROM runs");
        q.step();
        return static_cast<std::uint64_t>(sqlite3_column_int64(q.s, 0));
    }

private:
    struct Stmt {
        sqlite3 *db;
        sqlite3_stmt *s = nullptr;
        Stmt(sqlite3 *d, const char *sql) : db(d) {
            if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) != SQLITE_OK)
                throw std::runtime_error(std::string("SQLite: ") + sqlite3_errmsg(db));
        }
        ~Stmt() { sqlite3_finalize(s); }
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

    // Documents are stored as zstd; files written before that hold JSON text.
    static std::string stored_document(std::string_view data) {
        static constexpr unsigned char kZstdMagic[4] = {0x28, 0xB5, 0x2F, 0xFD};
        if (data.size() >= 4 && std::memcmp(data.data(), kZstdMagic, 4) == 0) return decompress_document(data);
        return std::string(data);
    }

    void insert_point_sets(const std::string &run_id, const std::string &gpu_key,
                           const std::vector<std::pair<const std::string *, std::string>> &sets) {
        Stmt pt(db_, "INSERT INTO point_sets (run_id, gpu_key, experiment, data) VALUES (?,?,?,?)");
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
        exec("BEGIN IMMEDIATE");
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
            exec("COMMIT");
        } catch (...) {
            sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
            throw;
        }
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
        sqlite3 *c = nullptr;
        if (sqlite3_open_v2(path.c_str(), &c, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
            sqlite3_close(c);
            c = nullptr;  // without it the WAL only grows; reads and writes still work
        }
        if (c) sqlite3_busy_timeout(c, 1000);
        std::unique_lock<std::mutex> lock(stop_mu_);
        while (!stop_cv_.wait_for(lock, kCheckpointEvery, [this] { return stopping_; }))
            if (c) sqlite3_wal_checkpoint_v2(c, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
        if (c) {
            sqlite3_wal_checkpoint_v2(c, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
            sqlite3_close_v2(c);
        }
    }

    sqlite3 *db_ = nullptr;
    std::mutex mu_;
    std::thread checkpointer_;
    std::mutex stop_mu_;
    std::condition_variable stop_cv_;
    bool stopping_ = false;
};

}  // namespace

std::unique_ptr<Storage> open_sqlite_storage(const std::string &path) { return std::make_unique<SqliteStorage>(path); }

std::unique_ptr<Storage> open_storage(const std::string &url) {
    if (url.rfind("postgres://", 0) == 0 || url.rfind("postgresql://", 0) == 0) {
#ifdef GM_HAVE_POSTGRES
        return open_postgres_storage(url);
#else
        throw std::runtime_error("this gmlab-server was built without PostgreSQL support");
#endif
    }
    const std::string path = url.rfind("sqlite:", 0) == 0 ? url.substr(7) : url;
    if (path.empty()) throw std::runtime_error("empty SQLite path");
    return open_sqlite_storage(path);
}

}  // namespace gmserver
