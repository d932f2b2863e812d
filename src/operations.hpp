// The public operations on buffers that have experiments behind them
// (gm_transpose, gm_matmul): argument checks (host only, unit-tested) and the
// calls themselves.
#pragma once

#include <cstddef>

#include "handles.hpp"
#include "transpose.cuh"

namespace gmlab {

// Checks shapes against buffer sizes; throws Error(GM_ERROR_INVALID_ARGUMENT)
// with the numbers.
void check_transpose(std::size_t in_bytes, std::size_t out_bytes, std::size_t rows, std::size_t cols,
                     std::size_t element_size, int variant);
void check_matmul(std::size_t a_bytes, std::size_t b_bytes, std::size_t c_bytes, std::size_t m, std::size_t n,
                  std::size_t k, int variant);

// The kernel gm_transpose's variant runs (GM_TRANSPOSE_AUTO picks one).
kernels::TransposeKernel transpose_kernel_for(int variant, std::size_t element_size, std::size_t rows, std::size_t cols);

// The nine-point stencil (src/constant_memory.cpp): coefficients from
// constant memory (constant) or read through __ldg from global memory.
void check_stencil_args(std::size_t in_bytes, std::size_t out_bytes, std::size_t n, const float *coefficients);
void stencil(ContextState &ctx, const gm_buffer &in, gm_buffer &out, std::size_t n, const float *coefficients, bool constant);

void transpose(ContextState &ctx, const gm_buffer &in, gm_buffer &out, std::size_t rows, std::size_t cols,
               std::size_t element_size, int variant);
void matmul(ContextState &ctx, const gm_buffer &a, const gm_buffer &b, gm_buffer &c, std::size_t m, std::size_t n,
            std::size_t k, int variant);

}  // namespace gmlab
