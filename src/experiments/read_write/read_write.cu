#include "experiments/read_write/read_write.cuh"

#include "shared_kernels/kernel_catalogue.cuh"

namespace gmlab::kernels {

namespace {

// Stores only: no load, so that DRAM sees the written bytes and nothing else.
__global__ void store_words(uint4 *p, std::size_t n16, std::uint32_t seed) {
    const std::size_t v = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (v >= n16) return;
    const std::uint64_t w = 4 * static_cast<std::uint64_t>(v);
    p[v] = make_uint4(stored_word(w, seed), stored_word(w + 1, seed), stored_word(w + 2, seed),
                      stored_word(w + 3, seed));
}

GM_KERNEL("read_write", "store_words (16-byte stores only)", store_words);

// Loads only: each thread requests its kLoadVectors 16-byte vectors before it
// adds any, a warp's loads contiguous, one block per kLoadVectors x blockDim
// vectors (no loop); the words are summed so that every byte must arrive, and
// each block writes one partial sum.
__global__ void load_words(const uint4 *__restrict__ p, std::size_t n16, unsigned long long *partial) {
    const std::size_t base = blockIdx.x * static_cast<std::size_t>(blockDim.x) * kLoadVectors + threadIdx.x;
    uint4 v[kLoadVectors];
#pragma unroll
    for (int k = 0; k < kLoadVectors; ++k) {
        const std::size_t i = base + static_cast<std::size_t>(k) * blockDim.x;
        v[k] = i < n16 ? p[i] : make_uint4(0, 0, 0, 0);
    }
    unsigned long long s = 0;
#pragma unroll
    for (int k = 0; k < kLoadVectors; ++k) s += static_cast<unsigned long long>(v[k].x) + v[k].y + v[k].z + v[k].w;
    for (int offset = 16; offset > 0; offset >>= 1) s += __shfl_down_sync(0xffffffffu, s, offset);
    __shared__ unsigned long long warp_sums[32];
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long total = 0;
        for (unsigned w = 0; w < (blockDim.x + 31) / 32; ++w) total += warp_sums[w];
        partial[blockIdx.x] = total;
    }
}

GM_KERNEL("read_write", "load_words (16-byte loads only, one partial sum per block)", load_words);

}  // namespace

cudaError_t launch_load_words(const void *p, std::size_t n16, unsigned long long *partial, int block, cudaStream_t stream) {
    if (!p || !partial || n16 == 0 || block <= 0 || block > 1024 || block % 32 != 0) return cudaErrorInvalidValue;
    const std::size_t blocks = load_blocks(n16, block);
    if (blocks > 0x7fffffffu) return cudaErrorInvalidValue;
    load_words<<<static_cast<unsigned>(blocks), block, 0, stream>>>(static_cast<const uint4 *>(p), n16, partial);
    return cudaGetLastError();
}

cudaError_t launch_store_words(void *p, std::size_t n16, std::uint32_t seed, int block, cudaStream_t stream) {
    if (!p || n16 == 0 || block <= 0) return cudaErrorInvalidValue;
    const std::size_t blocks = (n16 + block - 1) / block;
    if (blocks > 0x7fffffffu) return cudaErrorInvalidValue;
    store_words<<<static_cast<unsigned>(blocks), block, 0, stream>>>(static_cast<uint4 *>(p), n16, seed);
    return cudaGetLastError();
}

}  // namespace gmlab::kernels
