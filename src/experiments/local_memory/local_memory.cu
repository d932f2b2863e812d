#include "experiments/local_memory/local_memory.cuh"

#include "shared_kernels/kernel_catalogue.cuh"
#include "shared_kernels/word_types.cuh"

// Resources on sm_90 (nvcc 13.0, -Xptxas -v), kept here because the point of
// the experiment is where the array lands:
//   local_array_registers:  0 bytes stack frame, 0 spill; the array in registers
//   local_array_uniform:    256 bytes stack frame (the array), 0 spill
//   local_array_divergent:  256 bytes stack frame (the array), 0 spill
// The experiment reads the same figures at run time (cudaFuncGetAttributes) and
// reports them with every point.

namespace gmlab::kernels {

namespace {

__device__ __forceinline__ void load_array(std::uint32_t (&a)[kLocalWords], const std::uint32_t *in, std::size_t t,
                                           std::size_t threads) {
#pragma unroll
    for (int k = 0; k < kLocalWords; ++k) a[k] = in[static_cast<std::size_t>(k) * threads + t];
}

__device__ __forceinline__ std::uint32_t finish(const std::uint32_t (&a)[kLocalWords], std::uint32_t acc) {
#pragma unroll
    for (int k = 0; k < kLocalWords; ++k) acc += a[k];
    return acc;
}

__global__ void __launch_bounds__(kLocalBlock) local_array_registers(const std::uint32_t *__restrict__ in,
                                                                     std::uint32_t *__restrict__ out,
                                                                     std::size_t threads, int rounds) {
    const std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (t >= threads) return;
    std::uint32_t a[kLocalWords];
    load_array(a, in, t, threads);
    std::uint32_t acc = 0;
#pragma unroll 1
    for (int r = 0; r < rounds; ++r) {
#pragma unroll
        for (int k = 0; k < kLocalWords; ++k) {
            acc += a[k];
            a[k] = a[k] * 3u + 1u;
        }
    }
    out[t] = finish(a, acc);
}

// Lane offset 0 gives the warp-uniform index, the lane number the divergent one.
template <bool Divergent>
__device__ __forceinline__ void local_array_body(const std::uint32_t *__restrict__ in, std::uint32_t *__restrict__ out,
                                                 std::size_t threads, int rounds, int base) {
    const std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (t >= threads) return;
    std::uint32_t a[kLocalWords];
    load_array(a, in, t, threads);
    const int lane = Divergent ? static_cast<int>(threadIdx.x & 31) : 0;
    std::uint32_t acc = 0;
    const int steps = rounds * kLocalWords;
    // Not unrolled: the index stays a run-time value, so the array must be addressable memory.
#pragma unroll 1
    for (int j = 0; j < steps; ++j) {
        const int i = (j + lane + base) & (kLocalWords - 1);
        acc += a[i];
        a[i] = a[i] * 3u + 1u;
    }
    out[t] = finish(a, acc);
}

__global__ void __launch_bounds__(kLocalBlock) local_array_uniform(const std::uint32_t *__restrict__ in,
                                                                   std::uint32_t *__restrict__ out, std::size_t threads,
                                                                   int rounds, int base) {
    local_array_body<false>(in, out, threads, rounds, base);
}

__global__ void __launch_bounds__(kLocalBlock) local_array_divergent(const std::uint32_t *__restrict__ in,
                                                                     std::uint32_t *__restrict__ out,
                                                                     std::size_t threads, int rounds, int base) {
    local_array_body<true>(in, out, threads, rounds, base);
}

GM_KERNEL("local_memory", "local_array_registers (compile-time indices)", local_array_registers);
GM_KERNEL("local_memory", "local_array_uniform (run-time index, same in the warp)", local_array_uniform);
GM_KERNEL("local_memory", "local_array_divergent (run-time index per lane)", local_array_divergent);

}  // namespace

cudaError_t launch_local_array(LocalVariant v, const std::uint32_t *in, std::uint32_t *out, std::size_t threads,
                               int rounds, int base, cudaStream_t stream) {
    if (threads == 0 || rounds < 0) return cudaErrorInvalidValue;
    const unsigned blocks = blocks_for(threads, kLocalBlock);
    switch (v) {
    case LocalVariant::Registers: local_array_registers<<<blocks, kLocalBlock, 0, stream>>>(in, out, threads, rounds); break;
    case LocalVariant::LocalUniform: local_array_uniform<<<blocks, kLocalBlock, 0, stream>>>(in, out, threads, rounds, base); break;
    case LocalVariant::LocalDivergent: local_array_divergent<<<blocks, kLocalBlock, 0, stream>>>(in, out, threads, rounds, base); break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

cudaError_t local_array_attributes(LocalVariant v, cudaFuncAttributes *out) {
    switch (v) {
    case LocalVariant::Registers: return cudaFuncGetAttributes(out, local_array_registers);
    case LocalVariant::LocalUniform: return cudaFuncGetAttributes(out, local_array_uniform);
    case LocalVariant::LocalDivergent: return cudaFuncGetAttributes(out, local_array_divergent);
    default: return cudaErrorInvalidValue;
    }
}

}  // namespace gmlab::kernels
