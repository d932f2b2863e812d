// The kernels of the carveout experiment: every block reads one working set
// over and over through L1, so that it hits while the set fits the L1 the
// shared-memory carveout leaves; and one thread chasing pointers through the
// same working set, which finds that L1 by latency.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace gmlab::kernels {

inline constexpr unsigned kL1ReadThreads = 1024;

// Every block reads the n_vec 16-byte vectors of `data` (16-byte aligned)
// `passes` times with ld.global.ca (cached in L1) and writes the sum of the
// words it read to block_sums[blockIdx.x]. The kernel uses no shared memory:
// on an H200 a kernel with any (256 bytes of static shared memory here
// before) ran with the largest shared configuration under every preference
// but 0 %, so that 50 % left the L1 of 100 %.
cudaError_t launch_l1_reads(const std::uint32_t *data, std::uint32_t n_vec, std::uint32_t passes, unsigned blocks,
                            unsigned long long *block_sums, cudaStream_t stream);

// The same reads with 256 bytes of static shared memory for the block's sum:
// the kernel the experiment had, kept to show what that shared memory does to
// the carveout the driver chooses.
cudaError_t launch_l1_reads_with_shared(const std::uint32_t *data, std::uint32_t n_vec, std::uint32_t passes, unsigned blocks,
                                        unsigned long long *block_sums, cudaStream_t stream);

// One thread of one block walks next[] (word indices: next[i] is the index
// of the node after node i), `hops` dependent ld.global.ca loads from node 0
// untimed to warm L1, then `hops` more timed with clock64: cycles[0] the
// timed cycles, cycles[1] the node it ended on.
cudaError_t launch_l1_chase(const std::uint32_t *next, std::uint32_t hops, unsigned long long *cycles, cudaStream_t stream);

// Which kernel a carveout preference or attribute query is about.
enum class L1Kernel { Reads, ReadsWithShared, Chase };

// A kernel's shared-memory carveout preference
// (cudaFuncAttributePreferredSharedMemoryCarveout: a percentage of the
// device's shared memory per SM, or -1 for no preference), and its attributes
// (preferredShmemCarveout reads it back).
cudaError_t set_l1_carveout(L1Kernel kernel, int percent);
cudaError_t l1_attributes(L1Kernel kernel, cudaFuncAttributes *out);

// The reads kernel's, as set_l1_carveout(L1Kernel::Reads, ...).
cudaError_t set_l1_reads_carveout(int percent);
cudaError_t l1_reads_attributes(cudaFuncAttributes *out);

}  // namespace gmlab::kernels
