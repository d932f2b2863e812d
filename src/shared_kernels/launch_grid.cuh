// The grid of a grid-stride kernel: enough blocks of `block` threads for
// every item, at most `per_sm` blocks per multiprocessor (the loop covers the
// rest), and at least one.
#pragma once

#include <cstddef>

namespace gmlab::kernels {

inline unsigned capped_grid(std::size_t items, unsigned block, int multiprocessors, unsigned per_sm = 8) {
    const std::size_t wanted = (items + block - 1) / block;
    const std::size_t most = static_cast<std::size_t>(per_sm) * static_cast<std::size_t>(multiprocessors > 0 ? multiprocessors : 16);
    return static_cast<unsigned>(wanted == 0 ? 1 : (wanted < most ? wanted : most));
}

}  // namespace gmlab::kernels
