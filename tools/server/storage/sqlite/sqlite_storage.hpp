// Storage in one SQLite file (WAL): the default, needs no server.
#pragma once

#include <memory>
#include <string>

#include "storage/backup.hpp"
#include "storage/storage.hpp"

namespace gmserver {

std::unique_ptr<Storage> open_sqlite_storage(const std::string &path, const StorageOptions &options = {});

// Copies the SQLite database `from` (a live one, or a backup) into the new
// file `to` with the online backup API (backup.cpp); what each is, for the
// messages ("the database", "the backup"). Throws std::runtime_error with the
// reason; leaves nothing behind then.
BackupReport copy_sqlite_database(const std::string &from, const std::string &to, const char *source_what,
                                  const char *target_what);

}  // namespace gmserver
