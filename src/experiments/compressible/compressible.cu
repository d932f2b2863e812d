#include "experiments/compressible/compressible.cuh"

#include "shared_kernels/kernel_catalogue.cuh"
#include "shared_kernels/launch_grid.cuh"

namespace gmlab::kernels {

namespace {

__global__ void write_data(uint4 *__restrict__ p, std::size_t n16, DataKind kind, std::uint32_t seed) {
#pragma unroll 4
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n16;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        const std::uint64_t w = 4 * static_cast<std::uint64_t>(i);
        p[i] = make_uint4(data_word(kind, w, seed), data_word(kind, w + 1, seed), data_word(kind, w + 2, seed),
                          data_word(kind, w + 3, seed));
    }
}

__global__ void count_bad_words(const uint4 *__restrict__ p, std::size_t n16, DataKind kind, std::uint32_t seed,
                                unsigned long long *bad) {
    unsigned long long n = 0;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n16;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        const uint4 v = p[i];
        const std::uint64_t w = 4 * static_cast<std::uint64_t>(i);
        n += (v.x != data_word(kind, w, seed)) + (v.y != data_word(kind, w + 1, seed)) +
             (v.z != data_word(kind, w + 2, seed)) + (v.w != data_word(kind, w + 3, seed));
    }
    if (n) atomicAdd(bad, n);
}

GM_KERNEL("compressible", "write_data (zeros, repeated or random)", write_data);
GM_KERNEL("compressible", "count_bad_words (check of the written data)", count_bad_words);

}  // namespace

cudaError_t launch_write_data(void *p, std::size_t n16, DataKind kind, std::uint32_t seed, int multiprocessors,
                              cudaStream_t stream) {
    if (n16 == 0) return cudaSuccess;
    write_data<<<capped_grid(n16, 256, multiprocessors), 256, 0, stream>>>(static_cast<uint4 *>(p), n16, kind, seed);
    return cudaGetLastError();
}

cudaError_t launch_count_bad_words(const void *p, std::size_t n16, DataKind kind, std::uint32_t seed,
                                   unsigned long long *bad, int multiprocessors, cudaStream_t stream) {
    if (n16 == 0) return cudaSuccess;
    count_bad_words<<<capped_grid(n16, 256, multiprocessors), 256, 0, stream>>>(static_cast<const uint4 *>(p), n16, kind, seed, bad);
    return cudaGetLastError();
}

}  // namespace gmlab::kernels
