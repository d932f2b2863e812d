// The public copy operation gm_copy_strided (and the gather that experiments
// use to bring strided output back densely for checking).
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace gmlab::kernels {

// dst[dst_offset + i * dst_stride] = src[src_offset + i * src_stride], i < count,
// words of word_size (1, 2, 4, 8 or 16) bytes.
cudaError_t launch_strided_copy(void *dst, std::size_t dst_offset, std::size_t dst_stride, const void *src,
                                std::size_t src_offset, std::size_t src_stride, std::size_t count,
                                int word_size, int multiprocessors, cudaStream_t stream);

}  // namespace gmlab::kernels
