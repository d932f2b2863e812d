// A read of a whole array that sums what it reads, so that every byte must
// arrive and the host can check the sum (parallel_sum in verify.hpp): the
// read the managed-memory and compressible-memory experiments time.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace gmlab::kernels {

// *sum += the sum of the n16 x 4 32-bit words of p, as 64-bit integers.
// 16-byte loads, a grid of at most `multiprocessors` x 8 blocks of 256
// threads, grid-stride; one atomic per warp. p may be managed or mapped host
// memory.
cudaError_t launch_read_sum(const void *p, std::size_t n16, unsigned long long *sum, int multiprocessors,
                            cudaStream_t stream);

}  // namespace gmlab::kernels
