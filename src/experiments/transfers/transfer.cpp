// Experiment family "host<->device transfers": bandwidth of cudaMemcpyAsync
// between host and device for pageable and pinned host memory over a sweep of
// sizes (transfer), and many small copies against one copy of the same bytes
// (transfer_batching).
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/device/host_memory.hpp"
#include "core/error.hpp"
#include "core/experiment/point_protocol.hpp"
#include "core/experiment/registry.hpp"
#include "core/measurement/harness.hpp"
#include "core/units.hpp"
#include "experiments/common/transfer_common.hpp"

namespace gmlab {

namespace {

constexpr std::uint32_t kSeed = 0x7a5f;
// The host side of one memory kind: a source the copies read and a
// destination they write, pinned or pageable, freed on every path.
struct HostPair {
    std::unique_ptr<PinnedHostBuffer> pinned_src, pinned_dst;
    std::unique_ptr<PageableHostBuffer> pageable_src, pageable_dst;
    unsigned char *src = nullptr, *dst = nullptr;

    HostPair(bool pinned, std::size_t bytes, const std::string &what) {
        if (pinned) {
            pinned_src = std::make_unique<PinnedHostBuffer>(bytes, cudaHostAllocDefault, what + " source");
            pinned_dst = std::make_unique<PinnedHostBuffer>(bytes, cudaHostAllocDefault, what + " destination");
            src = pinned_src->as<unsigned char>();
            dst = pinned_dst->as<unsigned char>();
        } else {
            pageable_src = std::make_unique<PageableHostBuffer>(bytes, what + " source");
            pageable_dst = std::make_unique<PageableHostBuffer>(bytes, what + " destination");
            src = pageable_src->as<unsigned char>();
            dst = pageable_dst->as<unsigned char>();
        }
    }
};

// transfer's headline figures, per host memory kind ({memory}: pinned or
// pageable) and direction ({direction}: h2d or d2h).
const Figure kPeakGbs{"{memory}_{direction}_peak_gbs", "GB/s", Better::Higher,
                      "highest host-link bandwidth over the sizes of one cudaMemcpyAsync between {memory} host memory and "
                      "the device ({direction})"};
const Figure kPeakOfLink{"{memory}_{direction}_peak_of_link", "ratio", Better::Higher,
                         "that highest bandwidth over the host link's theoretical one-way bandwidth"};
const Figure kGbsAtMaxSize{"{memory}_{direction}_gbs_at_max_size", "GB/s", Better::Higher,
                           "host-link bandwidth of one cudaMemcpyAsync of max_size bytes between {memory} host memory and "
                           "the device ({direction})"};
const Figure kPinnedOverPageable{"pinned_over_pageable_{direction}", "ratio", Better::Neither,
                                 "bandwidth of a max_size copy from or to pinned host memory over the same copy with "
                                 "pageable memory ({direction})"};

// transfer_batching's headline figures, per direction.
const Figure kOverheadUs{"{direction}_overhead_us", "us", Better::Lower,
                         "fixed cost per cudaMemcpyAsync between pinned host memory and the device ({direction}), "
                         "fitted: time = copies x overhead + bytes / bandwidth"};
const Figure kFitBandwidth{"{direction}_fit_bandwidth_gbs", "GB/s", Better::Higher,
                           "host-link bandwidth of the same fit's per-byte part ({direction})"};
const Figure kPenalty{"{direction}_penalty_{count}x{chunk}", "ratio", Better::Lower,
                      "time of {count} copies of {chunk} bytes each over the time of one copy of the same bytes ({direction})"};

// transfer: a series per host memory kind and direction, along sizes from
// min_size to max_size (not a list parameter). Its run measures both
// directions of a size after one round trip has checked that size, so its
// loops stay its own.
const SweepAxes kTransferAxes{{"memory", "directions"}, ""};
// transfer_batching: per direction and chunk size a pair of series (N copies,
// one copy of the same bytes) along the counts.
const SweepAxes kBatchingAxes{{"directions", "chunk_sizes"}, "counts"};

std::string direction_text(const std::string &dir) { return dir == "h2d" ? "host to device" : "device to host"; }

void check_sizes(const Params &params, std::size_t *lo, std::size_t *hi) {
    *lo = params.size("min_size");
    *hi = params.size("max_size");
    if (*lo > *hi)
        invalid("min_size (" + std::to_string(*lo) + ") must not exceed max_size (" + std::to_string(*hi) + ")");
}

// The check of one size: the source copied to the poisoned device buffer and
// back into the poisoned host destination must come back byte for byte.
CheckedLaunch round_trip(const DeviceArray &dev, const HostPair &host, std::size_t bytes, const std::string &what,
                         Result &out) {
    CheckedLaunch c;
    c.launch = [&dev, &host, bytes](cudaStream_t s) {
        return cudaMemcpyAsync(dev.get(), host.src, bytes, cudaMemcpyHostToDevice, s);
    };
    c.poison = {{dev.get(), bytes}};
    c.download = [&dev, &host, bytes](cudaStream_t s) {
        std::memset(host.dst, 0x5A, bytes);  // host memory: poisoned here, the device buffer by the harness
        GM_CUDA(cudaMemcpyAsync(host.dst, dev.get(), bytes, cudaMemcpyDeviceToHost, s));
    };
    c.check = [&host, bytes, what, &out] { check_same_bytes(host.dst, host.src, bytes, what, out); };
    return c;
}

void run_transfer(ContextState &ctx, const Params &params, Result &out) {
    std::size_t lo = 0, hi = 0;
    check_sizes(params, &lo, &hi);
    const std::vector<std::size_t> sizes = size_sweep(lo, hi, static_cast<double>(params.integer("points_per_octave")));
    const std::vector<std::string> dirs = params.texts("directions");
    const std::vector<std::string> kinds = params.texts("memory");
    // Everything is checked before the first allocation: one device buffer of
    // max_size, and per memory kind (one kind at a time) a source and a destination.
    require_memory(ctx, hi, "transfer (a device buffer of max_size)");
    require_host_memory(2 * hi, ctx.settings.memory_fraction, "transfer (a host source and destination of max_size)");
    DeviceArray dev(ctx, hi);
    const double link_gbs = use_host_link_reference(ctx.info(), 1, out);
    std::map<std::string, double> largest_gbs;
    for (const std::string &kind : kinds) {
        const bool pinned = kind == "pinned";
        HostPair host(pinned, hi, "transfer (" + kind + ")");
        fill_pattern_host(host.src, hi, kSeed);
        std::map<std::string, Series> series;
        for (const std::string &dir : dirs) {
            Series s;
            s.name = kind + ", " + direction_text(dir);
            s.variant = kind + "_" + dir;
            s.x_name = "transfer size";
            s.x_unit = "bytes";
            s.quantity = Quantity::LinkBandwidth;
            s.attributes = {{"memory", kind}, {"direction", dir}};
            series[dir] = std::move(s);
        }
        for (std::size_t bytes : sizes) {
            // A round trip through freshly poisoned buffers must return the source.
            run_checked(ctx, round_trip(dev, host, bytes, "transfer " + kind + " round trip of " + size_text(bytes), out));
            for (const std::string &dir : dirs) {
                const bool h2d = dir == "h2d";
                auto launch = [&, h2d, bytes](cudaStream_t s) {
                    return h2d ? cudaMemcpyAsync(dev.get(), host.src, bytes, cudaMemcpyHostToDevice, s)
                               : cudaMemcpyAsync(host.dst, dev.get(), bytes, cudaMemcpyDeviceToHost, s);
                };
                Point p;
                p.x = static_cast<double>(bytes);
                p.bytes = static_cast<double>(bytes);
                p.time_ms = time_launch(ctx, launch);
                p.values["us_per_copy"] = p.time_ms.median * 1e3;
                series[dir].points.push_back(std::move(p));
            }
        }
        for (const std::string &dir : dirs) {
            Series &s = series[dir];
            double peak = 0;
            for (const Point &p : s.points) peak = std::max(peak, bandwidth_gbs(p.bytes, p.time_ms.median));
            const FigureAt at = {{"memory", kind}, {"direction", dir}};
            out.record(kPeakGbs, peak, at);
            if (link_gbs > 0) out.record(kPeakOfLink, peak / link_gbs, at);
            largest_gbs[s.variant] = bandwidth_gbs(s.points.back().bytes, s.points.back().time_ms.median);
            out.record(kGbsAtMaxSize, largest_gbs[s.variant], at);
            out.series.push_back(std::move(s));
        }
    }
    for (const std::string &dir : dirs)
        if (largest_gbs.count("pinned_" + dir) && largest_gbs.count("pageable_" + dir) && largest_gbs["pageable_" + dir] > 0)
            out.record(kPinnedOverPageable, largest_gbs["pinned_" + dir] / largest_gbs["pageable_" + dir], {{"direction", dir}});
    out.notes.push_back("Each point is one cudaMemcpyAsync on the context's stream between events, with a short kernel queued "
                        "ahead so that the copy is already enqueued when the start event fires (the host's call overhead "
                        "stays out of the figure, as nvbandwidth does). Every size was first copied there and back through "
                        "poisoned buffers and compared byte for byte with the source.");
    out.notes.push_back("Pinned (page-locked, cudaHostAlloc) memory is read and written by the copy engine directly. Pageable "
                        "memory is staged by the driver through its own pinned buffers: a host-to-device call returns once its "
                        "data is staged, a device-to-host call once the copy has finished, so the time includes the host's "
                        "memcpy into or out of the staging buffers. The guide: pinned memory gives the highest bandwidth "
                        "between host and device, but it is a scarce resource; do not over-allocate it.");
    out.notes.push_back("Small transfers are dominated by a fixed cost per copy (microseconds): bandwidth rises with size until "
                        "the link (PCIe or NVLink-C2C) is the limit.");
}

// transfer_batching's buffers: a device array and a pinned source and
// destination on the host, each of max(counts) x max(chunk_sizes) bytes.
struct BatchBuffers {
    unsigned char *dev, *src, *dst;
};

// One point's copies: N cudaMemcpyAsync calls of one chunk each (batched), or
// one call of the same N x chunk bytes.
Launch batch_launch(BatchBuffers b, bool h2d, bool batched, std::size_t n, std::size_t chunk) {
    return [=](cudaStream_t stream) -> cudaError_t {
        const std::size_t pieces = batched ? n : 1, piece = batched ? chunk : n * chunk;
        for (std::size_t i = 0; i < pieces; ++i) {
            const std::size_t off = i * piece;
            cudaError_t e = h2d ? cudaMemcpyAsync(b.dev + off, b.src + off, piece, cudaMemcpyHostToDevice, stream)
                                : cudaMemcpyAsync(b.dst + off, b.dev + off, piece, cudaMemcpyDeviceToHost, stream);
            if (e != cudaSuccess) return e;
        }
        return cudaSuccess;
    };
}

// The check that the pieces together make the whole copy: host to device
// into the poisoned device array, read back into the poisoned host
// destination; device to host from the source's bytes uploaded first, into
// the poisoned host destination.
CheckedLaunch batch_checked(ContextState &ctx, BatchBuffers b, bool h2d, const Launch &launch, std::size_t bytes,
                            const std::string &what, Result &out) {
    CheckedLaunch c;
    c.launch = launch;
    if (h2d) {
        c.poison = {{b.dev, bytes}};
        c.download = [b, bytes](cudaStream_t s) {
            std::memset(b.dst, 0x5A, bytes);
            GM_CUDA(cudaMemcpyAsync(b.dst, b.dev, bytes, cudaMemcpyDeviceToHost, s));
        };
    } else {
        GM_CUDA(cudaMemcpyAsync(b.dev, b.src, bytes, cudaMemcpyHostToDevice, ctx.stream()));
        GM_CUDA(cudaStreamSynchronize(ctx.stream()));
        std::memset(b.dst, 0x5A, bytes);  // the output is host memory: poisoned here, not by the harness
    }
    c.check = [b, bytes, what, &out] { check_same_bytes(b.dst, b.src, bytes, what, out); };
    return c;
}

// The points of one direction, kept for the fit: copies, megabytes, time.
struct BatchFit {
    std::vector<double> copies, mb, ms;
};

// One series: for each N, the copies checked, then timed.
Series batch_series(ContextState &ctx, BatchBuffers b, const std::string &dir, std::size_t chunk, bool batched,
                    const std::vector<long long> &counts, BatchFit &fit, Result &out) {
    const bool h2d = dir == "h2d";
    Series s;
    s.name = dir + ": " + (batched ? "N copies of " + size_text(chunk) : "one copy of N x " + size_text(chunk));
    s.variant = batched ? "many" : "one";
    s.x_name = "N";
    s.x_unit = "copies";
    s.quantity = Quantity::LinkBandwidth;
    s.attributes = {{"direction", dir}, {"chunk_bytes", chunk}, {"batched", batched}};
    for (long long n_ll : counts) {
        const std::size_t n = static_cast<std::size_t>(n_ll), bytes = n * chunk;
        const Launch launch = batch_launch(b, h2d, batched, n, chunk);
        Point p;
        p.x = static_cast<double>(n);
        p.bytes = static_cast<double>(bytes);
        measure_checked(ctx, batch_checked(ctx, b, h2d, launch, bytes, "transfer_batching " + s.name + ", N = " + std::to_string(n), out),
                        p, out);
        const double copies = batched ? static_cast<double>(n) : 1.0;
        p.values["copies"] = copies;
        p.values["us_per_copy"] = p.time_ms.median * 1e3 / copies;
        fit.copies.push_back(copies);
        fit.mb.push_back(static_cast<double>(bytes) / 1e6);
        fit.ms.push_back(p.time_ms.median);
        s.points.push_back(std::move(p));
    }
    return s;
}

// time = copies x overhead + bytes / bandwidth over every point of one
// direction: the figures, and the line as each point's prediction.
void fit_direction(const std::string &dir, const BatchFit &fit, std::vector<Series> &made, Result &out) {
    double overhead_ms = 0, ms_per_mb = 0;
    if (!fit_two(fit.copies, fit.mb, fit.ms, &overhead_ms, &ms_per_mb)) return;
    out.record(kOverheadUs, overhead_ms * 1e3, {{"direction", dir}});
    if (ms_per_mb > 0) out.record(kFitBandwidth, 1.0 / ms_per_mb, {{"direction", dir}});
    for (Series &s : made)
        for (Point &p : s.points) {
            const double line_ms = overhead_ms * p.values["copies"] + ms_per_mb * p.bytes / 1e6;
            p.predicted["linear_fit_ms"] = line_ms;
            if (line_ms > 0) p.predicted["linear_fit_gbs"] = bandwidth_gbs(p.bytes, line_ms);
        }
}

// The penalty of batching at the largest N: N copies over one copy of the
// same bytes, from the last two series made (many copies, then one).
void record_penalty(const std::vector<Series> &made, const std::string &dir, std::size_t chunk, long long max_count,
                    Result &out) {
    const Series &many = made[made.size() - 2], &one = made.back();
    for (std::size_t i = 0; i < many.points.size(); ++i)
        if (many.points[i].x == static_cast<double>(max_count))
            out.record(kPenalty, many.points[i].time_ms.median / one.points[i].time_ms.median,
                       {{"direction", dir}, {"count", std::to_string(max_count)}, {"chunk", std::to_string(chunk)}});
}

void run_transfer_batching(ContextState &ctx, const Params &params, Result &out) {
    const Sweep sweep(params, kBatchingAxes);
    const std::vector<long long> counts = sweep.xs();
    const std::vector<long long> chunks = params.integers("chunk_sizes");
    const long long max_count = *std::max_element(counts.begin(), counts.end());
    const long long max_chunk = *std::max_element(chunks.begin(), chunks.end());
    const std::size_t total = static_cast<std::size_t>(max_count) * static_cast<std::size_t>(max_chunk);
    require_memory(ctx, total, "transfer_batching (max(counts) x max(chunk_sizes) bytes on the device)");
    require_host_memory(2 * total, ctx.settings.memory_fraction,
                        "transfer_batching (two pinned host buffers of max(counts) x max(chunk_sizes))");
    DeviceArray dev(ctx, total);
    PinnedHostBuffer src(total, cudaHostAllocDefault, "transfer_batching source");
    PinnedHostBuffer dst(total, cudaHostAllocDefault, "transfer_batching destination");
    fill_pattern_host(src.get(), total, kSeed);
    use_host_link_reference(ctx.info(), 1, out);
    const BatchBuffers b{dev.as<unsigned char>(), src.as<unsigned char>(), dst.as<unsigned char>()};

    // Each direction's series are fitted together, so they are written once
    // its last chunk size is measured.
    BatchFit fit;
    std::vector<Series> made;
    for (const Combination &c : sweep.combinations()) {
        const std::string &dir = c.text("directions");
        const std::size_t chunk = static_cast<std::size_t>(c.integer("chunk_sizes"));
        if (c.starts("directions")) {
            fit = BatchFit{};
            made.clear();
        }
        for (bool batched : {true, false}) made.push_back(batch_series(ctx, b, dir, chunk, batched, counts, fit, out));
        record_penalty(made, dir, chunk, max_count, out);
        if (c.ends("directions")) {
            fit_direction(dir, fit, made, out);
            for (Series &s : made) out.series.push_back(std::move(s));
        }
    }
    out.notes.push_back("Each point copies N x chunk bytes between pinned host memory and the device, either as N "
                        "cudaMemcpyAsync calls of one chunk each or as one call. The guide: because of the overhead "
                        "associated with each transfer, batching many small transfers into one larger transfer performs "
                        "significantly better than making each transfer separately.");
    out.notes.push_back("summary <dir>_overhead_us and <dir>_fit_bandwidth_gbs come from a least-squares fit of every point of "
                        "that direction to time = copies x overhead + bytes / bandwidth (predicted.linear_fit_ms, and as a bandwidth "
                        "predicted.linear_fit_gbs). With many "
                        "copies the host is still enqueuing when the start event fires, so the overhead is what an "
                        "application pays per call: the slower of the host's submission and the copy engine's per-transfer set-up.");
}

Chart transfer_chart() {
    Chart c;
    c.kind = "line";
    c.x_title = "transfer size (MiB)";
    c.x_log = true;
    c.explanation = "Host-device copy bandwidth against size. The guide: pinned (page-locked) memory gives the highest bandwidth, "
                    "pageable memory is staged through the driver's pinned buffers and is slower. Look for the plateau the "
                    "link allows (PCIe or NVLink-C2C), the size where it is reached (small copies pay a fixed cost per "
                    "transfer), and the pinned / pageable ratio in the key figures.";
    return c;
}

Chart transfer_batching_chart() {
    Chart c;
    c.kind = "line";
    c.x_title = "N (copies)";
    c.x_log = true;
    c.y_log = true;
    c.prediction = "predicted.linear_fit_gbs";
    c.prediction_relative = false;
    c.prediction_label = "fit: N x overhead + bytes / bandwidth";
    c.explanation = "N small copies against one copy of the same N x chunk bytes. The guide: each transfer has an overhead, so "
                    "batching many small transfers into one performs significantly better. The gap between the two curves "
                    "of a chunk size is that overhead; the key figures give it in microseconds from a linear fit.";
    return c;
}

}  // namespace

void add_transfer_experiments(std::vector<Experiment> &out) {
    Experiment t;
    t.name = "transfer";
    t.guide_section = "Best Practices Guide: Data Transfer Between Host and Device; Pinned Memory";
    t.summary = "Host-to-device and device-to-host bandwidth of cudaMemcpyAsync for pageable and pinned host memory, "
                "4 KiB to 256 MiB.";
    t.params = {
        size_param("min_size", 4096, 1, 1LL << 40, "smallest transfer"),
        size_param("max_size", 256LL << 20, 1, 1LL << 40, "largest transfer (one device buffer and, per memory kind, "
                                                          "two host buffers of this size)"),
        int_param("points_per_octave", 1, 1, 8, "sizes per doubling: 1 gives powers of two from min_size"),
        enum_list_param("directions", {"h2d", "d2h"}, {"h2d", "d2h"}, "h2d: host to device; d2h: device to host"),
        enum_list_param("memory", {"pinned", "pageable"}, {"pinned", "pageable"},
                        "host memory: pinned (cudaHostAlloc) and/or pageable (malloc)"),
    };
    t.axes = kTransferAxes;
    t.run = run_transfer;
    t.quick = {{"min_size", 64 * 1024}, {"max_size", 4 * kMiB}, {"points_per_octave", 1}};
    t.figures = {kPeakGbs, kPeakOfLink, kGbsAtMaxSize, kPinnedOverPageable, host_link_figure()};
    t.compared = {
        {"pinned_h2d_peak_gbs", "pinned host to device, peak"},
        {"pinned_d2h_peak_gbs", "pinned device to host, peak"},
        {"pinned_over_pageable_h2d", "pinned / pageable, host to device"},
    };
    t.chart = transfer_chart();
    // The same copy as transfer_batching's one call of 1024 x 64 KiB: the two must agree.
    t.consistency = {
        gmvocab::agrees_on("pinned_h2d_bandwidth", "pinned, host to device@67108864", "cudaMemcpyAsync of 64 MiB from pinned memory"),
        gmvocab::shown_beside("pinned_h2d_bandwidth", "pinned_h2d_peak_gbs", "cudaMemcpyAsync from pinned memory, best size",
                              "the largest of the sizes' medians: the best of several measurements, not one"),
    };
    out.push_back(std::move(t));

    Experiment b;
    b.name = "transfer_batching";
    b.guide_section = "Best Practices Guide: Data Transfer Between Host and Device";
    b.summary = "N small copies against one copy of the same bytes: the fixed cost of each transfer, fitted.";
    b.params = {
        int_list_param("counts", {1, 16, 128, 1024}, 1, 65536, "N: copies per point", "copies"),
        int_list_param("chunk_sizes", {4096, 65536}, 1, 1LL << 26, "bytes per small copy", "bytes"),
        enum_list_param("directions", {"h2d", "d2h"}, {"h2d", "d2h"}, "h2d: host to device; d2h: device to host"),
    };
    b.axes = kBatchingAxes;
    b.run = run_transfer_batching;
    b.quick = {{"counts", {1, 16}}, {"chunk_sizes", {4096}}};
    b.figures = {kOverheadUs, kFitBandwidth, kPenalty, host_link_figure()};
    b.compared = {
        {"h2d_overhead_us", "fixed cost per host to device copy"},
        {"h2d_penalty_1024x4096", "1024 copies of 4 KiB / one copy"},
    };
    b.chart = transfer_batching_chart();
    b.consistency = {
        gmvocab::agrees_on("pinned_h2d_bandwidth", "h2d: one copy of N x 64 KiB@1024", "the same copy: 1024 x 64 KiB in one call"),
        gmvocab::shown_beside("pinned_h2d_bandwidth", "h2d_fit_bandwidth_gbs", "pinned copies, the bandwidth of time against size fitted",
                              "a straight line through copies of 4 KiB to 64 MiB: the fixed cost it fits takes part of every size's time"),
    };
    out.push_back(std::move(b));
}

}  // namespace gmlab
