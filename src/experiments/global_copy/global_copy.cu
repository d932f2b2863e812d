#include "experiments/global_copy/global_copy.cuh"

#include "shared_kernels/kernel_catalogue.cuh"
#include "shared_kernels/word_types.cuh"

namespace gmlab::kernels {

namespace {

// The guide's offsetCopy: pointers without __restrict__, as printed there.
template <class T> __global__ void offset_copy_guide(T *odata, const T *idata, std::size_t n, int offset) {
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i < n) {
        const std::size_t xid = i + offset;
        odata[xid] = idata[xid];
    }
}

// Four words per thread, block-strided so that each of the four warp accesses
// has exactly the guide's pattern; all loads issue before the first store.
template <class T> __global__ void offset_copy_ilp4(T *odata, const T *idata, std::size_t n, int offset) {
    const std::size_t base = blockIdx.x * static_cast<std::size_t>(blockDim.x) * 4 + threadIdx.x;
    T v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const std::size_t i = base + static_cast<std::size_t>(k) * blockDim.x;
        if (i < n) v[k] = idata[i + offset];
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const std::size_t i = base + static_cast<std::size_t>(k) * blockDim.x;
        if (i < n) odata[i + offset] = v[k];
    }
}

// The guide's strideCopy.
template <class T> __global__ void stride_copy_guide(T *odata, const T *idata, std::size_t n, std::size_t stride) {
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i < n) {
        const std::size_t xid = i * stride;
        odata[xid] = idata[xid];
    }
}

template <class T> __global__ void stride_copy_ilp4(T *odata, const T *idata, std::size_t n, std::size_t stride) {
    const std::size_t base = blockIdx.x * static_cast<std::size_t>(blockDim.x) * 4 + threadIdx.x;
    T v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const std::size_t i = base + static_cast<std::size_t>(k) * blockDim.x;
        if (i < n) v[k] = idata[i * stride];
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const std::size_t i = base + static_cast<std::size_t>(k) * blockDim.x;
        if (i < n) odata[i * stride] = v[k];
    }
}

GM_KERNEL("offset_copy", "offset_copy_guide<4-byte words>", (offset_copy_guide<std::uint32_t>));
GM_KERNEL("offset_copy", "offset_copy_guide<8-byte words>", (offset_copy_guide<uint2>));
GM_KERNEL("offset_copy", "offset_copy_guide<16-byte words>", (offset_copy_guide<uint4>));
GM_KERNEL("offset_copy", "offset_copy_ilp4<4-byte words>", (offset_copy_ilp4<std::uint32_t>));
GM_KERNEL("offset_copy", "offset_copy_ilp4<8-byte words>", (offset_copy_ilp4<uint2>));
GM_KERNEL("offset_copy", "offset_copy_ilp4<16-byte words>", (offset_copy_ilp4<uint4>));
GM_KERNEL("stride_copy", "stride_copy_guide<4-byte words>", (stride_copy_guide<std::uint32_t>));
GM_KERNEL("stride_copy", "stride_copy_guide<8-byte words>", (stride_copy_guide<uint2>));
GM_KERNEL("stride_copy", "stride_copy_guide<16-byte words>", (stride_copy_guide<uint4>));
GM_KERNEL("stride_copy", "stride_copy_ilp4<4-byte words>", (stride_copy_ilp4<std::uint32_t>));
GM_KERNEL("stride_copy", "stride_copy_ilp4<8-byte words>", (stride_copy_ilp4<uint2>));
GM_KERNEL("stride_copy", "stride_copy_ilp4<16-byte words>", (stride_copy_ilp4<uint4>));

}  // namespace

namespace {

// Launches the guide's kernel (one word per thread) or its ilp4 form (four
// independent words per thread, a quarter of the threads) for word type T;
// `arg` is the offset or the stride.
template <class T, class Arg>
cudaError_t launch_copy(CopyVariant v, void (*guide)(T *, const T *, std::size_t, Arg),
                        void (*ilp4)(T *, const T *, std::size_t, Arg), void *out, const void *in, std::size_t n, Arg arg,
                        int block, cudaStream_t stream) {
    if (v == CopyVariant::Guide)
        guide<<<blocks_for(n, block), block, 0, stream>>>(static_cast<T *>(out), static_cast<const T *>(in), n, arg);
    else
        ilp4<<<blocks_for((n + 3) / 4, block), block, 0, stream>>>(static_cast<T *>(out), static_cast<const T *>(in), n, arg);
    return cudaGetLastError();
}

}  // namespace

cudaError_t launch_offset_copy(CopyVariant v, int word_size, void *out, const void *in, std::size_t n,
                               int offset, int block, cudaStream_t stream) {
    if (word_size != 4 && word_size != 8 && word_size != 16) return cudaErrorInvalidValue;
    return with_word_type(word_size, [&](auto tag) {
        using T = decltype(tag);
        return launch_copy<T, int>(v, offset_copy_guide<T>, offset_copy_ilp4<T>, out, in, n, offset, block, stream);
    });
}

cudaError_t launch_stride_copy(CopyVariant v, int word_size, void *out, const void *in, std::size_t n,
                               std::size_t stride, int block, cudaStream_t stream) {
    if (word_size != 4 && word_size != 8 && word_size != 16) return cudaErrorInvalidValue;
    return with_word_type(word_size, [&](auto tag) {
        using T = decltype(tag);
        return launch_copy<T, std::size_t>(v, stride_copy_guide<T>, stride_copy_ilp4<T>, out, in, n, stride, block, stream);
    });
}

}  // namespace gmlab::kernels
