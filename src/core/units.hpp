// Binary sizes and their text, the one definition the library uses: a size
// in notes and errors reads the same in every experiment.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

namespace gmlab {

inline constexpr std::size_t kKiB = 1024;
inline constexpr std::size_t kMiB = 1024 * kKiB;
inline constexpr std::size_t kGiB = 1024 * kMiB;

// "12.5 MiB": one decimal, for sizes from a few MiB up.
inline std::string mib_text(double bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / static_cast<double>(kMiB));
    return buf;
}

// "48 KiB", or "1000 bytes" for a size that is no whole number of KiB.
inline std::string kib_text(std::size_t bytes) {
    return bytes % kKiB == 0 ? std::to_string(bytes / kKiB) + " KiB" : std::to_string(bytes) + " bytes";
}

}  // namespace gmlab
