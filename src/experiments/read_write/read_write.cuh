// Launchers of the read_write family: a store-only kernel that writes a
// pattern the host can check, one 16-byte vector per thread.
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

// Vectors each thread of load_words requests before it uses any.
constexpr int kLoadVectors = 4;

// Blocks of launch_load_words for n16 vectors: one partial sum each.
inline std::size_t load_blocks(std::size_t n16, int block) {
    const std::size_t per_block = static_cast<std::size_t>(block) * kLoadVectors;
    return (n16 + per_block - 1) / per_block;
}

// partial[b] = the sum, as 64-bit integers, of the 32-bit words of block b's
// kLoadVectors x block vectors of p: loads only, but for one 8-byte partial
// per block (no atomics, which would queue on one address).
cudaError_t launch_load_words(const void *p, std::size_t n16, unsigned long long *partial, int block, cudaStream_t stream);

}  // namespace gmlab::kernels
