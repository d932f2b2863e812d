// Kernels of the allocation experiment: they only check that memory just
// allocated (device, pinned or registered host memory) is usable, and that a
// memset set every byte. Byte-exact for any size: whole 32-bit words, then
// the bytes of a partial last word.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace gmlab::kernels {

// Byte i of p (i < bytes) = byte (i mod 4) of pattern_word(i / 4, seed), as
// fill_pattern_host writes it on a little-endian host.
cudaError_t launch_write_byte_pattern(void *p, std::size_t bytes, std::uint32_t seed, int multiprocessors,
                                      cudaStream_t stream);

// *bad += the bytes of p (i < bytes) that differ from the pattern above, or
// from `value` when value is 0..255 (a memset); `p` may be host memory mapped
// into the device's address space.
cudaError_t launch_count_bad_bytes(const void *p, std::size_t bytes, std::uint32_t seed, int value,
                                   unsigned long long *bad, int multiprocessors, cudaStream_t stream);

}  // namespace gmlab::kernels
