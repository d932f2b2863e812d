// open_storage, backup_database and restore_database: a storage URL to its
// backend. The one place that knows both backends, so that neither depends on
// the other.
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

#include "storage/backup.hpp"
#include "storage/schema_version.hpp"
#include "storage/sqlite/sqlite_storage.hpp"
#include "storage/storage.hpp"
#ifdef GM_HAVE_POSTGRES
#include "storage/postgres/postgres_storage.hpp"
#endif

namespace gmserver {

namespace {

bool postgres_url(const std::string &url) {
    return url.rfind("postgres://", 0) == 0 || url.rfind("postgresql://", 0) == 0;
}

std::string sqlite_path(const std::string &url) {
    const std::string path = url.rfind("sqlite:", 0) == 0 ? url.substr(7) : url;
    if (path.empty()) throw std::runtime_error("empty SQLite path");
    return path;
}

}  // namespace

BackupReport backup_database(const std::string &url, const std::string &to) {
    if (postgres_url(url))
        throw std::runtime_error("a PostgreSQL database is backed up with pg_dump, which reads one snapshot while the "
                                 "servers run: pg_dump --format=custom --compress=1 --file " + to +
                                 " --dbname URL (deploy/README.md, \"Backups\")");
    return copy_sqlite_database(sqlite_path(url), to, "the database", "backup");
}

BackupReport restore_database(const std::string &from, const std::string &url) {
    if (postgres_url(url))
        throw std::runtime_error("a PostgreSQL backup made with pg_dump is restored into a new database with "
                                 "pg_restore: createdb NAME, then pg_restore --no-owner --dbname URL " + from +
                                 " (deploy/README.md, \"Backups\")");
    BackupReport r = copy_sqlite_database(from, sqlite_path(url), "the backup", "restore");
    // Opened as the server opens it: an older schema is brought up to date.
    const auto t0 = std::chrono::steady_clock::now();
    StorageOptions options;
    options.background_refresh = false;
    r.uploads = open_storage(url, options)->count();
    r.schema_version = kSchemaVersion;
    r.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

std::unique_ptr<Storage> open_storage(const std::string &url, const StorageOptions &options) {
    if (postgres_url(url)) {
#ifdef GM_HAVE_POSTGRES
        return open_postgres_storage(url, options);
#else
        throw std::runtime_error("this gmlab-server was built without PostgreSQL support");
#endif
    }
    return open_sqlite_storage(sqlite_path(url), options);
}

}  // namespace gmserver
