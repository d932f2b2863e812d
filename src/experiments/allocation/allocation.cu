#include "experiments/allocation/allocation.cuh"

#include "shared_kernels/kernel_catalogue.cuh"
#include "shared_kernels/launch_grid.cuh"
#include "shared_kernels/pattern.hpp"

namespace gmlab::kernels {

namespace {

// The byte a check expects at i: the pattern, or a memset's value.
__device__ std::uint8_t expected_byte(std::size_t i, std::uint32_t seed, int value) {
    if (value >= 0) return static_cast<std::uint8_t>(value);
    return static_cast<std::uint8_t>(pattern_word(i / 4, seed) >> (8 * (i % 4)));
}

// Thread t writes word t (grid-stride) and one more thread the partial tail.
__global__ void write_byte_pattern(std::uint8_t *p, std::size_t bytes, std::uint32_t seed) {
    const std::size_t words = bytes / 4, stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    const std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    auto *w = reinterpret_cast<std::uint32_t *>(p);  // every allocation checked is at least 16-byte aligned
    for (std::size_t i = t; i < words; i += stride) w[i] = pattern_word(i, seed);
    if (t == 0)
        for (std::size_t i = words * 4; i < bytes; ++i) p[i] = expected_byte(i, seed, -1);
}

__global__ void count_bad_bytes(const std::uint8_t *p, std::size_t bytes, std::uint32_t seed, int value,
                                unsigned long long *bad) {
    const std::size_t words = bytes / 4, stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    const std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    const auto *w = reinterpret_cast<const std::uint32_t *>(p);
    const std::uint32_t fill = value >= 0 ? 0x01010101u * static_cast<std::uint32_t>(value) : 0;
    unsigned long long n = 0;
    for (std::size_t i = t; i < words; i += stride) {
        const std::uint32_t want = value >= 0 ? fill : pattern_word(i, seed), diff = w[i] ^ want;
        n += (diff & 0xffu) != 0;
        n += (diff & 0xff00u) != 0;
        n += (diff & 0xff0000u) != 0;
        n += (diff & 0xff000000u) != 0;
    }
    if (t == 0)
        for (std::size_t i = words * 4; i < bytes; ++i) n += p[i] != expected_byte(i, seed, value);
    if (n) atomicAdd(bad, n);
}

GM_KERNEL("allocation", "write_byte_pattern (is the allocation usable)", write_byte_pattern);
GM_KERNEL("allocation", "count_bad_bytes (pattern or memset value)", count_bad_bytes);

}  // namespace

cudaError_t launch_write_byte_pattern(void *p, std::size_t bytes, std::uint32_t seed, int multiprocessors,
                                      cudaStream_t stream) {
    if (bytes == 0) return cudaSuccess;
    write_byte_pattern<<<capped_grid(bytes / 4, 256, multiprocessors), 256, 0, stream>>>(static_cast<std::uint8_t *>(p), bytes, seed);
    return cudaGetLastError();
}

cudaError_t launch_count_bad_bytes(const void *p, std::size_t bytes, std::uint32_t seed, int value,
                                   unsigned long long *bad, int multiprocessors, cudaStream_t stream) {
    if (bytes == 0) return cudaSuccess;
    if (value > 255) return cudaErrorInvalidValue;
    count_bad_bytes<<<capped_grid(bytes / 4, 256, multiprocessors), 256, 0, stream>>>(static_cast<const std::uint8_t *>(p), bytes,
                                                                            seed, value, bad);
    return cudaGetLastError();
}

}  // namespace gmlab::kernels
