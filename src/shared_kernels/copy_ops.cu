#include "shared_kernels/copy_ops.cuh"

#include "shared_kernels/kernel_catalogue.cuh"

#include <algorithm>

#include "shared_kernels/word_types.cuh"

namespace gmlab::kernels {

namespace {

template <class T>
__global__ void strided_copy_kernel(T *__restrict__ dst, std::size_t dst_offset, std::size_t dst_stride,
                                    const T *__restrict__ src, std::size_t src_offset, std::size_t src_stride,
                                    std::size_t count) {
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        dst[dst_offset + i * dst_stride] = src[src_offset + i * src_stride];
}

GM_KERNEL("support", "strided_copy_kernel<1-byte words>", (strided_copy_kernel<std::uint8_t>));
GM_KERNEL("support", "strided_copy_kernel<2-byte words>", (strided_copy_kernel<std::uint16_t>));
GM_KERNEL("support", "strided_copy_kernel<4-byte words>", (strided_copy_kernel<std::uint32_t>));
GM_KERNEL("support", "strided_copy_kernel<8-byte words>", (strided_copy_kernel<uint2>));
GM_KERNEL("support", "strided_copy_kernel<16-byte words>", (strided_copy_kernel<uint4>));

}  // namespace

cudaError_t launch_strided_copy(void *dst, std::size_t dst_offset, std::size_t dst_stride, const void *src,
                                std::size_t src_offset, std::size_t src_stride, std::size_t count,
                                int word_size, int multiprocessors, cudaStream_t stream) {
    constexpr int block = 256;
    // A grid-stride loop over enough blocks to fill the device several times.
    const unsigned max_blocks = static_cast<unsigned>(std::max(1, multiprocessors) * 8);
    const unsigned blocks = std::max(1u, std::min(blocks_for(count, block), max_blocks));
    return with_word_type(word_size, [&](auto tag) {
        using T = decltype(tag);
        strided_copy_kernel<T><<<blocks, block, 0, stream>>>(static_cast<T *>(dst), dst_offset, dst_stride,
                                                            static_cast<const T *>(src), src_offset,
                                                            src_stride, count);
        return cudaGetLastError();
    });
}

}  // namespace gmlab::kernels
