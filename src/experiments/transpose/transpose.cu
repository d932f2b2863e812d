#include "experiments/transpose/transpose.cuh"

#include "shared_kernels/kernel_catalogue.cuh"

#include "shared_kernels/word_types.cuh"

namespace gmlab::kernels {

namespace {

constexpr int kTile = 32;
constexpr int kBlockRows = 8;  // each thread moves kTile / kBlockRows elements

// The tiles are laid out with blockIdx.x over columns and blockIdx.y over rows.
template <class T>
__global__ void transpose_naive(const T *__restrict__ in, T *__restrict__ out, std::size_t rows, std::size_t cols) {
    const std::size_t x = blockIdx.x * static_cast<std::size_t>(kTile) + threadIdx.x;
    const std::size_t y = blockIdx.y * static_cast<std::size_t>(kTile) + threadIdx.y;
    if (x >= cols) return;
#pragma unroll
    for (int j = 0; j < kTile; j += kBlockRows)
        if (y + j < rows) out[x * rows + y + j] = in[(y + j) * cols + x];
}

// Pad = 0: the guide's tile, whose column reads all fall in one bank.
// Pad = 1: one extra column shifts each row by one bank.
template <class T, int Pad>
__global__ void transpose_tiled(const T *__restrict__ in, T *__restrict__ out, std::size_t rows, std::size_t cols) {
    __shared__ T tile[kTile][kTile + Pad];
    std::size_t x = blockIdx.x * static_cast<std::size_t>(kTile) + threadIdx.x;
    std::size_t y = blockIdx.y * static_cast<std::size_t>(kTile) + threadIdx.y;
#pragma unroll
    for (int j = 0; j < kTile; j += kBlockRows)
        if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * static_cast<std::size_t>(kTile) + threadIdx.x;  // output column = input row
    y = blockIdx.x * static_cast<std::size_t>(kTile) + threadIdx.y;  // output row = input column
#pragma unroll
    for (int j = 0; j < kTile; j += kBlockRows)
        if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

// 64x64 tile of 4-byte words, 16x16 threads, 16-byte loads and stores on both
// sides. Element (r, c) of the tile lives at column c ^ swz(r), swz(r) =
// 2 * ((r / 4) % 16): a float4 stays inside its aligned group of four (only
// its halves may swap), and the column reads of the second phase, rows 4tx..4tx+3
// across the warp, land in 32 different banks.
constexpr int kWide = 64;

__device__ __forceinline__ int swizzle(int r) { return ((r >> 2) & 15) << 1; }

__global__ void transpose_wide(const uint4 *__restrict__ in, uint4 *__restrict__ out, std::size_t rows,
                               std::size_t cols) {
    __shared__ unsigned tile[kWide][kWide];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const std::size_t r0 = blockIdx.y * static_cast<std::size_t>(kWide);
    const std::size_t c0 = blockIdx.x * static_cast<std::size_t>(kWide);
    const std::size_t cols4 = cols / 4, rows4 = rows / 4;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const int r = ty + 16 * k;
        if (r0 + r < rows && c0 + 4 * tx < cols) {
            uint4 v = in[(r0 + r) * cols4 + c0 / 4 + tx];
            const int s = swizzle(r);
            if (s & 2) v = make_uint4(v.z, v.w, v.x, v.y);
            *reinterpret_cast<uint4 *>(&tile[r][4 * (tx ^ (s >> 2))]) = v;
        }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const int j = ty + 16 * k;  // tile column = output row within the tile
        if (c0 + j < cols && r0 + 4 * tx < rows) {
            const int s = swizzle(4 * tx);  // the same for rows 4tx..4tx+3
            uint4 v;
            v.x = tile[4 * tx + 0][j ^ s];
            v.y = tile[4 * tx + 1][j ^ s];
            v.z = tile[4 * tx + 2][j ^ s];
            v.w = tile[4 * tx + 3][j ^ s];
            out[(c0 + j) * rows4 + r0 / 4 + tx] = v;
        }
    }
}

#define GM_TRANSPOSE_KERNELS(bytes, T)                                                                         \
    GM_KERNEL("transpose", "transpose_naive<" #bytes "-byte elements>", (transpose_naive<T>));                  \
    GM_KERNEL("transpose", "transpose_tiled<" #bytes "-byte elements> (shared)", (transpose_tiled<T, 0>));      \
    GM_KERNEL("transpose", "transpose_tiled<" #bytes "-byte elements> (shared_padded)", (transpose_tiled<T, 1>));
GM_TRANSPOSE_KERNELS(1, std::uint8_t)
GM_TRANSPOSE_KERNELS(2, std::uint16_t)
GM_TRANSPOSE_KERNELS(4, std::uint32_t)
GM_TRANSPOSE_KERNELS(8, uint2)
GM_TRANSPOSE_KERNELS(16, uint4)
#undef GM_TRANSPOSE_KERNELS
GM_KERNEL("transpose", "transpose_wide (4-byte elements, 4 x 4 per thread)", transpose_wide);

}  // namespace

bool transpose_wide_fits(int element_size, std::size_t rows, std::size_t cols) {
    return element_size == 4 && rows % 4 == 0 && cols % 4 == 0;
}

cudaError_t launch_transpose(TransposeKernel k, int element_size, const void *in, void *out, std::size_t rows,
                             std::size_t cols, cudaStream_t stream) {
    if (rows == 0 || cols == 0 || rows > kTransposeMaxRows) return cudaErrorInvalidValue;
    if (k == TransposeKernel::Wide) {
        if (!transpose_wide_fits(element_size, rows, cols)) return cudaErrorInvalidValue;
        const dim3 grid(static_cast<unsigned>((cols + kWide - 1) / kWide), static_cast<unsigned>((rows + kWide - 1) / kWide));
        transpose_wide<<<grid, dim3(16, 16), 0, stream>>>(static_cast<const uint4 *>(in), static_cast<uint4 *>(out), rows, cols);
        return cudaGetLastError();
    }
    const dim3 grid(static_cast<unsigned>((cols + kTile - 1) / kTile), static_cast<unsigned>((rows + kTile - 1) / kTile));
    const dim3 block(kTile, kBlockRows);
    return with_word_type(element_size, [&](auto tag) {
        using T = decltype(tag);
        const T *i = static_cast<const T *>(in);
        T *o = static_cast<T *>(out);
        switch (k) {
        case TransposeKernel::Naive: transpose_naive<T><<<grid, block, 0, stream>>>(i, o, rows, cols); break;
        case TransposeKernel::Shared: transpose_tiled<T, 0><<<grid, block, 0, stream>>>(i, o, rows, cols); break;
        default: transpose_tiled<T, 1><<<grid, block, 0, stream>>>(i, o, rows, cols); break;
        }
        return cudaGetLastError();
    });
}

}  // namespace gmlab::kernels
