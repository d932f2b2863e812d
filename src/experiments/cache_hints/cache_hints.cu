#include "experiments/cache_hints/cache_hints.cuh"

#include "shared_kernels/kernel_catalogue.cuh"

namespace gmlab::kernels {

namespace {

// The cache-hint instructions exist from compute capability 8.0; the host
// runs the kernels that use them only there, and older code loads plainly.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define GM_L2_HINTS 1
#else
#define GM_L2_HINTS 0
#endif

template <LoadHint H> __device__ __forceinline__ unsigned long long make_policy() {
    unsigned long long p = 0;
#if GM_L2_HINTS
    if constexpr (H == LoadHint::EvictFirst)
        asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
    else if constexpr (H == LoadHint::EvictLast)
        asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
#endif
    return p;
}

// One 16-byte load, issued exactly as named (volatile: none is merged or dropped).
template <LoadHint H> __device__ __forceinline__ uint4 load_vec(const uint4 *p, unsigned long long policy) {
    uint4 v;
    if constexpr (H == LoadHint::Streaming) {
        asm volatile("ld.global.cs.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    } else if constexpr (H == LoadHint::L1NoAllocate) {
        asm volatile("ld.global.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                     : "l"(p));
    } else if constexpr (H == LoadHint::EvictFirst || H == LoadHint::EvictLast) {
#if GM_L2_HINTS
        asm volatile("ld.global.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                     : "l"(p), "l"(policy));
#else
        (void)policy;
        asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
#endif
    } else {
        asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    }
    return v;
}

__device__ __forceinline__ unsigned long long word_sum(uint4 v) {
    return static_cast<unsigned long long>(v.x) + v.y + v.z + v.w;
}

// The block's sums of a and b (blockDim.x a multiple of 32, at most 1024):
// valid in thread 0.
__device__ __forceinline__ void block_sums(unsigned long long &a, unsigned long long &b) {
    __shared__ unsigned long long part[32][2];
    for (int o = 16; o > 0; o /= 2) {
        a += __shfl_down_sync(0xffffffffu, a, o);
        b += __shfl_down_sync(0xffffffffu, b, o);
    }
    const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) {
        part[warp][0] = a;
        part[warp][1] = b;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        a = b = 0;
        for (unsigned w = 0; w < blockDim.x / 32; ++w) {
            a += part[w][0];
            b += part[w][1];
        }
    }
}

template <LoadHint S, LoadHint R>
__global__ void __launch_bounds__(kReuseStreamThreads)
    reuse_stream(const uint4 *__restrict__ stream, std::uint32_t n_stream, const uint4 *__restrict__ reused,
                 std::uint32_t n_reused, unsigned long long *partials) {
    const unsigned long long stream_policy = make_policy<S>(), reused_policy = make_policy<R>();
    const std::uint32_t stride = gridDim.x * blockDim.x;
    const std::uint32_t step = stride % n_reused;  // the reused index moves by the stride, modulo n_reused
    std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    std::uint32_t j = i % n_reused;
    unsigned long long s = 0, r = 0;
#pragma unroll 4
    for (; i < n_stream; i += stride) {
        s += word_sum(load_vec<S>(stream + i, stream_policy));
        r += word_sum(load_vec<R>(reused + j, reused_policy));
        j += step;
        if (j >= n_reused) j -= n_reused;
    }
    block_sums(s, r);
    if (threadIdx.x == 0) {
        partials[2 * blockIdx.x] = s;
        partials[2 * blockIdx.x + 1] = r;
    }
}

template <Prefetch P> __device__ __forceinline__ unsigned load_word(const std::uint32_t *p) {
    unsigned v;
    if constexpr (P == Prefetch::Size64) {
        asm volatile("ld.global.L2::64B.u32 %0, [%1];" : "=r"(v) : "l"(p));
    } else if constexpr (P == Prefetch::Size128) {
        asm volatile("ld.global.L2::128B.u32 %0, [%1];" : "=r"(v) : "l"(p));
    } else if constexpr (P == Prefetch::Size256) {
#if GM_L2_HINTS
        asm volatile("ld.global.L2::256B.u32 %0, [%1];" : "=r"(v) : "l"(p));
#else
        asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(p));
#endif
    } else {
        asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(p));
    }
    return v;
}

template <Prefetch P>
__global__ void __launch_bounds__(kStridedThreads)
    strided_read(const std::uint32_t *__restrict__ data, std::uint32_t n_reads, std::uint32_t stride_words,
                 unsigned long long *partials) {
    const std::uint32_t total = gridDim.x * blockDim.x;
    unsigned long long s = 0, unused = 0;
#pragma unroll 4
    for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n_reads; i += total) {
        if constexpr (P == Prefetch::Instruction) {
            // The line this thread reads next, one iteration ahead.
            const std::uint32_t ahead = i + total;
            if (ahead < n_reads)
                asm volatile("prefetch.global.L2 [%0];" ::"l"(data + static_cast<std::size_t>(ahead) * stride_words));
        }
        s += load_word<P>(data + static_cast<std::size_t>(i) * stride_words);
    }
    block_sums(s, unused);
    if (threadIdx.x == 0) partials[blockIdx.x] = s;
}

GM_KERNEL("cache_hints", "reuse_stream<default, default>", (reuse_stream<LoadHint::Default, LoadHint::Default>));
GM_KERNEL("cache_hints", "reuse_stream<ld.cs, default>", (reuse_stream<LoadHint::Streaming, LoadHint::Default>));
GM_KERNEL("cache_hints", "reuse_stream<L1::no_allocate, default>", (reuse_stream<LoadHint::L1NoAllocate, LoadHint::Default>));
GM_KERNEL("cache_hints", "reuse_stream<evict_first, default>", (reuse_stream<LoadHint::EvictFirst, LoadHint::Default>));
GM_KERNEL("cache_hints", "reuse_stream<default, evict_last>", (reuse_stream<LoadHint::Default, LoadHint::EvictLast>));
GM_KERNEL("cache_hints", "reuse_stream<evict_first, evict_last>", (reuse_stream<LoadHint::EvictFirst, LoadHint::EvictLast>));
GM_KERNEL("cache_hints", "strided_read<ld.global>", strided_read<Prefetch::None>);
GM_KERNEL("cache_hints", "strided_read<prefetch.global.L2>", strided_read<Prefetch::Instruction>);
GM_KERNEL("cache_hints", "strided_read<L2::64B>", strided_read<Prefetch::Size64>);
GM_KERNEL("cache_hints", "strided_read<L2::128B>", strided_read<Prefetch::Size128>);
GM_KERNEL("cache_hints", "strided_read<L2::256B>", strided_read<Prefetch::Size256>);

}  // namespace

