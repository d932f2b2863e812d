// gm_stencil_constant: the stencil experiment's kernels (constant_memory.cu) as
// a public operation.
#include "operations/stencil.hpp"

#include <cmath>
#include <mutex>
#include <string>

#include "core/device/buffer.hpp"
#include "core/error.hpp"
#include "experiments/constant_memory/constant_memory.cuh"

namespace gmlab {

using kernels::kStencilRadius;

void check_stencil_args(std::size_t in_bytes, std::size_t out_bytes, std::size_t n, const float *coefficients) {
    if (!coefficients) invalid("coefficients must not be NULL");
    if (n == 0) invalid("n must be at least 1, got 0");
    if (n > in_bytes / sizeof(float)) invalid("in holds " + std::to_string(in_bytes / sizeof(float)) + " floats, n is " + std::to_string(n));
    if (n > out_bytes / sizeof(float)) invalid("out holds " + std::to_string(out_bytes / sizeof(float)) + " floats, n is " + std::to_string(n));
    for (int r = 0; r < kStencilRadius; ++r)
        if (!std::isfinite(coefficients[r])) invalid("coefficients[" + std::to_string(r) + "] must be finite");
}

void stencil(ContextState &ctx, const gm_buffer &in, gm_buffer &out, std::size_t n, const float *coefficients, bool constant) {
    if (in.state.get() != &ctx || out.state.get() != &ctx) invalid("in and out must belong to the context the stencil runs on");
    if (in.ptr == out.ptr) invalid("in and out must be different buffers");
    check_stencil_args(in.bytes, out.bytes, n, coefficients);
    ctx.activate();
    cudaStream_t st = ctx.stream();
    if (constant) {
        std::lock_guard<std::mutex> lock(kernels::constant_memory_mutex());
        GM_CUDA(kernels::set_stencil_coefficients(coefficients, st));
        GM_CUDA(kernels::launch_stencil(true, static_cast<const float *>(in.ptr), static_cast<float *>(out.ptr), n, nullptr, 256, 8, st));
        GM_CUDA(cudaStreamSynchronize(st));
        return;
    }
    DeviceArray coef(ctx, kStencilRadius * sizeof(float));
    GM_CUDA(cudaMemcpyAsync(coef.get(), coefficients, kStencilRadius * sizeof(float), cudaMemcpyHostToDevice, st));
    GM_CUDA(kernels::launch_stencil(false, static_cast<const float *>(in.ptr), static_cast<float *>(out.ptr), n, coef.as<float>(), 256, 8, st));
    GM_CUDA(cudaStreamSynchronize(st));
}

}  // namespace gmlab
