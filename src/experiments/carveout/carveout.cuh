// The kernel of the carveout experiment: every block reads one working set
// over and over through L1, so that it hits while the set fits the L1 the
// shared-memory carveout leaves.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace gmlab::kernels {

inline constexpr unsigned kL1ReadThreads = 1024;

// Every block reads the n_vec 16-byte vectors of `data` (16-byte aligned)
// `passes` times with ld.global.ca (cached in L1) and writes the sum of the
// words it read to block_sums[blockIdx.x].
cudaError_t launch_l1_reads(const std::uint32_t *data, std::uint32_t n_vec, std::uint32_t passes, unsigned blocks,
                            unsigned long long *block_sums, cudaStream_t stream);

// The kernel's shared-memory carveout preference
// (cudaFuncAttributePreferredSharedMemoryCarveout: a percentage of the
// device's shared memory per SM, or -1 for no preference), and its attributes
// (preferredShmemCarveout reads it back).
cudaError_t set_l1_reads_carveout(int percent);
cudaError_t l1_reads_attributes(cudaFuncAttributes *out);

}  // namespace gmlab::kernels
