// gm_stencil_constant: the nine-point stencil of the stencil experiment as a
// public operation (the experiment in experiments/constant_memory/ measures
// its kernels): coefficients from constant memory (constant) or read through
// __ldg from global memory.
#pragma once

#include <cstddef>

#include "core/device/handles.hpp"

namespace gmlab {

// Throws Error(GM_ERROR_INVALID_ARGUMENT) naming the argument (host only).
void check_stencil_args(std::size_t in_bytes, std::size_t out_bytes, std::size_t n, const float *coefficients);
// Runs the stencil on the context's stream and waits for it.
void stencil(ContextState &ctx, const gm_buffer &in, gm_buffer &out, std::size_t n, const float *coefficients, bool constant);

}  // namespace gmlab
