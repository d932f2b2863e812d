// Errors the databases returned to this process: a failed statement, a lost
// or refused connection (both backends, the crowd's tables too). The metric
// gmlab_database_errors_total reads it.
#pragma once

#include <atomic>
#include <cstdint>

namespace gmserver {

inline std::atomic<std::uint64_t> &database_error_count() {
    static std::atomic<std::uint64_t> n{0};
    return n;
}
inline void count_database_error() { database_error_count().fetch_add(1, std::memory_order_relaxed); }
inline std::uint64_t database_errors() { return database_error_count().load(std::memory_order_relaxed); }

}  // namespace gmserver
