#include "experiments/async_copy/async_copy.cuh"

#include "shared_kernels/kernel_catalogue.cuh"

#include <cuda_pipeline_primitives.h>

#include "shared_kernels/word_types.cuh"

namespace gmlab::kernels {

namespace {

// What both kernels do after the timed copy in: every element of this
// thread's back from shared memory to `out` (at the offset `base` of its
// block), untimed, so that the host's check covers the shared-memory copy.
template <class T>
__device__ __forceinline__ void copy_back(const T *shared, T *out, std::size_t base, std::size_t copy_count) {
    for (std::size_t i = 0; i < copy_count; ++i)
        out[base + blockDim.x * i + threadIdx.x] = shared[blockDim.x * i + threadIdx.x];
}

// The guide's pipeline_kernel_sync: every element passes through a register.
template <class T>
__global__ void copy_sync(const T *global, T *out, unsigned long long *clock, std::size_t copy_count) {
    extern __shared__ __align__(16) unsigned char s[];
    T *shared = reinterpret_cast<T *>(s);
    const std::size_t base = blockIdx.x * static_cast<std::size_t>(blockDim.x) * copy_count;
    const unsigned long long start = clock64();
    for (std::size_t i = 0; i < copy_count; ++i)
        shared[blockDim.x * i + threadIdx.x] = global[base + blockDim.x * i + threadIdx.x];
    const unsigned long long end = clock64();
    atomicAdd(clock, end - start);
    copy_back(shared, out, base, copy_count);
}

// The guide's pipeline_kernel_async: the copies go straight from global to
// shared memory; the thread waits once for all of them.
template <class T>
__global__ void copy_async(const T *global, T *out, unsigned long long *clock, std::size_t copy_count) {
    extern __shared__ __align__(16) unsigned char s[];
    T *shared = reinterpret_cast<T *>(s);
    const std::size_t base = blockIdx.x * static_cast<std::size_t>(blockDim.x) * copy_count;
    const unsigned long long start = clock64();
    for (std::size_t i = 0; i < copy_count; ++i)
        __pipeline_memcpy_async(&shared[blockDim.x * i + threadIdx.x], &global[base + blockDim.x * i + threadIdx.x],
                                sizeof(T));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    const unsigned long long end = clock64();
    atomicAdd(clock, end - start);
    copy_back(shared, out, base, copy_count);
}

template <class T> const void *kernel(bool async) {
    return async ? reinterpret_cast<const void *>(copy_async<T>) : reinterpret_cast<const void *>(copy_sync<T>);
}

const void *kernel_for(bool async, int word_size) {
    switch (word_size) {
    case 4: return kernel<std::uint32_t>(async);
    case 8: return kernel<uint2>(async);
    case 16: return kernel<uint4>(async);
    default: return nullptr;
    }
}

GM_KERNEL("async_copy", "copy_sync<4-byte elements>", (copy_sync<std::uint32_t>));
GM_KERNEL("async_copy", "copy_sync<8-byte elements>", (copy_sync<uint2>));
GM_KERNEL("async_copy", "copy_sync<16-byte elements>", (copy_sync<uint4>));
GM_KERNEL("async_copy", "copy_async<4-byte elements>", (copy_async<std::uint32_t>));
GM_KERNEL("async_copy", "copy_async<8-byte elements>", (copy_async<uint2>));
GM_KERNEL("async_copy", "copy_async<16-byte elements>", (copy_async<uint4>));

}  // namespace

cudaError_t launch_global_to_shared(bool async, int word_size, const void *in, void *out, std::size_t copy_count,
                                    int blocks, unsigned long long *clock_sum, cudaStream_t stream) {
    if (word_size != 4 && word_size != 8 && word_size != 16) return cudaErrorInvalidValue;
    const std::size_t smem = static_cast<std::size_t>(kAsyncBlock) * copy_count * word_size;
    return with_word_type(word_size, [&](auto tag) {
        using T = decltype(tag);
        if (async)
            copy_async<T><<<blocks, kAsyncBlock, smem, stream>>>(static_cast<const T *>(in), static_cast<T *>(out), clock_sum, copy_count);
        else
            copy_sync<T><<<blocks, kAsyncBlock, smem, stream>>>(static_cast<const T *>(in), static_cast<T *>(out), clock_sum, copy_count);
        return cudaGetLastError();
    });
}

cudaError_t global_to_shared_attributes(bool async, int word_size, cudaFuncAttributes *out) {
    const void *k = kernel_for(async, word_size);
    return k ? cudaFuncGetAttributes(out, k) : cudaErrorInvalidValue;
}

cudaError_t allow_global_to_shared(std::size_t bytes) {
    for (bool async : {false, true})
        for (int w : {4, 8, 16}) {
            cudaError_t err = cudaFuncSetAttribute(kernel_for(async, w), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                   static_cast<int>(bytes));
            if (err != cudaSuccess) return err;
        }
    return cudaSuccess;
}

}  // namespace gmlab::kernels
