#include "shared_kernels/harness_kernels.cuh"

#include "shared_kernels/kernel_catalogue.cuh"

#include <cstdint>

namespace gmlab::kernels {

namespace {

__global__ void l2_flush_kernel(uint4 *buf, std::size_t n) {
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        uint4 v = buf[i];
        v.x += 1u;
        buf[i] = v;
    }
}

// Reads every word: evicts the dirty lines the flush left in L2 (their write-back
// happens here, not in the next kernel). The store never happens in practice;
// it keeps the loads from being optimised away.
__global__ void l2_clean_kernel(uint4 *buf, std::size_t n) {
    unsigned acc = 0;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        const uint4 v = buf[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x9e3779b9u && n == 0) buf[0].y = acc;
}

__global__ void spin_kernel(long long cycles) {
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
}

GM_KERNEL("support", "l2_flush_kernel (L2 eviction between timed launches)", l2_flush_kernel);
GM_KERNEL("support", "l2_clean_kernel (leaves L2 without dirty lines before a counted launch)", l2_clean_kernel);
GM_KERNEL("support", "spin_kernel (holds the stream before a timed launch)", spin_kernel);

}  // namespace

cudaError_t launch_l2_flush(void *buf, std::size_t bytes, int multiprocessors, cudaStream_t stream) {
    const unsigned blocks = static_cast<unsigned>(multiprocessors > 0 ? multiprocessors * 4 : 256);
    l2_flush_kernel<<<blocks, 512, 0, stream>>>(static_cast<uint4 *>(buf), bytes / sizeof(uint4));
    return cudaGetLastError();
}

cudaError_t launch_l2_clean(void *buf, std::size_t bytes, int multiprocessors, cudaStream_t stream) {
    const unsigned blocks = static_cast<unsigned>(multiprocessors > 0 ? multiprocessors * 4 : 256);
    l2_clean_kernel<<<blocks, 512, 0, stream>>>(static_cast<uint4 *>(buf), bytes / sizeof(uint4));
    return cudaGetLastError();
}

cudaError_t launch_spin(long long cycles, cudaStream_t stream) {
    spin_kernel<<<1, 1, 0, stream>>>(cycles);
    return cudaGetLastError();
}

}  // namespace gmlab::kernels
