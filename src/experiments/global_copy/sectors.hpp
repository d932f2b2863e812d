// The guide's model of global memory requests (compute capability 6.0 and
// later): a warp's request is served in 32-byte sectors, and what it costs is
// the number of distinct sectors its threads touch.
#pragma once

#include <cstddef>

namespace gmlab {

// Distinct 32-byte sectors touched when thread t of a warp accesses word
// (offset_words + t * stride_words) of word_bytes, from a 32-byte-aligned base.
int sectors_per_request(std::size_t word_bytes, std::size_t stride_words, std::size_t offset_words,
                        int threads = 32);

// Useful bytes over fetched bytes for that request: 1.0 when fully coalesced.
double sector_efficiency(std::size_t word_bytes, std::size_t stride_words, std::size_t offset_words,
                         int threads = 32);

}  // namespace gmlab
