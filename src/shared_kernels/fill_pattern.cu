#include "shared_kernels/fill_pattern.cuh"

#include "shared_kernels/kernel_catalogue.cuh"
#include "shared_kernels/pattern.hpp"

namespace gmlab::kernels {

namespace {

__global__ void fill_pattern_kernel(std::uint32_t *p, std::size_t n, std::uint32_t seed) {
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        p[i] = pattern_word(i, seed);
}

GM_KERNEL("support", "fill_pattern_kernel (pattern input)", fill_pattern_kernel);

}  // namespace

cudaError_t launch_fill_pattern(std::uint32_t *p, std::size_t n_words, std::uint32_t seed, cudaStream_t stream) {
    fill_pattern_kernel<<<1024, 256, 0, stream>>>(p, n_words, seed);
    return cudaGetLastError();
}

}  // namespace gmlab::kernels
