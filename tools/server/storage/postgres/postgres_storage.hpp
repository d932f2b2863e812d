// The PostgreSQL implementation of Storage (libpq). open_storage() calls this
// for "postgres://..." and "postgresql://..." connection strings.
#pragma once

#include <memory>
#include <string>

#include "storage/storage.hpp"

namespace gmserver {

// Connects (the URL is handed to libpq unchanged), creates the tables and
// indexes if needed and returns a thread-safe Storage backed by a small pool
// of connections. Throws std::runtime_error with libpq's reason.
std::unique_ptr<Storage> open_postgres_storage(const std::string &url, const StorageOptions &options = {});

// True for the URLs that open_postgres_storage() takes.
bool is_postgres_url(const std::string &url);

}  // namespace gmserver
