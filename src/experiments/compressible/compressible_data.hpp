// The data the compressible-memory experiment streams, computed identically
// on host and device: all zeros, a short block repeated (both compress), and
// the random pattern (which does not).
#pragma once

#include <cstdint>

#include "shared_kernels/pattern.hpp"

namespace gmlab {

enum class DataKind : int { Zeros = 0, Repeated = 1, Random = 2 };

// The period of the repeated block, in 32-bit words (32 bytes).
inline constexpr std::uint64_t kRepeatWords = 8;

// Word i of the data of `kind`.
GM_HOST_DEVICE inline std::uint32_t data_word(DataKind kind, std::uint64_t i, std::uint32_t seed) {
    switch (kind) {
    case DataKind::Zeros: return 0;
    case DataKind::Repeated: return pattern_word(i % kRepeatWords, seed);
    default: return pattern_word(i, seed);
    }
}

}  // namespace gmlab
