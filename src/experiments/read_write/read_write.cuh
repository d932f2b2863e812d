// Launchers of the read_write family: a store-only kernel that writes a
// pattern the host can check, one 16-byte vector per thread. The read it
// times is the shared read_sum (shared_kernels/read_sum.cuh).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "shared_kernels/pattern.hpp"

namespace gmlab::kernels {

// The 32-bit word i of a store_words array: cheap to compute, so that the
// kernel is bound by its stores, and different at every index.
GM_HOST_DEVICE inline std::uint32_t stored_word(std::uint64_t i, std::uint32_t seed) {
    return static_cast<std::uint32_t>(i * 2654435761u) ^ seed;
}

// p[i] = stored_word(i, seed) for the n16 x 4 words of p: one 16-byte store
// per thread, one block of `block` threads per block's vectors (no loop).
cudaError_t launch_store_words(void *p, std::size_t n16, std::uint32_t seed, int block, cudaStream_t stream);

}  // namespace gmlab::kernels
