// Backups of a database the server may be using, and restores into a new
// one.
//
// SQLite: SQLite's online backup API copies the file page by page in one
// step, reading one snapshot: every upload committed before the backup began
// is in the copy, and uploads go on meanwhile (in WAL mode a reader never
// blocks the writer). The copy is written beside the target, made durable,
// and linked to the target's name only once complete, so a FILE that exists
// is never a half-written backup. It is an SQLite file in rollback-journal
// mode that gmlab-server can also open directly.
//
// PostgreSQL: pg_dump and pg_restore do this (deploy/README.md, "Backups");
// these functions say so instead of doing it.
#pragma once

#include <cstdint>
#include <string>

namespace gmserver {

struct BackupReport {
    std::uint64_t uploads = 0;  // stored uploads in the copy
    std::uint64_t bytes = 0;    // size of the copy
    int schema_version = 0;     // of the copy (0: made before versions were kept)
    double seconds = 0;
};

// Copies the database at `url` into the new file `to`. Throws
// std::runtime_error with the reason: `to` exists already, its folder cannot
// be written, the source is not a gmlab-server database or is of a newer
// schema, a PostgreSQL URL (the message names pg_dump).
BackupReport backup_database(const std::string &url, const std::string &to);

// Copies the backup file `from` into the database at `url`, which must not
// exist yet (or be an empty file), then opens it as the server does (bringing
// an older schema up to date) and counts its uploads. Throws
// std::runtime_error with the reason.
BackupReport restore_database(const std::string &from, const std::string &url);

}  // namespace gmserver
