// The guide's global -> shared copy benchmark: copy_count elements per thread
// into shared memory, through registers (sync) or with __pipeline_memcpy_async
// (async), timed inside the kernel with clock64.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace gmlab::kernels {

constexpr int kAsyncBlock = 256;

// Copies blocks x kAsyncBlock x copy_count elements of word_size (4, 8, 16)
// bytes from in into shared memory, then (outside the clocked region) writes
// them back to out so that the copy can be checked. clock_sum accumulates
// every thread's clock64 cycles spent in the copy.
cudaError_t launch_global_to_shared(bool async, int word_size, const void *in, void *out, std::size_t copy_count,
                                    int blocks, unsigned long long *clock_sum, cudaStream_t stream);

// Registers and other resources of one of the six kernels.
cudaError_t global_to_shared_attributes(bool async, int word_size, cudaFuncAttributes *out);

// Lets the kernels use up to `bytes` of dynamic shared memory per block
// (needed above 48 KiB).
cudaError_t allow_global_to_shared(std::size_t bytes);

}  // namespace gmlab::kernels
