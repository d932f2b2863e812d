#include "operations/matmul.hpp"

#include <string>

#include "core/device/buffer.hpp"
#include "core/error.hpp"
#include "experiments/matmul/matmul.cuh"

namespace gmlab {

namespace {

std::string s(std::size_t v) { return std::to_string(v); }

}  // namespace

void check_matmul(std::size_t a_bytes, std::size_t b_bytes, std::size_t c_bytes, std::size_t m, std::size_t n,
                  std::size_t k, int variant) {
    if (variant < GM_MATMUL_SIMPLE || variant > GM_MATMUL_SHARED_AB)
        invalid("variant must be 0..2 (gm_matmul_variant), got " + std::to_string(variant));
    if (m == 0 || n == 0 || k == 0) invalid("m, n and k must be at least 1, got " + s(m) + ", " + s(n) + ", " + s(k));
    const std::size_t limit = (std::size_t(1) << 31) - 1;
    auto elements = [&](std::size_t r, std::size_t c, const char *name) {
        if (c > limit / r)
            invalid(std::string(name) + " (" + s(r) + " x " + s(c) + ") must hold fewer than 2^31 elements");
        return r * c * sizeof(float);
    };
    if (m > kernels::kMatmulMaxRows) invalid("m must be at most " + s(kernels::kMatmulMaxRows) + ", got " + s(m));
    require_buffer_holds(elements(m, k, "A"), a_bytes, "A (" + s(m) + " x " + s(k) + " floats)");
    require_buffer_holds(elements(k, n, "B"), b_bytes, "B (" + s(k) + " x " + s(n) + " floats)");
    require_buffer_holds(elements(m, n, "C"), c_bytes, "C (" + s(m) + " x " + s(n) + " floats)");
}

void matmul(ContextState &ctx, const gm_buffer &a, const gm_buffer &b, gm_buffer &c, std::size_t m, std::size_t n,
            std::size_t k, int variant) {
    if (a.state.get() != &ctx || b.state.get() != &ctx || c.state.get() != &ctx)
        invalid("a, b and c must belong to the context the product runs on");
    if (c.ptr == a.ptr || c.ptr == b.ptr) invalid("c must differ from a and b");
    check_matmul(a.bytes, b.bytes, c.bytes, m, n, k, variant);
    ctx.activate();
    GM_CUDA(kernels::launch_matmul_ab(static_cast<kernels::MatmulAB>(variant), static_cast<const float *>(a.ptr),
                                      static_cast<const float *>(b.ptr), static_cast<float *>(c.ptr), static_cast<int>(m),
                                      static_cast<int>(n), static_cast<int>(k), ctx.stream()));
    GM_CUDA(cudaStreamSynchronize(ctx.stream()));
}

}  // namespace gmlab
