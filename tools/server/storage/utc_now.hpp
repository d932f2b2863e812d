// The current time as the server stores it: UTC, ISO 8601 to the second.
#pragma once

#include <chrono>
#include <ctime>
#include <string>

namespace gmserver {

inline std::string utc_now() {
    const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

}  // namespace gmserver
