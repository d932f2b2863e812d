// Shared-memory bank conflicts: each warp reads or writes its own shared
// region, lane t at word (t * stride) mod 1024, over and over.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace gmlab::kernels {

constexpr int kBankRegionWords = 1024;  // per warp: stride 32 x 32 lanes fits without wrapping
constexpr int kBankWarpsPerBlock = 4;

// Initial value of word i of every warp's region, and the value lane writes
// at iteration it (host and device compute both).
__host__ __device__ inline std::uint64_t bank_init_value(unsigned i) { return 0x9E3779B9u * (i + 1u); }
__host__ __device__ inline std::uint64_t bank_write_value(unsigned lane, unsigned it) { return (lane + 1u) * 1000003u + it; }

// word_size 4 or 8. Reads: out[thread] = sum over iterations of the word read
// (wrapping in the word's width). Writes: out holds every warp's region after
// the last iteration. stride 0 (every lane one word: a broadcast) is for reads.
cudaError_t launch_bank_access(bool write, int word_size, unsigned stride, unsigned iterations, int blocks,
                               void *out, cudaStream_t stream);

}  // namespace gmlab::kernels
