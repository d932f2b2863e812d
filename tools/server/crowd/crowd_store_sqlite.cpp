// CrowdStore on the SQLite file of the runs: a connection of its own (WAL lets
// it read while the storage writes), and a fresh read-only connection for
// each export so that a slow client never holds the shared one.
#include <sqlite3.h>

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <string_view>

#include "crowd/crowd_store.hpp"
#include "storage/database_errors.hpp"
#include "storage/point_codec.hpp"
#include "storage/storage.hpp"

namespace gmserver {
namespace {

class Db {
public:
    Db(const std::string &path, int flags) {
        if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
            const std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
            sqlite3_close(db_);
            throw std::runtime_error("cannot open SQLite database " + path + ": " + msg);
        }
        sqlite3_busy_timeout(db_, 5000);
    }
    ~Db() { sqlite3_close_v2(db_); }
    Db(const Db &) = delete;
    Db &operator=(const Db &) = delete;
    sqlite3 *get() const { return db_; }
    void exec(const char *sql) {
        char *err = nullptr;
        if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
            const std::string msg = err ? err : "unknown error";
            sqlite3_free(err);
            count_database_error();
            throw std::runtime_error(std::string("SQLite: ") + msg);
        }
    }

private:
    sqlite3 *db_ = nullptr;
};

struct Stmt {
    sqlite3 *db;
    sqlite3_stmt *s = nullptr;
    Stmt(sqlite3 *d, const char *sql) : db(d) {
        if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) != SQLITE_OK) {
            count_database_error();
            throw std::runtime_error(std::string("SQLite: ") + sqlite3_errmsg(db));
        }
    }
    ~Stmt() { sqlite3_finalize(s); }
    Stmt(const Stmt &) = delete;
    Stmt &operator=(const Stmt &) = delete;
    Stmt &bind(int i, const std::string &v) {
        sqlite3_bind_text(s, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
        return *this;
    }
    bool step() {
        const int rc = sqlite3_step(s);
        if (rc == SQLITE_ROW) return true;
        if (rc == SQLITE_DONE) return false;
        count_database_error();
        throw std::runtime_error(std::string("SQLite: ") + sqlite3_errmsg(db));
    }
    void again() {
        sqlite3_reset(s);
        sqlite3_clear_bindings(s);
    }
    std::string text(int col) const {
        const unsigned char *t = sqlite3_column_text(s, col);
        return t ? std::string(reinterpret_cast<const char *>(t), static_cast<std::size_t>(sqlite3_column_bytes(s, col))) : std::string();
    }
    std::string_view blob(int col) const {
        const void *b = sqlite3_column_blob(s, col);
        return b ? std::string_view(static_cast<const char *>(b), static_cast<std::size_t>(sqlite3_column_bytes(s, col))) : std::string_view();
    }
    double real(int col) const { return sqlite3_column_double(s, col); }
};

class SqliteCrowdStore final : public CrowdStore {
public:
    explicit SqliteCrowdStore(std::string path) : path_(std::move(path)), db_(path_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX) {
        db_.exec("PRAGMA journal_mode=WAL");
        db_.exec("PRAGMA synchronous=NORMAL");
        // Checkpoints are the storage's checkpointer thread's (storage/sqlite/database.cpp).
        db_.exec("PRAGMA wal_autocheckpoint=0");
        db_.exec("CREATE TABLE IF NOT EXISTS upload_status (run_id TEXT PRIMARY KEY, gpu_key TEXT NOT NULL,"
                 " created_at TEXT NOT NULL, status TEXT NOT NULL, reason TEXT NOT NULL)");
        db_.exec("CREATE INDEX IF NOT EXISTS upload_status_held ON upload_status(status, gpu_key)");
        db_.exec("CREATE TABLE IF NOT EXISTS moderation_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL,"
                 " run_id TEXT NOT NULL, action TEXT NOT NULL, reason TEXT NOT NULL, actor TEXT NOT NULL)");
    }

    std::optional<UploadStatus> status(const std::string &run_id) override {
        std::lock_guard<std::mutex> lock(mu_);
        Stmt q(db_.get(), "SELECT run_id, gpu_key, created_at, status, reason FROM upload_status WHERE run_id = ?");
        q.bind(1, run_id);
        if (!q.step()) return std::nullopt;
        return status_from(q);
    }

    std::unordered_set<std::string> not_accepted(const std::string &gpu_key) override {
        std::lock_guard<std::mutex> lock(mu_);
        Stmt q(db_.get(), "SELECT run_id FROM upload_status WHERE status <> 'accepted' AND gpu_key = ?");
        q.bind(1, gpu_key);
        std::unordered_set<std::string> out;
        while (q.step()) out.insert(q.text(0));
        return out;
    }

    bool moderate(const UploadStatus &st, const std::string &action, const std::string &reason, const std::string &actor,
                  const std::string &at) override {
        std::lock_guard<std::mutex> lock(mu_);
        bool known = false;
        transaction([&] {
            {
                Stmt r(db_.get(), "SELECT 1 FROM runs WHERE id = ?");
                r.bind(1, st.run_id);
                known = r.step();
            }
            if (!known) return;
            // An upload from before statuses were kept gets a status row now.
            put_status(st);
            append_log(at, st.run_id, action, reason, actor);
        });
        return known;
    }

