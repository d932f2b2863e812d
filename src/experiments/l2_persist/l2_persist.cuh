// The kernel of the guide's L2 sliding-window benchmark.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace gmlab::kernels {

// streaming[i] += persistent[i % n_persistent] for i < n_streaming: each thread
// touches one element of the large streaming region and one of the small,
// often reused persistent region. n_streaming < 2^32.
cudaError_t launch_sliding_window(const std::uint32_t *persistent, std::uint32_t n_persistent,
                                  std::uint32_t *streaming, std::uint32_t n_streaming, int block,
                                  cudaStream_t stream);

}  // namespace gmlab::kernels
