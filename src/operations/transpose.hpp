// gm_transpose: the public operation behind the transpose experiment, so that
// an application transposes its own buffers with the kernels the experiment
// measures. Argument checks are host only (unit-tested).
#pragma once

#include <cstddef>

#include "core/device/handles.hpp"
#include "experiments/transpose/transpose.cuh"

namespace gmlab {

// Checks shapes against buffer sizes; throws Error(GM_ERROR_INVALID_ARGUMENT)
// with the numbers.
void check_transpose(std::size_t in_bytes, std::size_t out_bytes, std::size_t rows, std::size_t cols,
                     std::size_t element_size, int variant);

// The kernel gm_transpose's variant runs (GM_TRANSPOSE_AUTO picks one).
kernels::TransposeKernel transpose_kernel_for(int variant, std::size_t element_size, std::size_t rows, std::size_t cols);

void transpose(ContextState &ctx, const gm_buffer &in, gm_buffer &out, std::size_t rows, std::size_t cols,
               std::size_t element_size, int variant);

}  // namespace gmlab
