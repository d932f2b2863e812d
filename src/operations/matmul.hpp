// gm_matmul: the public operation behind the matmul_ab experiment (C = AB in
// floats, with the guide's three kernels). Argument checks are host only
// (unit-tested).
#pragma once

#include <cstddef>

#include "core/device/handles.hpp"

namespace gmlab {

// Checks shapes against buffer sizes; throws Error(GM_ERROR_INVALID_ARGUMENT)
// with the numbers.
void check_matmul(std::size_t a_bytes, std::size_t b_bytes, std::size_t c_bytes, std::size_t m, std::size_t n,
                  std::size_t k, int variant);

void matmul(ContextState &ctx, const gm_buffer &a, const gm_buffer &b, gm_buffer &c, std::size_t m, std::size_t n,
            std::size_t k, int variant);

}  // namespace gmlab
