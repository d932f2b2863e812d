// Storage in one SQLite file (WAL): the default, needs no server.
#pragma once

#include <memory>
#include <string>

#include "storage/storage.hpp"

namespace gmserver {

std::unique_ptr<Storage> open_sqlite_storage(const std::string &path, const StorageOptions &options = {});

}  // namespace gmserver
