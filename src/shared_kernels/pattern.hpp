// Deterministic test data that host and device compute identically, so that
// large inputs are generated on the device and checked on the host.
#pragma once

#include <cstdint>

#ifdef __CUDACC__
#define GM_HOST_DEVICE __host__ __device__
#else
#define GM_HOST_DEVICE
#endif

namespace gmlab {

// A well-mixed 32-bit word for index i (splitmix64 finaliser).
GM_HOST_DEVICE inline std::uint32_t pattern_word(std::uint64_t i, std::uint32_t seed) {
    std::uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull + seed;
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return static_cast<std::uint32_t>(x);
}

// A double in [0.5, 1.5) with 24 significant bits: exact on host and device.
GM_HOST_DEVICE inline double pattern_double(std::uint64_t i, std::uint32_t seed) {
    return 0.5 + static_cast<double>(pattern_word(i, seed) >> 8) * (1.0 / 16777216.0);
}

}  // namespace gmlab
