#include "experiments/pitch_2d/pitch_2d.cuh"

#include <algorithm>

#include "shared_kernels/kernel_catalogue.cuh"
#include "shared_kernels/pattern.hpp"

namespace gmlab::kernels {

namespace {

constexpr int kWarpsPerBlock = kPitchBlock / 32;

// One warp per row: lane l copies words l, l + 32, ... of it, four at a time
// (all four loads before the stores). A row that starts off a 128-byte boundary
// makes every warp access of it straddle one more 32-byte sector.
__global__ void __launch_bounds__(kPitchBlock) row_copy(const std::uint32_t *__restrict__ in, std::size_t in_pitch,
                                                        std::uint32_t *__restrict__ out, std::size_t out_pitch,
                                                        std::size_t width, std::size_t height) {
    const unsigned lane = threadIdx.x & 31;
    const std::size_t warp = blockIdx.x * static_cast<std::size_t>(kWarpsPerBlock) + threadIdx.x / 32;
    const std::size_t warps = static_cast<std::size_t>(gridDim.x) * kWarpsPerBlock;
    for (std::size_t r = warp; r < height; r += warps) {
        const std::uint32_t *src = in + r * in_pitch;
        std::uint32_t *dst = out + r * out_pitch;
        for (std::size_t c = lane; c < width; c += 128) {
            std::uint32_t v[4];
#pragma unroll
            for (int k = 0; k < 4; ++k)
                if (c + 32 * k < width) v[k] = src[c + 32 * k];
#pragma unroll
            for (int k = 0; k < 4; ++k)
                if (c + 32 * k < width) dst[c + 32 * k] = v[k];
        }
    }
}

__global__ void fill_rows(std::uint32_t *p, std::size_t pitch, std::size_t width, std::size_t height, std::uint32_t seed) {
    const std::size_t total = width * height;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < total;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        p[(i / width) * pitch + i % width] = pattern_word(i, seed);
}

GM_KERNEL("pitch_2d", "row_copy (one warp per row)", row_copy);
GM_KERNEL("pitch_2d", "fill_rows (input pattern)", fill_rows);

unsigned row_blocks(std::size_t height, int multiprocessors) {
    // Enough warps to fill every multiprocessor several times over; more rows walk in steps.
    const std::size_t most = static_cast<std::size_t>(std::max(1, multiprocessors)) * 16;
    return static_cast<unsigned>(std::max<std::size_t>(1, std::min(most, (height + kWarpsPerBlock - 1) / kWarpsPerBlock)));
}

}  // namespace

cudaError_t launch_row_copy(const std::uint32_t *in, std::size_t in_pitch, std::uint32_t *out, std::size_t out_pitch,
                            std::size_t width, std::size_t height, int multiprocessors, cudaStream_t stream) {
    if (width == 0 || height == 0 || in_pitch < width || out_pitch < width) return cudaErrorInvalidValue;
    row_copy<<<row_blocks(height, multiprocessors), kPitchBlock, 0, stream>>>(in, in_pitch, out, out_pitch, width, height);
    return cudaGetLastError();
}

cudaError_t launch_fill_rows(std::uint32_t *p, std::size_t pitch, std::size_t width, std::size_t height,
                             std::uint32_t seed, int multiprocessors, cudaStream_t stream) {
    if (width == 0 || height == 0 || pitch < width) return cudaErrorInvalidValue;
    fill_rows<<<static_cast<unsigned>(std::max(1, multiprocessors) * 8), 256, 0, stream>>>(p, pitch, width, height, seed);
    return cudaGetLastError();
}

}  // namespace gmlab::kernels