cudaError_t launch_reuse_stream(LoadHint stream_hint, LoadHint reused_hint, const std::uint32_t *stream,
                                std::uint32_t n_stream, const std::uint32_t *reused, std::uint32_t n_reused, unsigned blocks,
                                unsigned long long *partials, cudaStream_t st) {
    if (!stream || !reused || !partials || n_reused == 0 || n_stream >= (1u << 31) || blocks == 0 ||
        reinterpret_cast<std::uintptr_t>(stream) % 16 || reinterpret_cast<std::uintptr_t>(reused) % 16)
        return cudaErrorInvalidValue;
    const auto *s = reinterpret_cast<const uint4 *>(stream);
    const auto *r = reinterpret_cast<const uint4 *>(reused);
    using H = LoadHint;
    if (stream_hint == H::Default && reused_hint == H::Default)
        reuse_stream<H::Default, H::Default><<<blocks, kReuseStreamThreads, 0, st>>>(s, n_stream, r, n_reused, partials);
    else if (stream_hint == H::Streaming && reused_hint == H::Default)
        reuse_stream<H::Streaming, H::Default><<<blocks, kReuseStreamThreads, 0, st>>>(s, n_stream, r, n_reused, partials);
    else if (stream_hint == H::L1NoAllocate && reused_hint == H::Default)
        reuse_stream<H::L1NoAllocate, H::Default><<<blocks, kReuseStreamThreads, 0, st>>>(s, n_stream, r, n_reused, partials);
    else if (stream_hint == H::EvictFirst && reused_hint == H::Default)
        reuse_stream<H::EvictFirst, H::Default><<<blocks, kReuseStreamThreads, 0, st>>>(s, n_stream, r, n_reused, partials);
    else if (stream_hint == H::Default && reused_hint == H::EvictLast)
        reuse_stream<H::Default, H::EvictLast><<<blocks, kReuseStreamThreads, 0, st>>>(s, n_stream, r, n_reused, partials);
    else if (stream_hint == H::EvictFirst && reused_hint == H::EvictLast)
        reuse_stream<H::EvictFirst, H::EvictLast><<<blocks, kReuseStreamThreads, 0, st>>>(s, n_stream, r, n_reused, partials);
    else
        return cudaErrorInvalidValue;  // a pair no experiment asks for has no instance
    return cudaGetLastError();
}

cudaError_t launch_strided_read(Prefetch prefetch, const std::uint32_t *data, std::uint32_t n_reads,
                                std::uint32_t stride_words, unsigned blocks, unsigned long long *partials, cudaStream_t st) {
    if (!data || !partials || n_reads == 0 || n_reads >= (1u << 31) || stride_words == 0 || blocks == 0)
        return cudaErrorInvalidValue;
    switch (prefetch) {
    case Prefetch::None: strided_read<Prefetch::None><<<blocks, kStridedThreads, 0, st>>>(data, n_reads, stride_words, partials); break;
    case Prefetch::Instruction:
        strided_read<Prefetch::Instruction><<<blocks, kStridedThreads, 0, st>>>(data, n_reads, stride_words, partials);
        break;
    case Prefetch::Size64: strided_read<Prefetch::Size64><<<blocks, kStridedThreads, 0, st>>>(data, n_reads, stride_words, partials); break;
    case Prefetch::Size128:
        strided_read<Prefetch::Size128><<<blocks, kStridedThreads, 0, st>>>(data, n_reads, stride_words, partials);
        break;
    case Prefetch::Size256:
        strided_read<Prefetch::Size256><<<blocks, kStridedThreads, 0, st>>>(data, n_reads, stride_words, partials);
        break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

}  // namespace gmlab::kernels
