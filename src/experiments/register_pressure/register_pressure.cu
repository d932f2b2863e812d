#include "experiments/register_pressure/register_pressure.cuh"

#include "shared_kernels/kernel_catalogue.cuh"
#include "shared_kernels/word_types.cuh"

// sm_90 (nvcc 13.0, -Xptxas -v) for the instances below, register cap: used
// registers, spill stores / loads in bytes (stack frame = spill space):
//   cap 255, 128, 80: 80 registers, no spill (the kernel needs about 80)
//   cap 64: 64 registers,  68 /  68 bytes spilled (40-byte stack frame)
//   cap 48: 48 registers, 284 / 284 bytes (168-byte frame)
//   cap 40: 40 registers, 420 / 424 bytes (232-byte frame)
//   cap 32: 32 registers, 580 / 584 bytes (304-byte frame)
// The experiment reads the registers and local bytes at run time
// (cudaFuncGetAttributes) and reports them with every point.

namespace gmlab::kernels {

namespace {

template <int MinBlocks>
__global__ void __launch_bounds__(kPressureBlock, MinBlocks)
    pressure_kernel(const std::uint32_t *__restrict__ in, std::uint32_t *__restrict__ out, std::size_t threads,
                    int iterations) {
    const std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (t >= threads) return;
    std::uint32_t v[kPressureLive];
#pragma unroll
    for (int k = 0; k < kPressureLive; ++k) v[k] = in[static_cast<std::size_t>(k) * threads + t];
#pragma unroll 1
    for (int it = 0; it < iterations; ++it) {
        // Every value is read again in the next iteration, so all 64 stay live.
#pragma unroll
        for (int k = 0; k < kPressureLive; ++k)
            v[k] = v[k] * (v[(k + 1) % kPressureLive] | 1u) + static_cast<std::uint32_t>(k) * 0x9E3779B1u;
    }
    std::uint32_t sum = 0;
#pragma unroll
    for (int k = 0; k < kPressureLive; ++k) sum += v[k];
    out[t] = sum;
}

// cap = floor(65536 / (256 * min_blocks)) rounded down to a multiple of 8, at most 255.
#define GM_PRESSURE_INSTANCES(X) X(255, 1) X(128, 2) X(80, 3) X(64, 4) X(48, 5) X(40, 6) X(32, 8)

#define GM_PRESSURE_REGISTER(cap, mb) \
    GM_KERNEL("register_pressure", "pressure_kernel<min_blocks " #mb ">, cap " #cap " registers", (pressure_kernel<mb>));
GM_PRESSURE_INSTANCES(GM_PRESSURE_REGISTER)

const void *kernel_for(int cap) {
#define GM_PRESSURE_CASE(c, mb) \
    case c: return reinterpret_cast<const void *>(pressure_kernel<mb>);
    switch (cap) {
        GM_PRESSURE_INSTANCES(GM_PRESSURE_CASE)
    default: return nullptr;
    }
#undef GM_PRESSURE_CASE
}

}  // namespace

const std::vector<PressureCap> &pressure_caps() {
#define GM_PRESSURE_ENTRY(c, mb) PressureCap{c, mb},
    static const std::vector<PressureCap> caps = {GM_PRESSURE_INSTANCES(GM_PRESSURE_ENTRY)};
#undef GM_PRESSURE_ENTRY
    return caps;
}

cudaError_t launch_pressure(int cap, const std::uint32_t *in, std::uint32_t *out, std::size_t threads, int iterations,
                            cudaStream_t stream) {
    const void *k = kernel_for(cap);
    if (!k || threads == 0 || iterations < 0) return cudaErrorInvalidValue;
    void *args[] = {&in, &out, &threads, &iterations};
    return cudaLaunchKernel(k, dim3(blocks_for(threads, kPressureBlock)), dim3(kPressureBlock), args, 0, stream);
}

cudaError_t pressure_attributes(int cap, cudaFuncAttributes *out) {
    const void *k = kernel_for(cap);
    return k ? cudaFuncGetAttributes(out, k) : cudaErrorInvalidValue;
}

cudaError_t pressure_occupancy(int cap, int *blocks_per_sm) {
    const void *k = kernel_for(cap);
    return k ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, k, kPressureBlock, 0) : cudaErrorInvalidValue;
}

}  // namespace gmlab::kernels
