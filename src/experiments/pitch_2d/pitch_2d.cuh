// Row-wise copy of a 2D array of 4-byte words, one warp per row, for rows
// packed back to back (row r starts at r * width words) or padded to a pitch.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace gmlab::kernels {

constexpr int kPitchBlock = 256;  // 8 warps, 8 rows at a time per block

// out[r * out_pitch + c] = in[r * in_pitch + c] for r < height, c < width;
// pitches in words (width for packed rows). Blocks walk the rows in steps.
cudaError_t launch_row_copy(const std::uint32_t *in, std::size_t in_pitch, std::uint32_t *out, std::size_t out_pitch,
                            std::size_t width, std::size_t height, int multiprocessors, cudaStream_t stream);

// p[r * pitch + c] = pattern_word(r * width + c, seed) for r < height, c < width.
cudaError_t launch_fill_rows(std::uint32_t *p, std::size_t pitch, std::size_t width, std::size_t height,
                             std::uint32_t seed, int multiprocessors, cudaStream_t stream);

}  // namespace gmlab::kernels
