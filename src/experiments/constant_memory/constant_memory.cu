#include "experiments/constant_memory/constant_memory.cuh"

#include "shared_kernels/kernel_catalogue.cuh"

namespace gmlab::kernels {

namespace {

__constant__ float c_table[kConstTableWords];
__constant__ float c_coef[kStencilRadius];

__global__ void constant_read(float *out, unsigned k, unsigned iterations) {
    const unsigned lane_offset = (threadIdx.x % 32) % k;  // k distinct words per warp access
    float acc = 0.0f;
#pragma unroll 8
    for (unsigned it = 0; it < iterations; ++it) acc += c_table[(it & 63) + lane_offset];
    out[blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x] = acc;
}

template <bool Constant, int PerThread>
__global__ void stencil(const float *__restrict__ in, float *__restrict__ out, std::size_t n,
                        const float *__restrict__ coef_global) {
    extern __shared__ float s[];  // the block's tile and a halo of kStencilRadius on each side
    const unsigned tid = threadIdx.x;
    const std::size_t tile = static_cast<std::size_t>(blockDim.x) * PerThread;
    const std::size_t base = blockIdx.x * tile;
    // All of a thread's loads are issued before the first store to shared
    // memory, and each warp's loads start on the tile's aligned base.
    float v[PerThread];
#pragma unroll
    for (int p = 0; p < PerThread; ++p) {
        const std::size_t g = base + p * blockDim.x + tid;
        v[p] = g < n ? in[g] : 0.0f;
    }
    float halo = 0.0f;
    if (tid < 2 * kStencilRadius) {
        const long long g = tid < kStencilRadius ? static_cast<long long>(base) - kStencilRadius + tid
                                                 : static_cast<long long>(base + tile) + tid - kStencilRadius;
        halo = (g >= 0 && static_cast<std::size_t>(g) < n) ? in[g] : 0.0f;
    }
#pragma unroll
    for (int p = 0; p < PerThread; ++p) s[kStencilRadius + p * blockDim.x + tid] = v[p];
    if (tid < kStencilRadius)
        s[tid] = halo;
    else if (tid < 2 * kStencilRadius)
        s[tile + tid] = halo;  // tile + kStencilRadius + (tid - kStencilRadius)
    __syncthreads();
#pragma unroll
    for (int p = 0; p < PerThread; ++p) {
        const unsigned l = p * blockDim.x + tid;
        const std::size_t i = base + l;
        if (i >= n) break;
        const float *c = s + l + kStencilRadius;
        float sum = 0.0f;
#pragma unroll
        for (int r = 1; r <= kStencilRadius; ++r) {
            const float a = Constant ? c_coef[r - 1] : __ldg(coef_global + r - 1);
            sum += a * (c[r] - c[-r]);
        }
        out[i] = sum;
    }
}

GM_KERNEL("constant_broadcast", "constant_read", constant_read);
GM_KERNEL("stencil", "stencil<__constant__ coefficients, 1 output per thread>", (stencil<true, 1>));
GM_KERNEL("stencil", "stencil<__constant__ coefficients, 4 outputs per thread>", (stencil<true, 4>));
GM_KERNEL("stencil", "stencil<__constant__ coefficients, 8 outputs per thread>", (stencil<true, 8>));
GM_KERNEL("stencil", "stencil<__ldg coefficients, 1 output per thread>", (stencil<false, 1>));
GM_KERNEL("stencil", "stencil<__ldg coefficients, 4 outputs per thread>", (stencil<false, 4>));
GM_KERNEL("stencil", "stencil<__ldg coefficients, 8 outputs per thread>", (stencil<false, 8>));

}  // namespace

cudaError_t set_constant_table(const float *values, cudaStream_t stream) {
    return cudaMemcpyToSymbolAsync(c_table, values, sizeof(float) * kConstTableWords, 0, cudaMemcpyHostToDevice, stream);
}

cudaError_t launch_constant_read(unsigned k, unsigned iterations, int blocks, int block, float *out, cudaStream_t stream) {
    if (k < 1 || k > 32) return cudaErrorInvalidValue;
    constant_read<<<blocks, block, 0, stream>>>(out, k, iterations);
    return cudaGetLastError();
}

cudaError_t set_stencil_coefficients(const float *coefficients, cudaStream_t stream) {
    return cudaMemcpyToSymbolAsync(c_coef, coefficients, sizeof(float) * kStencilRadius, 0, cudaMemcpyHostToDevice, stream);
}

cudaError_t launch_stencil(bool constant, const float *in, float *out, std::size_t n, const float *coef_global,
                           int block, int per_thread, cudaStream_t stream) {
    if (n == 0 || block < 2 * kStencilRadius) return cudaErrorInvalidValue;
    const std::size_t tile = static_cast<std::size_t>(block) * per_thread;
    const unsigned blocks = static_cast<unsigned>((n + tile - 1) / tile);
    const std::size_t smem = (tile + 2 * kStencilRadius) * sizeof(float);
    switch (per_thread) {
    case 1:
        if (constant) stencil<true, 1><<<blocks, block, smem, stream>>>(in, out, n, coef_global);
        else stencil<false, 1><<<blocks, block, smem, stream>>>(in, out, n, coef_global);
        break;
    case 4:
        if (constant) stencil<true, 4><<<blocks, block, smem, stream>>>(in, out, n, coef_global);
        else stencil<false, 4><<<blocks, block, smem, stream>>>(in, out, n, coef_global);
        break;
    case 8:
        if (constant) stencil<true, 8><<<blocks, block, smem, stream>>>(in, out, n, coef_global);
        else stencil<false, 8><<<blocks, block, smem, stream>>>(in, out, n, coef_global);
        break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

std::mutex &constant_memory_mutex() {
    static std::mutex mutex;
    return mutex;
}

}  // namespace gmlab::kernels
