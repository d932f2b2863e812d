// Matrix transposes: out (cols x rows) = transpose of in (rows x cols), both
// row-major, elements of 1, 2, 4, 8 or 16 bytes.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace gmlab::kernels {

enum class TransposeKernel {
    Naive,         // reads coalesced, writes strided by rows
    Shared,        // 32x32 tile through shared memory: both sides coalesced, 32-way bank conflicts
    SharedPadded,  // the same tile padded to 33 columns: conflict-free
    Wide           // 64x64 tile, 16-byte global accesses, XOR-swizzled tile (4-byte elements, dims % 4 == 0)
};

// Largest rows a launch takes (tiles of rows go in grid.y).
constexpr std::size_t kTransposeMaxRows = 65535u * 32u;

bool transpose_wide_fits(int element_size, std::size_t rows, std::size_t cols);

cudaError_t launch_transpose(TransposeKernel k, int element_size, const void *in, void *out, std::size_t rows,
                             std::size_t cols, cudaStream_t stream);

}  // namespace gmlab::kernels
