#include "shared_kernels/read_sum.cuh"

#include "shared_kernels/kernel_catalogue.cuh"

namespace gmlab::kernels {

namespace {

// The L2::256B fetch hint exists from sm_80 on; older targets load through
// the read-only path without it.
template <ReadHint H> __device__ __forceinline__ uint4 load_vector(const uint4 *p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    if constexpr (H == ReadHint::L2Fetch256) return __ldg(p);
#else
    if constexpr (H == ReadHint::L2Fetch256) {
        uint4 v;
        asm("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                     : "l"(p));
        return v;
    }
#endif
    else {
        return *p;
    }
}

// The block's sum of every thread's s, to thread 0 (every thread reaches it).
__device__ __forceinline__ unsigned long long block_sum(unsigned long long s) {
    for (int offset = 16; offset > 0; offset >>= 1) s += __shfl_down_sync(0xffffffffu, s, offset);
    __shared__ unsigned long long warp_sums[32];
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = s;
    __syncthreads();
    unsigned long long total = 0;
    if (threadIdx.x == 0)
        for (unsigned w = 0; w < blockDim.x / 32; ++w) total += warp_sums[w];
    return total;
}

// Loads vectors per thread, all requested before any is added; a grid
// smaller than the array (never launched so here, but allowed) walks it.
// accumulate: *out += the block's sum; else out[blockIdx.x] = it.
template <int Loads, ReadHint H>
__global__ void read_sum_kernel(const uint4 *__restrict__ p, std::size_t n16, unsigned long long *out, bool accumulate) {
    const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x * Loads;
    unsigned long long s = 0;
    for (std::size_t chunk = blockIdx.x * static_cast<std::size_t>(blockDim.x) * Loads; chunk < n16; chunk += step) {
        uint4 v[Loads];
        const uint4 *q = p + chunk + threadIdx.x;
        if (chunk + static_cast<std::size_t>(blockDim.x) * Loads <= n16) {
            // A whole chunk: no load is conditional, so that all are in flight before the first add.
#pragma unroll
            for (int k = 0; k < Loads; ++k) v[k] = load_vector<H>(q + static_cast<std::size_t>(k) * blockDim.x);
        } else {
#pragma unroll
            for (int k = 0; k < Loads; ++k) {
                const std::size_t i = chunk + threadIdx.x + static_cast<std::size_t>(k) * blockDim.x;
                v[k] = i < n16 ? load_vector<H>(p + i) : make_uint4(0, 0, 0, 0);
            }
        }
#pragma unroll
        for (int k = 0; k < Loads; ++k) s += static_cast<unsigned long long>(v[k].x) + v[k].y + v[k].z + v[k].w;
    }
    const unsigned long long total = block_sum(s);
    if (threadIdx.x != 0) return;
    if (accumulate) atomicAdd(out, total);
    else out[blockIdx.x] = total;
}

#define GM_READ_SUM_KERNELS(loads)                                                                                   \
    GM_KERNEL("support", "read_sum_kernel<" #loads " loads> (a whole array read and summed)",                       \
              (read_sum_kernel<loads, ReadHint::Plain>));                                                            \
    GM_KERNEL("support", "read_sum_kernel<" #loads " loads, ld.global.nc.L2::256B> (a whole array read and summed)", \
              (read_sum_kernel<loads, ReadHint::L2Fetch256>));
GM_READ_SUM_KERNELS(4)
GM_READ_SUM_KERNELS(8)
GM_READ_SUM_KERNELS(16)
#undef GM_READ_SUM_KERNELS

template <ReadHint H> const void *kernel_with_hint(int loads) {
    switch (loads) {
    case 4: return reinterpret_cast<const void *>(read_sum_kernel<4, H>);
    case 8: return reinterpret_cast<const void *>(read_sum_kernel<8, H>);
    default: return reinterpret_cast<const void *>(read_sum_kernel<16, H>);
    }
}

template <ReadHint H>
void launch_with_hint(int loads, unsigned blocks, int block, const uint4 *p, std::size_t n16, unsigned long long *out,
                      bool accumulate, cudaStream_t stream) {
    switch (loads) {
    case 4: read_sum_kernel<4, H><<<blocks, block, 0, stream>>>(p, n16, out, accumulate); break;
    case 8: read_sum_kernel<8, H><<<blocks, block, 0, stream>>>(p, n16, out, accumulate); break;
    default: read_sum_kernel<16, H><<<blocks, block, 0, stream>>>(p, n16, out, accumulate); break;
    }
}

cudaError_t launch_shape(const void *p, std::size_t n16, unsigned long long *out, const ReadShape &shape, bool accumulate,
                         cudaStream_t stream) {
    if (!p || !out || n16 == 0 || shape.block <= 0 || shape.block > 1024 || shape.block % 32 != 0 ||
        !read_loads_supported(shape.loads))
        return cudaErrorInvalidValue;
    const std::size_t blocks = read_sum_blocks(n16, shape);
    if (blocks > 0x7fffffffu) return cudaErrorInvalidValue;
    const auto *v = static_cast<const uint4 *>(p);
    const auto b = static_cast<unsigned>(blocks);
    if (shape.hint == ReadHint::L2Fetch256) launch_with_hint<ReadHint::L2Fetch256>(shape.loads, b, shape.block, v, n16, out, accumulate, stream);
    else launch_with_hint<ReadHint::Plain>(shape.loads, b, shape.block, v, n16, out, accumulate, stream);
    return cudaGetLastError();
}

}  // namespace

cudaError_t read_shape_max_block(int loads, ReadHint hint, int *threads) {
    if (!threads || !read_loads_supported(loads)) return cudaErrorInvalidValue;
    const void *k = hint == ReadHint::L2Fetch256 ? kernel_with_hint<ReadHint::L2Fetch256>(loads)
                                                 : kernel_with_hint<ReadHint::Plain>(loads);
    cudaFuncAttributes attr{};
    const cudaError_t e = cudaFuncGetAttributes(&attr, k);
    if (e == cudaSuccess) *threads = attr.maxThreadsPerBlock;
    return e;
}

cudaError_t launch_read_partials(const void *p, std::size_t n16, unsigned long long *partial, const ReadShape &shape,
                                 cudaStream_t stream) {
    return launch_shape(p, n16, partial, shape, false, stream);
}

cudaError_t launch_read_sum(const void *p, std::size_t n16, unsigned long long *sum, cudaStream_t stream) {
    if (n16 == 0) return cudaSuccess;
    return launch_shape(p, n16, sum, ReadShape{}, true, stream);
}

}  // namespace gmlab::kernels
