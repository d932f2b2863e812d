// The size checks of the pitch_2d experiment, apart so that they can be tested
// without a device.
#pragma once

#include <cstddef>

namespace gmlab {

// Bytes of one packed width x height array of elem-byte elements. Throws
// Error(GM_ERROR_INVALID_ARGUMENT) for a zero width or height, a product that
// overflows size_t, or a row (width x elem bytes) wider than max_pitch, the
// device's largest pitch (cudaDevAttrMaxPitch), naming the limit.
std::size_t pitch_2d_bytes(std::size_t width, std::size_t height, std::size_t elem, std::size_t max_pitch);

}  // namespace gmlab
