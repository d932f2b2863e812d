#include "shared_kernels/read_sum.cuh"

#include "shared_kernels/kernel_catalogue.cuh"
#include "shared_kernels/launch_grid.cuh"

namespace gmlab::kernels {

namespace {

__global__ void read_sum_kernel(const uint4 *__restrict__ p, std::size_t n16, unsigned long long *sum) {
    unsigned long long s = 0;
#pragma unroll 4
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n16;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        const uint4 v = p[i];
        s += static_cast<unsigned long long>(v.x) + v.y + v.z + v.w;
    }
    // Every lane reaches the shuffle (none returns early), then one atomic per warp.
    for (int offset = 16; offset > 0; offset >>= 1) s += __shfl_down_sync(0xffffffffu, s, offset);
    if ((threadIdx.x & 31) == 0) atomicAdd(sum, s);
}

GM_KERNEL("support", "read_sum_kernel (a whole array read and summed)", read_sum_kernel);

}  // namespace

cudaError_t launch_read_sum(const void *p, std::size_t n16, unsigned long long *sum, int multiprocessors,
                            cudaStream_t stream) {
    if (n16 == 0) return cudaSuccess;
    read_sum_kernel<<<capped_grid(n16, 256, multiprocessors), 256, 0, stream>>>(static_cast<const uint4 *>(p), n16, sum);
    return cudaGetLastError();
}

}  // namespace gmlab::kernels
