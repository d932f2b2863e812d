// open_storage: a storage URL to its backend. The one place that knows both
// backends, so that neither depends on the other.
#include <memory>
#include <stdexcept>
#include <string>

#include "storage/sqlite/sqlite_storage.hpp"
#include "storage/storage.hpp"
#ifdef GM_HAVE_POSTGRES
#include "storage/postgres/postgres_storage.hpp"
#endif

namespace gmserver {

std::unique_ptr<Storage> open_storage(const std::string &url, const StorageOptions &options) {
    if (url.rfind("postgres://", 0) == 0 || url.rfind("postgresql://", 0) == 0) {
#ifdef GM_HAVE_POSTGRES
        return open_postgres_storage(url, options);
#else
        throw std::runtime_error("this gmlab-server was built without PostgreSQL support");
#endif
    }
    const std::string path = url.rfind("sqlite:", 0) == 0 ? url.substr(7) : url;
    if (path.empty()) throw std::runtime_error("empty SQLite path");
    return open_sqlite_storage(path, options);
}

}  // namespace gmserver
