// Calls f(T{}) with the unsigned word type T of a byte size, so that kernels
// copy raw bits (no float canonicalisation) of 1..16 bytes. In f, the type is
// `using T = decltype(tag);` for a parameter `auto tag`.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace gmlab::kernels {

template <class F> cudaError_t with_word_type(int word_size, F &&f) {
    switch (word_size) {
    case 1: return f(std::uint8_t{});
    case 2: return f(std::uint16_t{});
    case 4: return f(std::uint32_t{});
    case 8: return f(uint2{});
    case 16: return f(uint4{});
    default: return cudaErrorInvalidValue;
    }
}

inline unsigned blocks_for(std::size_t threads, int block) {
    return static_cast<unsigned>((threads + static_cast<std::size_t>(block) - 1) / static_cast<std::size_t>(block));
}

}  // namespace gmlab::kernels
