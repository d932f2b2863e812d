#include "operations/transpose.hpp"

#include <limits>
#include <string>

#include "core/device/buffer.hpp"
#include "core/error.hpp"

namespace gmlab {

namespace {

std::string s(std::size_t v) { return std::to_string(v); }

// rows x cols x element_size in bytes, refusing overflow.
std::size_t matrix_bytes(std::size_t rows, std::size_t cols, std::size_t element_size, const char *what) {
    const std::size_t max = std::numeric_limits<std::size_t>::max();
    if (cols > max / rows || rows * cols > max / element_size)
        invalid(std::string(what) + ": " + s(rows) + " x " + s(cols) + " elements of " + s(element_size) +
                " bytes overflow a size_t");
    return rows * cols * element_size;
}

}  // namespace

void check_transpose(std::size_t in_bytes, std::size_t out_bytes, std::size_t rows, std::size_t cols,
                     std::size_t element_size, int variant) {
    if (variant < GM_TRANSPOSE_NAIVE || variant > GM_TRANSPOSE_AUTO)
        invalid("variant must be 0..4 (gm_transpose_variant), got " + std::to_string(variant));
    if (element_size != 1 && element_size != 2 && element_size != 4 && element_size != 8 && element_size != 16)
        invalid("element_size must be one of 1, 2, 4, 8, 16, got " + s(element_size));
    if (rows == 0 || cols == 0) invalid("rows and cols must be at least 1, got " + s(rows) + " x " + s(cols));
    if (rows > kernels::kTransposeMaxRows)
        invalid("rows must be at most " + s(kernels::kTransposeMaxRows) + ", got " + s(rows));
    if (variant == GM_TRANSPOSE_WIDE && !kernels::transpose_wide_fits(static_cast<int>(element_size), rows, cols))
        invalid("GM_TRANSPOSE_WIDE needs 4-byte elements and rows and cols that are multiples of 4, got " + s(rows) +
                " x " + s(cols) + " of " + s(element_size) + " bytes");
    const std::size_t bytes = matrix_bytes(rows, cols, element_size, "transpose");
    require_buffer_holds(bytes, in_bytes, "in (" + s(rows) + " x " + s(cols) + " x " + s(element_size) + ")");
    require_buffer_holds(bytes, out_bytes, "out (" + s(cols) + " x " + s(rows) + " x " + s(element_size) + ")");
}

kernels::TransposeKernel transpose_kernel_for(int variant, std::size_t element_size, std::size_t rows, std::size_t cols) {
    switch (variant) {
    case GM_TRANSPOSE_NAIVE: return kernels::TransposeKernel::Naive;
    case GM_TRANSPOSE_SHARED: return kernels::TransposeKernel::Shared;
    case GM_TRANSPOSE_SHARED_PADDED: return kernels::TransposeKernel::SharedPadded;
    case GM_TRANSPOSE_WIDE: return kernels::TransposeKernel::Wide;
    default:
        return kernels::transpose_wide_fits(static_cast<int>(element_size), rows, cols) ? kernels::TransposeKernel::Wide
                                                                                        : kernels::TransposeKernel::SharedPadded;
    }
}

void transpose(ContextState &ctx, const gm_buffer &in, gm_buffer &out, std::size_t rows, std::size_t cols,
               std::size_t element_size, int variant) {
    if (in.state.get() != &ctx || out.state.get() != &ctx) invalid("in and out must belong to the context the transpose runs on");
    if (in.ptr == out.ptr) invalid("in and out must be different buffers");
    check_transpose(in.bytes, out.bytes, rows, cols, element_size, variant);
    ctx.activate();
    GM_CUDA(kernels::launch_transpose(transpose_kernel_for(variant, element_size, rows, cols), static_cast<int>(element_size),
                                      in.ptr, out.ptr, rows, cols, ctx.stream()));
    GM_CUDA(cudaStreamSynchronize(ctx.stream()));
}

}  // namespace gmlab
