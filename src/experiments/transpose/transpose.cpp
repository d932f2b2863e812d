// Experiment family "transpose": naive, shared-memory, padded and wide tiled
// transposes against our copy kernel on the same bytes.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/experiment/point_protocol.hpp"
#include "core/experiment/registry.hpp"
#include "core/measurement/harness.hpp"
#include "core/measurement/verify.hpp"
#include "experiments/common/point_checks.hpp"
#include "experiments/common/reference_copy.hpp"
#include "experiments/transpose/transpose.cuh"
#include "shared_kernels/fill_pattern.cuh"
#include "shared_kernels/pattern.hpp"

namespace gmlab {

namespace {

using kernels::TransposeKernel;
constexpr std::uint32_t kSeed = 77;

struct VariantInfo {
    const char *name;
    TransposeKernel kernel;
};
constexpr VariantInfo kVariants[] = {
    {"naive", TransposeKernel::Naive},
    {"shared", TransposeKernel::Shared},
    {"shared_padded", TransposeKernel::SharedPadded},
    {"wide", TransposeKernel::Wide},
};

// The headline figures, per element size ({word} bytes): the copy's
// bandwidth, each transpose against it, and what padding and wide elements add.
const Figure kCopyGbs{"copy_w{word}_gbs", "GB/s", Better::Higher, "bandwidth of the copy kernel on the matrix's bytes"};
const Figure kKernelOverCopy{"{kernel}_w{word}_over_copy", "ratio", Better::Higher,
                             "a transpose kernel's bandwidth over the copy's on the same bytes"};
const Figure kPaddedOverShared{"padded_over_shared_w{word}", "ratio", Better::Higher,
                               "the shared-memory transpose with a padded tile over the unpadded one (bank conflicts removed)"};
const Figure kWideOverPadded{"wide_over_padded_w{word}", "ratio", Better::Higher,
                             "the padded transpose moving wide elements over the padded one"};

// One matrix's input and output, and the host copy of the output.
struct TransposeArrays {
    TransposeArrays(ContextState &ctx, std::size_t rows_, std::size_t cols_, std::size_t element)
        : rows(rows_), cols(cols_), e(element), bytes(rows_ * cols_ * element), in(ctx, bytes), out(ctx, bytes), host(bytes / 4) {}
    std::size_t rows, cols, e, bytes;
    DeviceArray in, out;
    std::vector<std::uint32_t> host;
};

// One transpose kernel through the core's point protocol: the output
// poisoned, one launch checked word by word against the input word it must
// come from, then timed and counted.
Point measure_transpose(ContextState &ctx, const VariantInfo &v, TransposeArrays &m, Result &out) {
    const std::size_t rows = m.rows, cols = m.cols, bytes = m.bytes;
    const int e = static_cast<int>(m.e);
    const void *in = m.in.get();
    void *dst = m.out.get();
    CheckedLaunch point;
    point.launch = [=](cudaStream_t s) { return kernels::launch_transpose(v.kernel, e, in, dst, rows, cols, s); };
    point.poison = {{dst, bytes}};
    point.download = download_to(m.host.data(), dst, bytes);
    point.check = [&] {
        // out[c][r] == in[r][c], lane by lane.
        const std::uint64_t k = m.e / 4;  // 4-byte lanes per element
        auto source = [&](std::uint64_t t) {
            const std::uint64_t idx = t / k, lane = t % k;
            const std::uint64_t c = idx / rows, r = idx % rows;
            return (r * cols + c) * k + lane;
        };
        verify_equal(m.host.data(), bytes / 4, [&](std::uint64_t t) { return pattern_word(source(t), kSeed); },
                     std::string("transpose ") + v.name, "every output word compared with the input word it must come from", out);
    };
    Point p;
    p.x = static_cast<double>(bytes);
    p.bytes = 2.0 * static_cast<double>(bytes);
    // Counters: coalescing of the reads and writes, and the tile's bank conflicts.
    const CounterSet counters = counter_sets::global_sectors() + counter_sets::shared_banks();
    measure_checked(ctx, point, p, out, &counters);
    return p;
}

// The headline figures of one element size from each kernel's bandwidth.
void record_transpose_figures(const std::map<std::string, double> &bw, std::size_t e, Result &out) {
    const std::string w = std::to_string(e);
    // The copy's own bandwidth: a DRAM copy other experiments measure too (the run's consistency section).
    if (bw.count("copy")) out.record(kCopyGbs, bw.at("copy"), {{"word", w}});
    for (const auto &[name, gbs] : bw)
        if (name != "copy") record_ratio_if_measured(out, kKernelOverCopy, bw, name, "copy", {{"kernel", name}, {"word", w}});
    record_ratio_if_measured(out, kPaddedOverShared, bw, "shared_padded", "shared", {{"word", w}});
    record_ratio_if_measured(out, kWideOverPadded, bw, "wide", "shared_padded", {{"word", w}});
}

// Every kernel asked for, and the copy, on one element size.
void run_element_size(ContextState &ctx, const Params &params, std::size_t e, Result &out) {
    const std::size_t rows = params.integer("rows"), cols = params.integer("cols");
    const std::vector<std::string> wanted = params.texts("variants");
    require_memory(ctx, 2 * rows * cols * e, "transpose (" + std::to_string(rows) + " x " + std::to_string(cols) + " x " +
                                                 std::to_string(e) + " bytes, two matrices)");
    TransposeArrays m(ctx, rows, cols, e);
    GM_CUDA(kernels::launch_fill_pattern(m.in.as<std::uint32_t>(), m.bytes / 4, kSeed, ctx.stream()));
    const nlohmann::json attributes = {{"rows", rows}, {"cols", cols}, {"element_size", e}};
    std::map<std::string, double> bw;
    for (const VariantInfo &v : kVariants) {
        if (std::find(wanted.begin(), wanted.end(), v.name) == wanted.end()) continue;
        if (v.kernel == TransposeKernel::Wide && !kernels::transpose_wide_fits(static_cast<int>(e), rows, cols)) {
            out.notes.push_back(std::string("wide skipped for ") + std::to_string(e) +
                                "-byte elements: it needs 4-byte elements and dimensions that are multiples of 4");
            continue;
        }
        Series s = declared_series(std::string(v.name) + ", " + std::to_string(e) + "-byte elements", v.name, "matrix", "bytes",
                                   Quantity::DramBandwidth, attributes);
        s.points.push_back(measure_transpose(ctx, v, m, out));
        bw[v.name] = bandwidth_gbs(s.points[0].bytes, s.points[0].time_ms.median);
        out.series.push_back(std::move(s));
    }
    if (params.flag("include_copy") && m.bytes % 16 == 0) {
        // The same bytes through our STREAM copy kernel: the ceiling a transpose aims for.
        Series s = reference_copy_series(ctx, m.in.get(), m.out.get(), m.bytes, static_cast<double>(m.bytes), out, "transpose");
        s.name += ", " + std::to_string(e) + "-byte elements";
        s.x_name = "matrix";
        s.x_unit = "bytes";
        s.attributes = attributes;
        bw["copy"] = bandwidth_gbs(s.points[0].bytes, s.points[0].time_ms.median);
        out.series.push_back(std::move(s));
    }
    record_transpose_figures(bw, e, out);
}

// A one-point series per element size and kernel. The kernels run in their
// fixed order (naive, shared, shared_padded, wide), whatever the order asked,
// so only the element sizes are walked as given.
const SweepAxes kAxes{{"element_sizes", "variants"}, ""};
const SweepAxes kElementAxes{{"element_sizes"}, ""};

void run_transpose(ContextState &ctx, const Params &params, Result &out) {
    for (const Combination &c : Sweep(params, kElementAxes).combinations())
        run_element_size(ctx, params, static_cast<std::size_t>(c.integer("element_sizes")), out);
    out.notes.push_back("Effective bandwidth = 2 x matrix bytes / time (each element read once and written once). "
                        "naive: 32x8 threads, each moving 4 elements, reads coalesced and writes strided by the row count. "
                        "shared: the 32x32 tile through shared memory, coalesced both ways, but the column reads of the "
                        "tile all fall in one bank (32-way conflict). shared_padded: the tile padded to 33 columns. "
                        "wide: a 64x64 tile with 16-byte loads and stores on both sides and an XOR-swizzled layout "
                        "instead of padding, so that the tile's column reads are conflict-free.");
    out.notes.push_back("copy: our STREAM copy kernel on the same bytes, the bandwidth a transpose can at best reach.");
    out.published_source = "study notes (RTX 3050 Laptop, 4096 x 4096 int, 32 x 32 blocks), GB/s";
    out.published = {{"naive_gbs", 38.2}, {"shared_gbs", 69.4}, {"shared_padded_gbs", 102.6}};
}

// How reports draw transpose's result and what they say it shows.
Chart transpose_chart() {
    Chart c;
    c.kind = "bar";
    c.published_base = "naive";
    c.explanation = "Transposing through a shared tile makes both sides coalesced; padding removes the tile's bank conflicts; "
                    "the copy kernel on the same bytes is the ceiling.";
    return c;
}

}  // namespace

void add_transpose_experiments(std::vector<Experiment> &out) {
    Experiment e;
    e.name = "transpose";
    e.guide_section = "Best Practices Guide: Shared Memory (coalescing through shared memory, bank conflicts and padding)";
    e.summary = "Matrix transpose: naive, through a shared tile, padded tile, and a wide swizzled tile, against our copy "
                "kernel on the same bytes.";
    ParamSpec elems = int_list_param("element_sizes", {4, 8}, 4, 16, "bytes per element", "bytes");
    elems.allowed = {4, 8, 16};
    e.params = {
        int_param("rows", 8192, 1, static_cast<long long>(kernels::kTransposeMaxRows), "rows of the input matrix"),
        int_param("cols", 8192, 1, 1LL << 24, "columns of the input matrix"),
        std::move(elems),
        enum_list_param("variants", {"naive", "shared", "shared_padded", "wide"}, {"naive", "shared", "shared_padded", "wide"},
                        "transpose kernels to time"),
        bool_param("include_copy", true, "also time our copy kernel on the same bytes (the ceiling)"),
    };
    e.axes = kAxes;
    e.run = run_transpose;
    e.quick = {{"rows", 1024}, {"cols", 1024}};
    e.figures = {kCopyGbs, kKernelOverCopy, kPaddedOverShared, kWideOverPadded};
    e.compared = {
        {"padded_over_shared_w4", "padded / shared, 4-byte elements"},
        {"shared_padded_w4_over_copy", "padded shared / copy, 4-byte elements"},
        {"naive_w4_over_copy", "naive / copy, 4-byte elements"},
    };
    e.chart = transpose_chart();
    e.consistency = {
        gmvocab::agrees_on("dram_copy_bandwidth", "copy_w4_gbs", "the copy kernel on transpose's 4-byte matrix"),
        gmvocab::agrees_on("dram_copy_bandwidth", "copy_w8_gbs", "the copy kernel on transpose's 8-byte matrix"),
    };
    out.push_back(std::move(e));
}

}  // namespace gmlab
