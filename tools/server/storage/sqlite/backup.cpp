// Copies of an SQLite database made with SQLite's online backup API, for
// backup_database and restore_database (storage/backup.hpp): one snapshot
// of the source, read without holding its writer up, written beside the
// target and linked to the target's name only once complete and durable.
#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storage/backup.hpp"
#include "storage/schema_version.hpp"
#include "storage/sqlite/sqlite_storage.hpp"

namespace gmserver {

namespace {

class Connection {
public:
    Connection(const std::string &path, int flags, const std::string &what) {
        if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
            const std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
            sqlite3_close_v2(db_);
            db_ = nullptr;
            throw std::runtime_error("cannot open " + what + " " + path + ": " + msg);
        }
        sqlite3_busy_timeout(db_, 10000);
    }
    ~Connection() { close(); }
    Connection(const Connection &) = delete;
    Connection &operator=(const Connection &) = delete;
    sqlite3 *get() const { return db_; }
    void close() {
        if (db_) sqlite3_close_v2(db_);
        db_ = nullptr;
    }
    // The first column of the first row of a query (0 when no row).
    long long integer(const char *sql) const {
        sqlite3_stmt *s = nullptr;
        if (sqlite3_prepare_v2(db_, sql, -1, &s, nullptr) != SQLITE_OK)
            throw std::runtime_error(std::string("SQLite: ") + sqlite3_errmsg(db_));
        const int rc = sqlite3_step(s);
        const long long v = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
        sqlite3_finalize(s);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE) throw std::runtime_error(std::string("SQLite: ") + sqlite3_errmsg(db_));
        return v;
    }
    void exec(const char *sql) const {
        char *err = nullptr;
        if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
            const std::string msg = err ? err : "unknown error";
            sqlite3_free(err);
            throw std::runtime_error(std::string("SQLite: ") + msg);
        }
    }

private:
    sqlite3 *db_ = nullptr;
};

bool exists(const std::string &path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0;
}

std::string folder_of(const std::string &path) {
    const auto slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

// The target must be new, and its folder writable.
void check_target(const std::string &to, const char *what) {
    if (to.empty()) throw std::runtime_error(std::string("no ") + what + " file given");
    if (exists(to))
        throw std::runtime_error(to + " already exists: a " + what + " never overwrites a file; choose a new name or move it away");
    for (const char *suffix : {"-wal", "-shm", "-journal"})
        if (exists(to + suffix))
            throw std::runtime_error(to + suffix + " exists (left by an earlier database of that name): move it away first");
    const std::string dir = folder_of(to);
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        throw std::runtime_error(std::string("cannot write ") + what + " " + to + ": the folder " + dir + " is not writable (" +
                                 std::strerror(errno) + ")");
}

void sync_path(const std::string &path, bool directory) {
    const int fd = ::open(path.c_str(), (directory ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC);
    if (fd < 0) return;
    ::fsync(fd);
    ::close(fd);
}

// The source, opened without creating anything; read-only where it must be.
Connection open_source(const std::string &path, const std::string &what) {
    if (!exists(path)) throw std::runtime_error(what + " " + path + " does not exist");
    try {
        return Connection(path, SQLITE_OPEN_READWRITE, what);
    } catch (const std::runtime_error &) {
        return Connection(path, SQLITE_OPEN_READONLY, what);
    }
}

// A gmlab-server database of a schema this server reads.
void check_source(const Connection &c, const std::string &path, const std::string &what) {
    if (c.integer("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'runs'") == 0)
        throw std::runtime_error(what + " " + path + " is not a gmlab-server database (it has no runs table)");
    const long long version = c.integer("PRAGMA user_version");
    if (version > kSchemaVersion) throw std::runtime_error(newer_schema_message(what + " " + path, version));
}

}  // namespace

BackupReport copy_sqlite_database(const std::string &from, const std::string &to, const char *source_what,
                                  const char *target_what) {
    const auto t0 = std::chrono::steady_clock::now();
    check_target(to, target_what);
    Connection src = open_source(from, source_what);
    check_source(src, from, source_what);
    const std::string partial = to + ".partial-" + std::to_string(::getpid());
    BackupReport report;
    try {
        {
            Connection dst(partial, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, "the copy");
            // Every page in one step: one read transaction, one snapshot. A
            // copy made in several steps starts over whenever another
            // connection writes to the source, which under steady uploads
            // would never end.
            for (int attempt = 0;; ++attempt) {
                sqlite3_backup *b = sqlite3_backup_init(dst.get(), "main", src.get(), "main");
                if (!b) throw std::runtime_error(std::string("SQLite backup: ") + sqlite3_errmsg(dst.get()));
                const int rc = sqlite3_backup_step(b, -1);
                sqlite3_backup_finish(b);
                if (rc == SQLITE_DONE) break;
                if ((rc == SQLITE_BUSY || rc == SQLITE_LOCKED) && attempt < 50) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(100));
                    continue;
                }
                throw std::runtime_error(std::string("SQLite backup: ") + sqlite3_errstr(rc));
            }
            // A file of its own: no WAL beside it.
            dst.exec("PRAGMA journal_mode=DELETE");
            report.uploads = static_cast<std::uint64_t>(dst.integer("SELECT count(*) FROM runs"));
            report.schema_version = static_cast<int>(dst.integer("PRAGMA user_version"));
        }
        sync_path(partial, false);
        if (::link(partial.c_str(), to.c_str()) != 0)
            throw std::runtime_error("cannot create " + to + ": " + std::strerror(errno));
        ::unlink(partial.c_str());
        sync_path(folder_of(to), true);
    } catch (...) {
        ::unlink(partial.c_str());
        ::unlink((partial + "-journal").c_str());
        throw;
    }
    struct stat st {};
    if (::stat(to.c_str(), &st) == 0) report.bytes = static_cast<std::uint64_t>(st.st_size);
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return report;
}

}  // namespace gmserver
