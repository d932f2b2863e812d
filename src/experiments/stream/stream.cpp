// Experiment family "stream": the reference copy/scale/add/triad kernels that
// measure the device's attainable DRAM bandwidth, timed beside cudaMemcpy.
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/experiment/point_protocol.hpp"
#include "core/experiment/registry.hpp"
#include "core/measurement/harness.hpp"
#include "core/measurement/verify.hpp"
#include "core/units.hpp"
#include "experiments/common/point_checks.hpp"
#include "shared_kernels/pattern.hpp"
#include "shared_kernels/stream_ops.cuh"

namespace gmlab {

namespace {

using kernels::StreamOp;

struct OpInfo {
    const char *name;
    StreamOp op;
    int arrays_moved;  // arrays read + written: bytes = arrays_moved * n * 8
};

constexpr OpInfo kOps[] = {
    {"copy", StreamOp::Copy, 2},
    {"scale", StreamOp::Scale, 2},
    {"add", StreamOp::Add, 3},
    {"triad", StreamOp::Triad, 3},
};

constexpr std::uint32_t kSeedA = 11, kSeedB = 22, kSeedC = 33;

double host_reference(StreamOp op, std::uint64_t i, double s) {
    const double a = pattern_double(i, kSeedA), b = pattern_double(i, kSeedB), c = pattern_double(i, kSeedC);
    switch (op) {
    case StreamOp::Copy: return a;       // c = a
    case StreamOp::Scale: return s * c;  // b = s * c
    case StreamOp::Add: return a + b;    // c = a + b
    case StreamOp::Triad: return b + s * c;  // a = b + s * c
    }
    return 0;
}

std::string show(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

// The headline figures: each kernel's bandwidth (copy, scale, add, triad and
// cudaMemcpy), against the device's theoretical bandwidth, and our copy
// against cudaMemcpy's.
const Figure kKernelGbs{"{kernel}_gbs", "GB/s", Better::Higher,
                        "bandwidth of one kernel (copy, scale, add, triad) or of cudaMemcpy, bytes read plus written"};
const Figure kKernelOverTheoretical{"{kernel}_fraction_of_theoretical", "ratio", Better::Higher,
                                    "a kernel's bandwidth over the device's theoretical DRAM bandwidth"};
const Figure kCopyOverMemcpy{"copy_over_memcpy", "ratio", Better::Higher,
                             "our copy kernel's bandwidth over cudaMemcpy device-to-device on the same arrays"};

// The array size: as asked, or max(4 x L2, 256 MiB) cut to what three arrays
// may take of the memory budget (with a note); a multiple of 16 bytes.
std::size_t array_bytes_for(ContextState &ctx, const Params &params, Result &out) {
    std::size_t array_bytes = params.size("array_bytes");
    const bool automatic = array_bytes == 0;
    if (automatic) array_bytes = std::max<std::size_t>(default_working_set(ctx.info()), 256u << 20);
    array_bytes = array_bytes / 16 * 16;
    if (automatic) {
        // Three arrays must fit the budget; shrink the default rather than fail.
        const std::size_t budget = ctx.memory_budget();
        if (3 * array_bytes > budget) {
            array_bytes = budget / 3 / 16 * 16;
            out.notes.push_back("array size reduced to fit the memory budget");
        }
    }
    if (array_bytes < 16) invalid("array_bytes must be at least 16, got " + std::to_string(array_bytes));
    require_memory(ctx, 3 * array_bytes, "stream (3 arrays of " + std::to_string(array_bytes) + " bytes)");
    return array_bytes;
}

// The three arrays, filled with their patterns again before each kernel is
// verified, and the host copy of an output.
struct StreamArrays {
    StreamArrays(ContextState &ctx, std::size_t bytes)
        : array_bytes(bytes), n(bytes / sizeof(double)), a(ctx, bytes), b(ctx, bytes), c(ctx, bytes), host(n) {}
    void fill(cudaStream_t st) const {
        GM_CUDA(kernels::launch_fill_doubles(a.as<double>(), n, kSeedA, st));
        GM_CUDA(kernels::launch_fill_doubles(b.as<double>(), n, kSeedB, st));
        GM_CUDA(kernels::launch_fill_doubles(c.as<double>(), n, kSeedC, st));
    }
    std::size_t array_bytes, n;
    DeviceArray a, b, c;
    std::vector<double> host;
};

// Compares every downloaded element with expected(i), within tol relative.
template <class Expected>
void check_doubles(const std::vector<double> &host, Expected expected, double tol, const std::string &what,
                   const char *how, Result &out) {
    const std::uint64_t n = host.size();
    const std::uint64_t bad = first_mismatch(n, [&](std::uint64_t i) {
        const double e = expected(i);
        return std::fabs(host[i] - e) <= tol * std::fabs(e);
    });
    if (bad < n) verification_failed(what, bad, show(expected(bad)), show(host[bad]));
    out.verified(n, how);
}

// One point through the core's point protocol on fresh inputs: output `o`
// poisoned, one launch checked, then timed and counted. Each launch's output is
// none of its inputs, so repeated launches compute the same values.
Point stream_point(ContextState &ctx, StreamArrays &arrays, const Launch &launch, void *o, double arrays_moved,
                   const std::function<void()> &check, Result &out) {
    arrays.fill(ctx.stream());
    const CheckedLaunch point{launch, {{o, arrays.array_bytes}}, download_to(arrays.host.data(), o, arrays.array_bytes), check};
    Point p;
    p.x = static_cast<double>(arrays.array_bytes);
    p.bytes = arrays_moved * static_cast<double>(arrays.array_bytes);
    // Counters: the DRAM bytes the launch really moved, against the bytes counted.
    const CounterSet counters = counter_sets::dram();
    measure_checked(ctx, point, p, out, &counters);
    return p;
}

// The STREAM kernels asked for, each a series of one point.
void run_stream_kernels(ContextState &ctx, const Params &params, StreamArrays &arrays, Result &out) {
    const int block = static_cast<int>(params.integer("block_size"));
    const int unroll = static_cast<int>(params.integer("unroll"));
    const double scalar = params.number("scalar");
    const bool streaming = params.text("cache_hint") == "streaming";
    const bool persistent = params.text("grid") == "persistent";
    const std::size_t n = arrays.n;
    const std::vector<std::string> wanted = params.texts("kernels");
    for (const OpInfo &op : kOps) {
        if (std::find(wanted.begin(), wanted.end(), op.name) == wanted.end()) continue;
        double *a = arrays.a.as<double>(), *b = arrays.b.as<double>(), *c = arrays.c.as<double>();
        double *x = nullptr, *y = nullptr, *o = nullptr;
        switch (op.op) {
        case StreamOp::Copy: x = a; o = c; break;
        case StreamOp::Scale: x = c; o = b; break;
        case StreamOp::Add: x = a; y = b; o = c; break;
        case StreamOp::Triad: x = b; y = c; o = a; break;
        }
        int resident = 0;  // persistent grid: as many blocks as fit on the device at once
        if (persistent)
            GM_CUDA(kernels::stream_resident_blocks(op.op, unroll, streaming, block, ctx.info().multiprocessors, &resident));
        auto launch = [=](cudaStream_t s) {
            return kernels::launch_stream(op.op, unroll, streaming, block, resident, x, y, o, scalar, n, s);
        };
        auto check = [&] {
            // Exact but for triad, where the device may fuse s*y + x into one rounding.
            check_doubles(arrays.host, [&](std::uint64_t i) { return host_reference(op.op, i, scalar); },
                          op.op == StreamOp::Triad ? 4e-16 : 0.0, std::string("stream ") + op.name,
                          "every output element compared with a host reference (triad within 4e-16 relative)", out);
        };
        Series s = declared_series(op.name, "stream", "array size", "bytes", Quantity::DramBandwidth,
                                   {{"block_size", block}, {"unroll", unroll}, {"cache_hint", params.text("cache_hint")},
                                    {"grid", params.text("grid")}, {"blocks", resident}, {"element_bytes", 8},
                                    {"vector_bytes", 16}});
        s.points.push_back(stream_point(ctx, arrays, launch, o, op.arrays_moved, check, out));
        out.series.push_back(std::move(s));
    }
}

// The vendor's copy on the same arrays in the same run: the figure the copy
// kernel must match.
void run_memcpy(ContextState &ctx, StreamArrays &arrays, Result &out) {
    void *dst = arrays.c.get();
    const void *src = arrays.a.get();
    const std::size_t bytes = arrays.array_bytes;
    auto launch = [=](cudaStream_t s) { return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s); };
    auto check = [&] {
        check_doubles(arrays.host, [](std::uint64_t i) { return pattern_double(i, kSeedA); }, 0.0, "cudaMemcpy",
                      "every output element compared with a host reference", out);
    };
    Series s = declared_series("cudaMemcpy", "cudaMemcpyAsync device-to-device", "array size", "bytes", Quantity::DramBandwidth);
    s.points.push_back(stream_point(ctx, arrays, launch, dst, 2.0, check, out));
    out.series.push_back(std::move(s));
}

// Key figures: each kernel against the theoretical peak, and copy against cudaMemcpy.
void record_stream_figures(const DeviceInfo &dev, Result &out) {
    const double theoretical = dev.theoretical_bandwidth_gbs();
    double copy_bw = 0, memcpy_bw = 0;
    for (const Series &s : out.series) {
        const double bw = bandwidth_gbs(s.points[0].bytes, s.points[0].time_ms.median);
        out.record(kKernelGbs, bw, {{"kernel", s.name}});
        if (theoretical > 0) out.record(kKernelOverTheoretical, bw / theoretical, {{"kernel", s.name}});
        if (s.name == "copy") copy_bw = bw;
        if (s.name == "cudaMemcpy") memcpy_bw = bw;
    }
    if (copy_bw > 0 && memcpy_bw > 0) out.record(kCopyOverMemcpy, copy_bw / memcpy_bw);
}

void run_stream(ContextState &ctx, const Params &params, Result &out) {
    StreamArrays arrays(ctx, array_bytes_for(ctx, params, out));
    run_stream_kernels(ctx, params, arrays, out);
    if (params.flag("include_memcpy")) run_memcpy(ctx, arrays, out);
    record_stream_figures(ctx.info(), out);
    out.notes.push_back("Bandwidth counts bytes read plus bytes written, as STREAM and the guide do: "
                        "copy and scale move 2 arrays, add and triad 3.");
}

// How reports draw stream's result and what they say it shows.
Chart stream_chart() {
    Chart c;
    c.kind = "bar";
    c.memcpy_series = "cudaMemcpy";
    c.explanation = "The bandwidth this device really reaches: STREAM's copy, scale, add and triad and cudaMemcpy on the same "
                    "arrays, counting bytes read plus written. Every other bandwidth in this report is best read as a fraction of these.";
    return c;
}

}  // namespace

void add_stream_experiments(std::vector<Experiment> &out) {
    Experiment e;
    e.name = "stream";
    e.guide_section = "Best Practices Guide: Performance Metrics, Effective Bandwidth Calculation";
    e.summary = "STREAM copy, scale, add and triad on double arrays: the attainable DRAM bandwidth every "
                "other figure is compared to, with cudaMemcpy device-to-device beside it.";
    e.params = {
        size_param("array_bytes", 0, 0, 1LL << 40, "bytes per array; 0 chooses max(4 x L2, 256 MiB) within the memory budget"),
        enum_list_param("kernels", {"copy", "scale", "add", "triad"}, {"copy", "scale", "add", "triad"},
                        "which STREAM kernels to time"),
        with_multiple_of(int_param("block_size", 256, 32, 1024, "threads per block", "threads"), 32),
        // One vector per thread measured fastest on an H200 (bench/stream_tune.sh):
        // consecutive blocks then stream through consecutive DRAM pages.
        with_allowed(int_param("unroll", 1, 1, 8, "16-byte vectors per thread, loaded before any is stored"), {1, 2, 4, 8}),
        enum_param("cache_hint", "default", {"default", "streaming"},
                   "default loads and stores, or the evict-first streaming hint (ld/st.global.cs)"),
        enum_param("grid", "one_pass", {"one_pass", "persistent"},
                   "one_pass: one block per chunk of the array; persistent: as many blocks as fit at once, looping"),
        double_param("scalar", 0.4, -1e6, 1e6, "the scalar of scale and triad"),
        bool_param("include_memcpy", true, "also time cudaMemcpyAsync device-to-device on the same arrays"),
    };
    e.axes = {{"kernels"}, ""};  // A series per kernel.
    e.run = run_stream;
    e.quick = {{"array_bytes", 64 * kMiB}};
    e.figures = {kKernelGbs, kKernelOverTheoretical, kCopyOverMemcpy};
    e.compared = {
        {"copy_gbs", "stream copy"},
        {"triad_gbs", "stream triad"},
        {"cudaMemcpy_gbs", "cudaMemcpy device to device"},
        {"copy_fraction_of_theoretical", "copy / theoretical bandwidth"},
    };
    e.chart = stream_chart();
    e.consistency = {
        gmvocab::agrees_on("dram_copy_bandwidth", "copy_gbs", "STREAM copy kernel, 2 x 256 MiB"),
        gmvocab::shown_beside("dram_copy_bandwidth", "cudaMemcpy_gbs", "cudaMemcpy device to device",
                              "the driver's copy, not the copy kernel"),
    };
    out.push_back(std::move(e));
}

}  // namespace gmlab
