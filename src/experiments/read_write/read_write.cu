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

}  // namespace

cudaError_t launch_store_words(void *p, std::size_t n16, std::uint32_t seed, int block, cudaStream_t stream) {
    if (!p || n16 == 0 || block <= 0) return cudaErrorInvalidValue;
    const std::size_t blocks = (n16 + block - 1) / block;
    if (blocks > 0x7fffffffu) return cudaErrorInvalidValue;
    store_words<<<static_cast<unsigned>(blocks), block, 0, stream>>>(static_cast<uint4 *>(p), n16, seed);
    return cudaGetLastError();
}

}  // namespace gmlab::kernels
