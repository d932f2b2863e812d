// The pattern fill that experiments' inputs come from: large inputs are
// generated on the device and checked on the host against pattern_word
// (pattern.hpp), which both sides compute identically.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace gmlab::kernels {

// p[i] = pattern_word(i, seed) for i < n_words.
cudaError_t launch_fill_pattern(std::uint32_t *p, std::size_t n_words, std::uint32_t seed,
                                cudaStream_t stream);

}  // namespace gmlab::kernels
