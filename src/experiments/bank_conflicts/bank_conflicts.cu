#include "experiments/bank_conflicts/bank_conflicts.cuh"

#include "shared_kernels/kernel_catalogue.cuh"

namespace gmlab::kernels {

namespace {

template <class T, bool Write>
__global__ void bank_access_kernel(T *out, unsigned stride, unsigned iterations) {
    extern __shared__ unsigned char smem[];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    T *region = reinterpret_cast<T *>(smem) + warp * kBankRegionWords;
    for (unsigned i = lane; i < kBankRegionWords; i += 32) region[i] = static_cast<T>(bank_init_value(i));
    __syncwarp();
    // volatile: every iteration's access happens, none is hoisted or merged.
    volatile T *word = region + (lane * stride) % kBankRegionWords;
    T acc = 0;
    const std::size_t warp_global = blockIdx.x * static_cast<std::size_t>(kBankWarpsPerBlock) + warp;
    if constexpr (Write) {
#pragma unroll 8
        for (unsigned it = 0; it < iterations; ++it) *word = static_cast<T>(bank_write_value(lane, it));
        __syncwarp();
        for (unsigned i = lane; i < kBankRegionWords; i += 32) out[warp_global * kBankRegionWords + i] = region[i];
    } else {
#pragma unroll 8
        for (unsigned it = 0; it < iterations; ++it) acc += *word;
        out[warp_global * 32 + lane] = acc;
    }
}

GM_KERNEL("bank_conflicts", "bank_access_kernel<4-byte words, write>", (bank_access_kernel<std::uint32_t, true>));
GM_KERNEL("bank_conflicts", "bank_access_kernel<4-byte words, read>", (bank_access_kernel<std::uint32_t, false>));
GM_KERNEL("bank_conflicts", "bank_access_kernel<8-byte words, write>", (bank_access_kernel<std::uint64_t, true>));
GM_KERNEL("bank_conflicts", "bank_access_kernel<8-byte words, read>", (bank_access_kernel<std::uint64_t, false>));

}  // namespace

cudaError_t launch_bank_access(bool write, int word_size, unsigned stride, unsigned iterations, int blocks,
                               void *out, cudaStream_t stream) {
    const std::size_t smem = static_cast<std::size_t>(kBankWarpsPerBlock) * kBankRegionWords * word_size;
    const int threads = kBankWarpsPerBlock * 32;
    if (word_size == 4) {
        if (write)
            bank_access_kernel<std::uint32_t, true><<<blocks, threads, smem, stream>>>(static_cast<std::uint32_t *>(out), stride, iterations);
        else
            bank_access_kernel<std::uint32_t, false><<<blocks, threads, smem, stream>>>(static_cast<std::uint32_t *>(out), stride, iterations);
    } else if (word_size == 8) {
        if (write)
            bank_access_kernel<std::uint64_t, true><<<blocks, threads, smem, stream>>>(static_cast<std::uint64_t *>(out), stride, iterations);
        else
            bank_access_kernel<std::uint64_t, false><<<blocks, threads, smem, stream>>>(static_cast<std::uint64_t *>(out), stride, iterations);
    } else {
        return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

}  // namespace gmlab::kernels
