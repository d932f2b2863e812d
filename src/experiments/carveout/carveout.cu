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

__device__ __forceinline__ unsigned long long thread_sum(const uint4 *__restrict__ data, std::uint32_t n_vec,
                                                          std::uint32_t passes) {
    unsigned long long s = 0;
    for (std::uint32_t p = 0; p < passes; ++p) {
#pragma unroll 4
        for (std::uint32_t i = threadIdx.x; i < n_vec; i += blockDim.x) s += load_ca_sum(data + i);
    }
    for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
    return s;
}

// No shared memory: thread 0 clears the block's sum in global memory, the
// barrier orders that before every warp's atomic add of its own sum.
__global__ void __launch_bounds__(kL1ReadThreads)
    l1_reads(const uint4 *__restrict__ data, std::uint32_t n_vec, std::uint32_t passes, unsigned long long *block_sums) {
    if (threadIdx.x == 0) block_sums[blockIdx.x] = 0;
    __syncthreads();
    const unsigned long long s = thread_sum(data, n_vec, passes);
    if (threadIdx.x % 32 == 0) atomicAdd(block_sums + blockIdx.x, s);
}

__global__ void __launch_bounds__(kL1ReadThreads)
    l1_reads_with_shared(const uint4 *__restrict__ data, std::uint32_t n_vec, std::uint32_t passes,
                         unsigned long long *block_sums) {
    __shared__ unsigned long long part[kL1ReadThreads / 32];
    const unsigned long long s = thread_sum(data, n_vec, passes);
    if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long total = 0;
        for (unsigned w = 0; w < blockDim.x / 32; ++w) total += part[w];
        block_sums[blockIdx.x] = total;
    }
}

__global__ void l1_chase(const std::uint32_t *__restrict__ next, std::uint32_t hops, unsigned long long *cycles) {
    std::uint32_t j = 0;
    for (std::uint32_t h = 0; h < hops; ++h) asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(j) : "l"(next + j));
    const long long t0 = clock64();
    for (std::uint32_t h = 0; h < hops; ++h) asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(j) : "l"(next + j));
    const long long t1 = clock64();
    cycles[0] = static_cast<unsigned long long>(t1 - t0);
    cycles[1] = j;
}

GM_KERNEL("carveout", "l1_reads", l1_reads);
GM_KERNEL("carveout", "l1_reads_with_shared", l1_reads_with_shared);
GM_KERNEL("carveout", "l1_chase", l1_chase);

const void *kernel_of(L1Kernel k) {
    switch (k) {
    case L1Kernel::ReadsWithShared: return reinterpret_cast<const void *>(l1_reads_with_shared);
    case L1Kernel::Chase: return reinterpret_cast<const void *>(l1_chase);
    default: return reinterpret_cast<const void *>(l1_reads);
    }
}

bool bad_reads(const std::uint32_t *data, std::uint32_t n_vec, std::uint32_t passes, unsigned blocks,
               const unsigned long long *block_sums) {
    return !data || !block_sums || n_vec == 0 || passes == 0 || blocks == 0 || reinterpret_cast<std::uintptr_t>(data) % 16;
}

}  // namespace

cudaError_t launch_l1_reads(const std::uint32_t *data, std::uint32_t n_vec, std::uint32_t passes, unsigned blocks,
                            unsigned long long *block_sums, cudaStream_t stream) {
    if (bad_reads(data, n_vec, passes, blocks, block_sums)) return cudaErrorInvalidValue;
    l1_reads<<<blocks, kL1ReadThreads, 0, stream>>>(reinterpret_cast<const uint4 *>(data), n_vec, passes, block_sums);
    return cudaGetLastError();
}

cudaError_t launch_l1_reads_with_shared(const std::uint32_t *data, std::uint32_t n_vec, std::uint32_t passes, unsigned blocks,
                                        unsigned long long *block_sums, cudaStream_t stream) {
    if (bad_reads(data, n_vec, passes, blocks, block_sums)) return cudaErrorInvalidValue;
    l1_reads_with_shared<<<blocks, kL1ReadThreads, 0, stream>>>(reinterpret_cast<const uint4 *>(data), n_vec, passes,
                                                                 block_sums);
    return cudaGetLastError();
}

cudaError_t launch_l1_chase(const std::uint32_t *next, std::uint32_t hops, unsigned long long *cycles, cudaStream_t stream) {
    if (!next || !cycles || hops == 0) return cudaErrorInvalidValue;
    l1_chase<<<1, 1, 0, stream>>>(next, hops, cycles);
    return cudaGetLastError();
}

cudaError_t set_l1_carveout(L1Kernel kernel, int percent) {
    return cudaFuncSetAttribute(kernel_of(kernel), cudaFuncAttributePreferredSharedMemoryCarveout, percent);
}

cudaError_t l1_attributes(L1Kernel kernel, cudaFuncAttributes *out) { return cudaFuncGetAttributes(out, kernel_of(kernel)); }

cudaError_t set_l1_reads_carveout(int percent) { return set_l1_carveout(L1Kernel::Reads, percent); }

cudaError_t l1_reads_attributes(cudaFuncAttributes *out) { return l1_attributes(L1Kernel::Reads, out); }

}  // namespace gmlab::kernels
