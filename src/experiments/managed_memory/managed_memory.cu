#include "experiments/managed_memory/managed_memory.cuh"

#include "shared_kernels/kernel_catalogue.cuh"
#include "shared_kernels/launch_grid.cuh"
#include "shared_kernels/pattern.hpp"

namespace gmlab::kernels {

namespace {

constexpr unsigned kBlock = 256;

__global__ void managed_write_pattern(uint4 *__restrict__ p, std::size_t n16, std::uint32_t seed) {
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n16;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        const std::uint64_t w = 4 * static_cast<std::uint64_t>(i);
        p[i] = make_uint4(pattern_word(w, seed), pattern_word(w + 1, seed), pattern_word(w + 2, seed),
                          pattern_word(w + 3, seed));
    }
}

__global__ void managed_increment(uint4 *__restrict__ p, std::size_t n16) {
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n16;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        uint4 v = p[i];
        v.x += 1;
        v.y += 1;
        v.z += 1;
        v.w += 1;
        p[i] = v;
    }
}

GM_KERNEL("managed_memory", "managed_write_pattern (write)", managed_write_pattern);
GM_KERNEL("managed_memory", "managed_increment (ping-pong)", managed_increment);

}  // namespace

cudaError_t launch_managed_write_pattern(void *p, std::size_t n16, std::uint32_t seed, int multiprocessors,
                                         cudaStream_t stream) {
    if (n16 == 0) return cudaSuccess;
    managed_write_pattern<<<capped_grid(n16, kBlock, multiprocessors), kBlock, 0, stream>>>(static_cast<uint4 *>(p), n16, seed);
    return cudaGetLastError();
}

cudaError_t launch_managed_increment(void *p, std::size_t n16, int multiprocessors, cudaStream_t stream) {
    if (n16 == 0) return cudaSuccess;
    managed_increment<<<capped_grid(n16, kBlock, multiprocessors), kBlock, 0, stream>>>(static_cast<uint4 *>(p), n16);
    return cudaGetLastError();
}

}  // namespace gmlab::kernels
