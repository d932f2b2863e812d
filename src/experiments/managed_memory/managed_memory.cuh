// Kernels of the managed-memory experiment (its reads use the shared
// read_sum): a write of the pattern, and the increment the host/device
// ping-pong alternates with the host's. Each walks 16-byte vectors with a grid
// of at most `multiprocessors` x 8 blocks, so that many pages fault at once,
// as they would for a real kernel.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace gmlab::kernels {

// Word i of p (i < n16 x 4) = pattern_word(i, seed).
cudaError_t launch_managed_write_pattern(void *p, std::size_t n16, std::uint32_t seed, int multiprocessors,
                                         cudaStream_t stream);

// Every 32-bit word of p (n16 x 4 of them) += 1.
cudaError_t launch_managed_increment(void *p, std::size_t n16, int multiprocessors, cudaStream_t stream);

}  // namespace gmlab::kernels