    void forget(const std::string &run_id, const std::string &reason, const std::string &actor, const std::string &at) override {
        std::lock_guard<std::mutex> lock(mu_);
        transaction([&] {
            Stmt s(db_.get(), "DELETE FROM upload_status WHERE run_id = ?");
            s.bind(1, run_id).step();
            append_log(at, run_id, "delete", reason, actor);
        });
    }

    std::vector<ModerationEntry> log(std::size_t limit) override {
        std::lock_guard<std::mutex> lock(mu_);
        Stmt q(db_.get(), "SELECT at, run_id, action, reason, actor FROM moderation_log ORDER BY seq DESC LIMIT ?");
        sqlite3_bind_int64(q.s, 1, static_cast<sqlite3_int64>(std::min<std::size_t>(limit, 1u << 30)));
        std::vector<ModerationEntry> out;
        while (q.step()) out.push_back({q.text(0), q.text(1), q.text(2), q.text(3), q.text(4)});
        return out;
    }

    std::vector<UploadStatus> held(std::size_t limit) override {
        std::lock_guard<std::mutex> lock(mu_);
        Stmt q(db_.get(), "SELECT run_id, gpu_key, created_at, status, reason FROM upload_status WHERE status = 'held'"
                          " ORDER BY created_at DESC LIMIT ?");
        sqlite3_bind_int64(q.s, 1, static_cast<sqlite3_int64>(std::min<std::size_t>(limit, 1u << 30)));
        std::vector<UploadStatus> out;
        while (q.step()) out.push_back(status_from(q));
        return out;
    }

    void export_points(const std::string &experiment, const std::function<bool(const ExportRow &)> &visit) override {
        Db db(path_, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX);
        // One read transaction: the export is a consistent snapshot of the file.
        Stmt q(db.get(), "SELECT p.run_id, p.gpu_key, r.created_at, p.experiment, p.data FROM point_sets p JOIN runs r ON r.id = p.run_id"
                         " WHERE (?1 = '' OR p.experiment = ?1) AND p.experiment <> ?2"
                         " AND p.run_id NOT IN (SELECT run_id FROM upload_status WHERE status <> 'accepted')"
                         " ORDER BY p.rowid");
        q.bind(1, experiment);
        q.bind(2, kFiguresSet);
        ExportRow row;
        bool go_on = true;
        while (go_on && q.step()) {
            row.run_id = q.text(0);
            row.gpu_key = q.text(1);
            row.created_at = q.text(2);
            row.experiment = q.text(3);
            if (!visit_export_rows(q.blob(4), row, go_on, visit)) throw std::runtime_error("SQLite: the stored points of run " + row.run_id + " are damaged");
        }
    }

private:
    static UploadStatus status_from(const Stmt &q) { return {q.text(0), q.text(1), q.text(2), q.text(3), q.text(4)}; }

    // The upload's status row, new or replacing its earlier one.
    void put_status(const UploadStatus &st) {
        Stmt s(db_.get(), "INSERT INTO upload_status (run_id, gpu_key, created_at, status, reason) VALUES (?1,?2,?3,?4,?5)"
                          " ON CONFLICT(run_id) DO UPDATE SET status = ?4, reason = ?5");
        s.bind(1, st.run_id).bind(2, st.gpu_key).bind(3, st.created_at).bind(4, st.status).bind(5, st.reason).step();
    }

    void append_log(const std::string &at, const std::string &run_id, const std::string &action, const std::string &reason,
                    const std::string &actor) {
        Stmt l(db_.get(), "INSERT INTO moderation_log (at, run_id, action, reason, actor) VALUES (?,?,?,?,?)");
        l.bind(1, at).bind(2, run_id).bind(3, action).bind(4, reason).bind(5, actor).step();
    }

    template <class F>
    void transaction(F f) {
        db_.exec("BEGIN IMMEDIATE");
        try {
            f();
            db_.exec("COMMIT");
        } catch (...) {
            sqlite3_exec(db_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
            throw;
        }
    }

    const std::string path_;
    Db db_;
    std::mutex mu_;
};

}  // namespace

std::unique_ptr<CrowdStore> open_sqlite_crowd_store(const std::string &path) { return std::make_unique<SqliteCrowdStore>(path); }

std::unique_ptr<CrowdStore> open_crowd_store(const std::string &url) {
    if (url.rfind("postgres://", 0) == 0 || url.rfind("postgresql://", 0) == 0) {
#ifdef GM_HAVE_POSTGRES
        return open_postgres_crowd_store(url);
#else
        throw std::runtime_error("this gmlab-server was built without PostgreSQL support");
#endif
    }
    const std::string path = url.rfind("sqlite:", 0) == 0 ? url.substr(7) : url;
    if (path.empty()) throw std::runtime_error("empty SQLite path");
    return open_sqlite_crowd_store(path);
}

}  // namespace gmserver
