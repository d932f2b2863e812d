// Experiment family "transpose": naive, shared-memory, padded and wide tiled
// transposes against our copy kernel on the same bytes.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/experiment/registry.hpp"
#include "core/measurement/harness.hpp"
#include "core/measurement/verify.hpp"
#include "experiments/common/reference_copy.hpp"
#include "operations/transpose.hpp"
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

void run_transpose(ContextState &ctx, const Params &params, Result &out) {
    const std::size_t rows = params.integer("rows"), cols = params.integer("cols");
    const std::vector<std::string> wanted = params.texts("variants");
    cudaStream_t st = ctx.stream();
    for (long long e_ll : params.integers("element_sizes")) {
        const std::size_t e = static_cast<std::size_t>(e_ll);
        const std::size_t bytes = rows * cols * e;
        require_memory(ctx, 2 * bytes, "transpose (" + std::to_string(rows) + " x " + std::to_string(cols) + " x " +
                                           std::to_string(e) + " bytes, two matrices)");
        DeviceArray in(ctx, bytes), outbuf(ctx, bytes);
        GM_CUDA(kernels::launch_fill_pattern(in.as<std::uint32_t>(), bytes / 4, kSeed, st));
        const std::uint64_t k = e / 4;  // 4-byte lanes per element
        std::vector<std::uint32_t> host(bytes / 4);
        std::map<std::string, double> bw;
        for (const VariantInfo &v : kVariants) {
            if (std::find(wanted.begin(), wanted.end(), v.name) == wanted.end()) continue;
            if (v.kernel == TransposeKernel::Wide && !kernels::transpose_wide_fits(static_cast<int>(e), rows, cols)) {
                out.notes.push_back(std::string("wide skipped for ") + std::to_string(e) +
                                    "-byte elements: it needs 4-byte elements and dimensions that are multiples of 4");
                continue;
            }
            auto launch = [&](cudaStream_t s) {
                return kernels::launch_transpose(v.kernel, static_cast<int>(e), in.get(), outbuf.get(), rows, cols, s);
            };
            run_checked(ctx, {launch, {{outbuf.get(), bytes}}, download_to(host.data(), outbuf.get(), bytes), {}});
            // out[c][r] == in[r][c], lane by lane.
            auto source = [&](std::uint64_t t) {
                const std::uint64_t idx = t / k, lane = t % k;
                const std::uint64_t c = idx / rows, r = idx % rows;
                return (r * cols + c) * k + lane;
            };
            const std::uint64_t n = bytes / 4;
            const std::uint64_t bad = first_mismatch(n, [&](std::uint64_t t) { return host[t] == pattern_word(source(t), kSeed); });
            if (bad < n)
                verification_failed(std::string("transpose ") + v.name, bad, std::to_string(pattern_word(source(bad), kSeed)),
                                    std::to_string(host[bad]));
            out.verified(n, "every output word compared with the input word it must come from");
            Series s;
            s.name = std::string(v.name) + ", " + std::to_string(e) + "-byte elements";
            s.variant = v.name;
            s.x_name = "matrix";
            s.x_unit = "bytes";
            s.quantity = Quantity::DramBandwidth;
            s.attributes = {{"rows", rows}, {"cols", cols}, {"element_size", e}};
            Point p;
            p.x = static_cast<double>(bytes);
            p.bytes = 2.0 * static_cast<double>(bytes);
            p.time_ms = time_launch(ctx, launch);
            // Counters: coalescing of the reads and writes, and the tile's bank conflicts.
            measure_counters(ctx, launch, counter_sets::global_sectors() + counter_sets::shared_banks(), p, out);
            bw[v.name] = bandwidth_gbs(p.bytes, p.time_ms.median);
            s.points.push_back(std::move(p));
            out.series.push_back(std::move(s));
        }
        if (params.flag("include_copy") && bytes % 16 == 0) {
            // The same bytes through our STREAM copy kernel: the ceiling a transpose aims for.
            Series s = reference_copy_series(ctx, in.get(), outbuf.get(), bytes, static_cast<double>(bytes), out, "transpose");
            s.name += ", " + std::to_string(e) + "-byte elements";
            s.x_name = "matrix";
            s.x_unit = "bytes";
            s.attributes = {{"rows", rows}, {"cols", cols}, {"element_size", e}};
            bw["copy"] = bandwidth_gbs(s.points[0].bytes, s.points[0].time_ms.median);
            out.series.push_back(std::move(s));
        }
        const std::string w = std::to_string(e);
        // The copy's own bandwidth: a DRAM copy other experiments measure too (the run's consistency section).
        if (bw.count("copy")) out.record(kCopyGbs, bw["copy"], {{"word", w}});
        for (const auto &[name, gbs] : bw)
            if (name != "copy" && bw.count("copy")) out.record(kKernelOverCopy, gbs / bw["copy"], {{"kernel", name}, {"word", w}});
        if (bw.count("shared") && bw.count("shared_padded"))
            out.record(kPaddedOverShared, bw["shared_padded"] / bw["shared"], {{"word", w}});
        if (bw.count("wide") && bw.count("shared_padded"))
            out.record(kWideOverPadded, bw["wide"] / bw["shared_padded"], {{"word", w}});
    }
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
    e.run = run_transpose;
    e.quick = {{"rows", 1024}, {"cols", 1024}};
    e.figures = {kCopyGbs, kKernelOverCopy, kPaddedOverShared, kWideOverPadded};
    e.compared = {
        {"padded_over_shared_w4", "padded / shared, 4-byte elements"},
        {"shared_padded_w4_over_copy", "padded shared / copy, 4-byte elements"},
        {"naive_w4_over_copy", "naive / copy, 4-byte elements"},
    };
    e.chart = transpose_chart();
    out.push_back(std::move(e));
}

}  // namespace gmlab
