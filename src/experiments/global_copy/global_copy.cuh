// Kernels of the global-memory access experiments (offset_copy, stride_copy).
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace gmlab::kernels {

enum class CopyVariant {
    Guide,  // the guide's kernel: one word per thread
    Ilp4    // four independent words per thread, each warp access as in Guide
};

// out[offset + i] = in[offset + i] for i < n; words of word_size (4, 8, 16) bytes.
cudaError_t launch_offset_copy(CopyVariant v, int word_size, void *out, const void *in, std::size_t n,
                               int offset, int block, cudaStream_t stream);

// out[i * stride] = in[i * stride] for i < n; words of word_size (4, 8, 16) bytes.
cudaError_t launch_stride_copy(CopyVariant v, int word_size, void *out, const void *in, std::size_t n,
                               std::size_t stride, int block, cudaStream_t stream);

}  // namespace gmlab::kernels
