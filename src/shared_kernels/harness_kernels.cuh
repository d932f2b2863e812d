// Kernels the measurement harness uses between timed launches.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace gmlab::kernels {

// Reads and rewrites every 16-byte word of buf (bytes, a multiple of 16), so
// that whatever an experiment left in L2 is evicted.
cudaError_t launch_l2_flush(void *buf, std::size_t bytes, int multiprocessors, cudaStream_t stream);

// Reads every 16-byte word of buf: after launch_l2_flush on the same buffer,
// L2 holds no dirty lines, so the next kernel's DRAM writes are its own.
cudaError_t launch_l2_clean(void *buf, std::size_t bytes, int multiprocessors, cudaStream_t stream);

// One thread that busy-waits for about `cycles` SM clock cycles.
cudaError_t launch_spin(long long cycles, cudaStream_t stream);

}  // namespace gmlab::kernels
