#include "experiments/carveout/carveout.cuh"

#include "shared_kernels/kernel_catalogue.cuh"

namespace gmlab::kernels {

namespace {

// Cached in L1 and L2 (the default path for global loads, named so that no
// compiler option changes it); volatile, so that every pass issues its loads.
__device__ __forceinline__ unsigned long long load_ca_sum(const uint4 *p) {
    unsigned x, y, z, w;
    asm volatile("ld.global.ca.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "l"(p));
    return static_cast<unsigned long long>(x) + y + z + w;
}

__global__ void __launch_bounds__(kL1ReadThreads)
    l1_reads(const uint4 *__restrict__ data, std::uint32_t n_vec, std::uint32_t passes, unsigned long long *block_sums) {
    __shared__ unsigned long long part[kL1ReadThreads / 32];
    unsigned long long s = 0;
    for (std::uint32_t p = 0; p < passes; ++p) {
#pragma unroll 4
        for (std::uint32_t i = threadIdx.x; i < n_vec; i += blockDim.x) s += load_ca_sum(data + i);
    }
    for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
    if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long total = 0;
        for (unsigned w = 0; w < blockDim.x / 32; ++w) total += part[w];
        block_sums[blockIdx.x] = total;
    }
}

GM_KERNEL("carveout", "l1_reads", l1_reads);

}  // namespace

cudaError_t launch_l1_reads(const std::uint32_t *data, std::uint32_t n_vec, std::uint32_t passes, unsigned blocks,
                            unsigned long long *block_sums, cudaStream_t stream) {
    if (!data || !block_sums || n_vec == 0 || passes == 0 || blocks == 0 || reinterpret_cast<std::uintptr_t>(data) % 16)
        return cudaErrorInvalidValue;
    l1_reads<<<blocks, kL1ReadThreads, 0, stream>>>(reinterpret_cast<const uint4 *>(data), n_vec, passes, block_sums);
    return cudaGetLastError();
}

cudaError_t set_l1_reads_carveout(int percent) {
    return cudaFuncSetAttribute(reinterpret_cast<const void *>(l1_reads), cudaFuncAttributePreferredSharedMemoryCarveout,
                                percent);
}

cudaError_t l1_reads_attributes(cudaFuncAttributes *out) {
    return cudaFuncGetAttributes(out, reinterpret_cast<const void *>(l1_reads));
}

}  // namespace gmlab::kernels
