// Experiment family "L2 cache": the guide's sliding-window benchmark of the
// persisting access window (Best Practices Guide, L2 Cache: L2 Cache Access
// Window and Tuning the Access Window Hit-Ratio).
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "core/device/host_memory.hpp"
#include "core/device/l2_window.hpp"
#include "core/error.hpp"
#include "core/experiment/point_protocol.hpp"
#include "core/experiment/registry.hpp"
#include "core/measurement/harness.hpp"
#include "core/measurement/verify.hpp"
#include "core/units.hpp"
#include "experiments/l2_persist/l2_persist.cuh"
#include "shared_kernels/fill_pattern.cuh"
#include "shared_kernels/pattern.hpp"

namespace gmlab {

namespace {

constexpr std::uint32_t kSeedPersistent = 101, kSeedStreaming = 202;
struct WindowChoice {
    const char *name;       // series name
    const char *label;      // key prefix in the summary
};

// The headline figures: each window's speed-up over no window at three
// points of the sweep, and the sizes the sweep was planned from.
const Figure kSpeedupFitting{"{window}_speedup_fitting", "ratio", Better::Neither,
                             "time without a window over time with this window (hit_ratio_1 or tuned), at the "
                             "largest persistent region that fits the set-aside"};
const Figure kSpeedupLargest{"{window}_speedup_largest", "ratio", Better::Neither,
                             "time without a window over time with this window (hit_ratio_1 or tuned), at the "
                             "largest persistent region of the sweep"};
const Figure kSpeedupBest{"{window}_speedup_best", "ratio", Better::Neither,
                          "the largest speed-up of this window (hit_ratio_1 or tuned) over no window, any region"};
const Figure kL2Bytes{"l2_bytes", "bytes", Better::Neither, "the L2 size the device reports"};
const Figure kSetAsideGranted{"set_aside_granted_bytes", "bytes", Better::Neither,
                              "the persisting L2 set-aside the device granted for the run"};
const Figure kMaxWindow{"max_window_bytes", "bytes", Better::Neither,
                        "the largest access policy window the device allows"};
const Figure kStreamingBytes{"streaming_bytes", "bytes", Better::Neither,
                             "the streaming region read and written once per launch beside the persistent one"};

constexpr WindowChoice kChoices[] = {
    {"no window", "none"},
    {"window, hit ratio 1.0", "hit_ratio_1"},
    {"tuned window, hit ratio = set-aside / region", "tuned"},
};

// What the sweep is planned from: the set-aside granted, the streaming
// region, and the persistent region sizes.
struct SweepPlan {
    L2Limits limits;
    std::size_t wanted_set_aside = 0, granted = 0;
    std::size_t streaming_bytes = 0;
    std::uint32_t n_streaming = 0;
    std::vector<std::size_t> sizes;  // persistent regions, ascending
};

// Asks for the set-aside (which stays granted while the experiment runs) and
// plans the regions: k/points of max_over_set_aside x the set-aside granted.
SweepPlan plan_sweep(ContextState &ctx, const Params &params, const L2Limits &limits) {
    SweepPlan plan;
    plan.limits = limits;
    plan.wanted_set_aside = params.is_auto("set_aside_bytes") ? limits.persisting_max : params.size("set_aside_bytes");
    plan.granted = set_persisting_size(ctx, plan.wanted_set_aside);
    if (plan.granted == 0) fail(GM_ERROR_NOT_SUPPORTED, "the device granted no persisting L2 set-aside");

    std::size_t streaming_bytes = params.is_auto("streaming_bytes")
                                      ? std::max<std::size_t>(16 * limits.l2_bytes, 512 * kMiB)
                                      : params.size("streaming_bytes");
    plan.streaming_bytes = std::min<std::size_t>(streaming_bytes, (std::size_t(1) << 32) - 4096) / 4 * 4;
    plan.n_streaming = static_cast<std::uint32_t>(plan.streaming_bytes / 4);

    const int points = static_cast<int>(params.integer("sweep_points"));
    const double top = params.number("max_over_set_aside") * static_cast<double>(plan.granted);
    for (int k = 1; k <= points; ++k) {
        std::size_t s = static_cast<std::size_t>(top * k / points) / 256 * 256;
        s = std::min(s, static_cast<std::size_t>(plan.n_streaming) * 4);
        if (s >= 256 && (plan.sizes.empty() || s != plan.sizes.back())) plan.sizes.push_back(s);
    }
    if (plan.sizes.empty()) invalid("the sweep holds no persistent region of at least 256 bytes; raise max_over_set_aside");
    return plan;
}

// The device arrays and the host copy the check reads.
struct Regions {
    DeviceArray &persistent, &streaming;
    StagingBuffer &staging;
};

Series window_series(const WindowChoice &choice, const SweepPlan &plan, int block, const std::string &miss_property) {
    Series series;
    series.name = choice.name;
    series.variant = choice.label;
    series.x_name = "persistent region";
    series.x_unit = "bytes";
    series.y_field = "median_ms";
    series.y_name = "time per launch";
    series.y_unit = "ms";
    // Global accesses that the persisting window keeps in L2 and the
    // streaming rest that goes to DRAM: no fraction of DRAM's peak.
    series.quantity = Quantity::L2Bandwidth;
    series.attributes = {{"set_aside_bytes", plan.granted}, {"streaming_bytes", plan.streaming_bytes},
                         {"block_size", block}, {"miss_property", miss_property}};
    return series;
}

// The hit ratio of a window choice over a window of `window` bytes (0: no window).
double hit_ratio_of(const WindowChoice &choice, std::size_t granted, std::size_t window) {
    if (std::string(choice.label) == "hit_ratio_1") return 1.0;
    // The guide's tuning: keep the window over the whole region and let only
    // set-aside / region of its lines persist.
    if (std::string(choice.label) == "tuned")
        return std::min(1.0, static_cast<double>(granted) / static_cast<double>(window));
    return 0.0;
}

// One point: the window set, the streaming region filled afresh, then the
// point protocol (run once, every streaming element checked, timed, counted).
// The kernel updates the streaming region in place, so it is its own input
// and is not poisoned: an element the kernel skipped keeps its pattern and
// fails the check.
Point measure_region(ContextState &ctx, const WindowChoice &choice, const SweepPlan &plan, std::size_t region,
                     Regions &r, int block, int miss, Result &out) {
    cudaStream_t st = ctx.stream();
    const std::uint32_t n_persistent = static_cast<std::uint32_t>(region / 4), n_streaming = plan.n_streaming;
    const std::size_t window = std::min(region, plan.limits.max_window);
    const double hit_ratio = hit_ratio_of(choice, plan.granted, window);
    reset_window(ctx);
    if (hit_ratio > 0) set_window(ctx, r.persistent.get(), window, hit_ratio, GM_ACCESS_PERSISTING, miss);

    auto launch = [&](cudaStream_t s) {
        return kernels::launch_sliding_window(r.persistent.as<std::uint32_t>(), n_persistent,
                                              r.streaming.as<std::uint32_t>(), n_streaming, block, s);
    };
    const std::uint32_t *host = r.staging.as<std::uint32_t>();
    auto check = [&] {
        const std::uint64_t bad = first_mismatch(n_streaming, [&](std::uint64_t i) {
            return host[i] == pattern_word(i, kSeedStreaming) + pattern_word(i % n_persistent, kSeedPersistent);
        });
        if (bad < n_streaming)
            verification_failed("l2_persist " + std::string(choice.label) + " region " + std::to_string(region), bad,
                                std::to_string(pattern_word(bad, kSeedStreaming) +
                                               pattern_word(bad % n_persistent, kSeedPersistent)),
                                std::to_string(host[bad]));
        out.verified(n_streaming, "every streaming element compared with the host's sum of the two patterns");
    };
    GM_CUDA(kernels::launch_fill_pattern(r.streaming.as<std::uint32_t>(), n_streaming, kSeedStreaming, st));

    Point p;
    p.x = static_cast<double>(region);
    // Per thread: one streaming read and write, one persistent read.
    p.bytes = 3.0 * 4.0 * n_streaming;
    p.values["window_bytes"] = hit_ratio > 0 ? static_cast<double>(window) : 0.0;
    p.values["hit_ratio"] = hit_ratio;
    p.values["region_over_set_aside"] = static_cast<double>(region) / static_cast<double>(plan.granted);
    // Counters: a persisting window that works shows as a higher L2 hit rate and fewer DRAM bytes.
    const CounterSet counters = counter_sets::dram();
    measure_checked(ctx, {launch, {}, download_to(r.staging.as<void>(), r.streaming.get(), plan.streaming_bytes), check}, p,
                    out, &counters);
    return p;
}

// Speed-ups over the no-window series at the same region size.
void record_speedups(Result &out, const SweepPlan &plan, std::size_t fitting) {
    const Series *none = nullptr;
    for (const Series &s : out.series)
        if (s.variant == "none") none = &s;
    if (!none) return;
    for (Series &s : out.series) {
        if (&s == none) continue;
        double best = 0;
        const FigureAt at = {{"window", s.variant}};
        for (std::size_t i = 0; i < s.points.size(); ++i) {
            const double speedup = none->points[i].time_ms.median / s.points[i].time_ms.median;
            s.points[i].values["speedup_over_no_window"] = speedup;
            best = std::max(best, speedup);
            if (static_cast<std::size_t>(s.points[i].x) == fitting) out.record(kSpeedupFitting, speedup, at);
            if (static_cast<std::size_t>(s.points[i].x) == plan.sizes.back()) out.record(kSpeedupLargest, speedup, at);
        }
        out.record(kSpeedupBest, best, at);
    }
}

void add_l2_persist_notes(Result &out, const SweepPlan &plan, std::size_t fitting, std::size_t past) {
    const L2Limits &limits = plan.limits;
    out.notes.push_back("L2 is " + mib_text(static_cast<double>(limits.l2_bytes)) + "; the set-aside granted for persisting lines is " +
                        mib_text(static_cast<double>(plan.granted)) + " (asked " + mib_text(static_cast<double>(plan.wanted_set_aside)) +
                        ", device maximum " + mib_text(static_cast<double>(limits.persisting_max)) + "); the largest window is " +
                        mib_text(static_cast<double>(limits.max_window)) + ".");
    if (fitting) out.notes.push_back("Largest persistent region that fits the set-aside: " + mib_text(static_cast<double>(fitting)) + ".");
    if (past)
        out.notes.push_back("The sweep crosses the set-aside between " + mib_text(static_cast<double>(fitting)) + " and " +
                            mib_text(static_cast<double>(past)) + ": from there a window with hit ratio 1.0 asks more lines to persist than the set-aside holds, and they evict each other.");
    out.notes.push_back("Kernel: each thread reads one element of the persistent region (index i mod region) and updates one of the "
                        "streaming region, as in the guide's benchmark; the guide's kernel also writes the persistent element, "
                        "which many threads do at once (a race), so here the persistent region is only read and the output can be checked.");
    out.notes.push_back("Tuned window: as in the guide's code, the window spans the whole persistent region and hit ratio = set-aside / region, "
                        "so that only as many lines persist as the set-aside holds. The window and the set-aside are restored when the experiment ends.");
}

void run_l2_persist(ContextState &ctx, const Params &params, Result &out) {
    const L2Limits limits = l2_limits(ctx.info());
    require_l2_controls(limits);
    // Whatever happens below, the stream ends without a window and the
    // set-aside as it was.
    L2Restore restore(ctx);
    const SweepPlan plan = plan_sweep(ctx, params, limits);
    const std::size_t max_region = plan.sizes.back();

    require_memory(ctx, plan.streaming_bytes + max_region,
                   "l2_persist (streaming region " + std::to_string(plan.streaming_bytes) + " bytes, persistent up to " +
                       std::to_string(max_region) + " bytes)");
    DeviceArray persistent(ctx, max_region), streaming(ctx, plan.streaming_bytes);
    GM_CUDA(kernels::launch_fill_pattern(persistent.as<std::uint32_t>(), max_region / 4, kSeedPersistent, ctx.stream()));
    StagingBuffer staging(plan.streaming_bytes, "l2_persist's verification");
    Regions regions{persistent, streaming, staging};
    const int block = static_cast<int>(params.integer("block_size"));
    const std::vector<std::string> wanted = params.texts("series");
    const int miss = params.text("miss_property") == "normal" ? GM_ACCESS_NORMAL : GM_ACCESS_STREAMING;

    for (const WindowChoice &choice : kChoices) {
        if (std::find(wanted.begin(), wanted.end(), choice.label) == wanted.end()) continue;
        Series series = window_series(choice, plan, block, params.text("miss_property"));
        for (std::size_t region : plan.sizes)
            series.points.push_back(measure_region(ctx, choice, plan, region, regions, block, miss, out));
        out.series.push_back(std::move(series));
    }
    reset_window(ctx);

    std::size_t fitting = 0, past = 0;
    for (std::size_t r : plan.sizes) {
        if (r <= plan.granted) fitting = r;
        if (r > plan.granted && past == 0) past = r;
    }
    record_speedups(out, plan, fitting);
    out.record(kL2Bytes, static_cast<double>(limits.l2_bytes));
    out.record(kSetAsideGranted, static_cast<double>(plan.granted));
    out.record(kMaxWindow, static_cast<double>(limits.max_window));
    out.record(kStreamingBytes, static_cast<double>(plan.streaming_bytes));
    add_l2_persist_notes(out, plan, fitting, past);
}

// How reports draw it: time per launch against the persistent region, one
// line per window.
Chart l2_persist_chart() {
    Chart c;
    c.kind = "line";
    c.x_title = "persistent region (MiB)";
    c.explanation = "The guide's sliding window: frequently used data marked persisting stays in the L2 set-aside while a large "
                    "stream passes by. Hit ratio 1.0 helps while the region fits the set-aside; the tuned hit ratio "
                    "(set-aside / region) keeps the gain past it.";
    return c;
}

}  // namespace

void add_l2_persist_experiments(std::vector<Experiment> &out) {
    Experiment e;
    e.name = "l2_persist";
    e.guide_section = "Best Practices Guide: L2 Cache, L2 Cache Access Window and Tuning the Access Window Hit-Ratio";
    e.summary = "Sliding-window benchmark of the L2 persisting access window: no window, hit ratio 1.0, and the tuned "
                "hit ratio, over persistent regions from below to beyond the set-aside.";
    ParamSpec block = int_param("block_size", 256, 32, 1024, "threads per block", "threads");
    block.multiple_of = 32;
    e.params = {
        size_param("set_aside_bytes", 0, 0, 1LL << 34, "persisting L2 set-aside asked for; 0: the device maximum"),
        size_param("streaming_bytes", 0, 0, 1LL << 32, "streaming region; 0: max(16 x L2, 512 MiB)"),
        int_param("sweep_points", 8, 2, 64, "persistent region sizes in the sweep"),
        double_param("max_over_set_aside", 2.0, 0.1, 8.0, "largest persistent region, as a multiple of the set-aside"),
        enum_param("miss_property", "streaming", {"streaming", "normal"},
                   "what window accesses that are not hits become (the guide uses streaming)"),
        enum_list_param("series", {"none", "hit_ratio_1", "tuned"}, {"none", "hit_ratio_1", "tuned"},
                        "which windows to time (speed-ups need none)"),
        std::move(block),
    };
    e.axes = {{"series"}, ""};  // A series per window setting, along persistent regions from its own range.
    e.run = run_l2_persist;
    e.quick = {{"sweep_points", 2}, {"streaming_bytes", 128 * kMiB}};
    e.figures = {kSpeedupFitting, kSpeedupLargest, kSpeedupBest, kL2Bytes, kSetAsideGranted, kMaxWindow, kStreamingBytes};
    e.chart = l2_persist_chart();
    e.compared = {
        {"hit_ratio_1_speedup_fitting", "window (hit ratio 1) speed-up, region fits the set-aside"},
        {"hit_ratio_1_speedup_largest", "window (hit ratio 1) speed-up, largest region"},
        {"tuned_speedup_fitting", "tuned window speed-up, region fits"},
        {"tuned_speedup_largest", "tuned window speed-up, largest region"},
    };
    out.push_back(std::move(e));
}

}  // namespace gmlab
