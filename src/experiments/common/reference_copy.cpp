#include "experiments/common/reference_copy.hpp"

#include <cstring>
#include <vector>

#include "core/error.hpp"
#include "core/measurement/harness.hpp"
#include "core/measurement/verify.hpp"
#include "shared_kernels/stream_ops.cuh"

namespace gmlab {

Series reference_copy_series(ContextState &ctx, const void *in, void *out, std::size_t bytes, double x, Result &result,
                             const std::string &what) {
    if (bytes == 0 || bytes % 16 != 0) fail(GM_ERROR_INTERNAL, what + ": the reference copy needs whole 16-byte vectors");
    cudaStream_t st = ctx.stream();
    auto launch = [&](cudaStream_t s) {
        return kernels::launch_stream(kernels::StreamOp::Copy, 1, false, 256, 0, static_cast<const double *>(in), nullptr,
                                      static_cast<double *>(out), 0.0, bytes / sizeof(double), s);
    };
    GM_CUDA(launch(st));
    std::vector<unsigned char> source(bytes), copied(bytes);
    GM_CUDA(cudaMemcpyAsync(source.data(), in, bytes, cudaMemcpyDeviceToHost, st));
    GM_CUDA(cudaMemcpyAsync(copied.data(), out, bytes, cudaMemcpyDeviceToHost, st));
    GM_CUDA(cudaStreamSynchronize(st));
    const std::uint64_t bad = first_mismatch(bytes, [&](std::uint64_t i) { return copied[i] == source[i]; });
    if (bad < bytes) verification_failed(what + " reference copy", bad, std::to_string(source[bad]), std::to_string(copied[bad]));
    result.verified(bytes / 4, "the reference copy compared byte for byte with its input");
    Series s;
    s.name = "copy (stream kernel)";
    s.variant = "copy";
    s.quantity = Quantity::DramBandwidth;
    Point p;
    p.x = x;
    p.bytes = 2.0 * static_cast<double>(bytes);
    p.time_ms = time_launch(ctx, launch);
    s.points.push_back(std::move(p));
    return s;
}

}  // namespace gmlab
