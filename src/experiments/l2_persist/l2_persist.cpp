// Experiment family "L2 cache": the guide's sliding-window benchmark of the
// persisting access window (Best Practices Guide, L2 Cache: L2 Cache Access
// Window and Tuning the Access Window Hit-Ratio).
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "core/device/host_memory.hpp"
#include "core/error.hpp"
#include "core/experiment/registry.hpp"
#include "core/measurement/harness.hpp"
#include "core/measurement/verify.hpp"
#include "core/units.hpp"
#include "experiments/l2_persist/l2_persist.cuh"
#include "operations/l2_window.hpp"
#include "shared_kernels/fill_pattern.cuh"
#include "shared_kernels/pattern.hpp"

namespace gmlab {

namespace {

constexpr std::uint32_t kSeedPersistent = 101, kSeedStreaming = 202;
struct WindowChoice {
    const char *name;       // series name
    const char *label;      // key prefix in the summary
};

constexpr WindowChoice kChoices[] = {
    {"no window", "none"},
    {"window, hit ratio 1.0", "hit_ratio_1"},
    {"tuned window, hit ratio = set-aside / region", "tuned"},
};

void run_l2_persist(ContextState &ctx, const Params &params, Result &out) {
    const DeviceInfo &dev = ctx.info();
    const L2Limits limits = l2_limits(dev);
    require_l2_controls(limits);
    // Whatever happens below, the stream ends without a window and the
    // set-aside as it was.
    L2Restore restore(ctx);

    const std::size_t wanted_set_aside = params.is_auto("set_aside_bytes") ? limits.persisting_max : params.size("set_aside_bytes");
    const std::size_t granted = set_persisting_size(ctx, wanted_set_aside);
    if (granted == 0) fail(GM_ERROR_NOT_SUPPORTED, "the device granted no persisting L2 set-aside");

    std::size_t streaming_bytes = params.is_auto("streaming_bytes")
                                      ? std::max<std::size_t>(16 * limits.l2_bytes, 512 * kMiB)
                                      : params.size("streaming_bytes");
    streaming_bytes = std::min<std::size_t>(streaming_bytes, (std::size_t(1) << 32) - 4096) / 4 * 4;
    const std::uint32_t n_streaming = static_cast<std::uint32_t>(streaming_bytes / 4);

    // Persistent region sizes: k/points of max_over_set_aside x set-aside.
    const int points = static_cast<int>(params.integer("sweep_points"));
    const double top = params.number("max_over_set_aside") * static_cast<double>(granted);
    std::vector<std::size_t> sizes;
    for (int k = 1; k <= points; ++k) {
        std::size_t s = static_cast<std::size_t>(top * k / points) / 256 * 256;
        s = std::min(s, static_cast<std::size_t>(n_streaming) * 4);
        if (s >= 256 && (sizes.empty() || s != sizes.back())) sizes.push_back(s);
    }
    if (sizes.empty()) invalid("the sweep holds no persistent region of at least 256 bytes; raise max_over_set_aside");
    const std::size_t max_region = sizes.back();

    require_memory(ctx, streaming_bytes + max_region,
                   "l2_persist (streaming region " + std::to_string(streaming_bytes) + " bytes, persistent up to " +
                       std::to_string(max_region) + " bytes)");
    DeviceArray persistent(ctx, max_region), streaming(ctx, streaming_bytes);
    cudaStream_t st = ctx.stream();
    GM_CUDA(kernels::launch_fill_pattern(persistent.as<std::uint32_t>(), max_region / 4, kSeedPersistent, st));
    StagingBuffer staging(streaming_bytes, "l2_persist's verification");
    const std::uint32_t *host = staging.as<std::uint32_t>();
    const int block = static_cast<int>(params.integer("block_size"));
    const std::vector<std::string> wanted = params.texts("series");
    const int miss = params.text("miss_property") == "normal" ? GM_ACCESS_NORMAL : GM_ACCESS_STREAMING;

    for (const WindowChoice &choice : kChoices) {
        if (std::find(wanted.begin(), wanted.end(), choice.label) == wanted.end()) continue;
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
        series.attributes = {{"set_aside_bytes", granted}, {"streaming_bytes", streaming_bytes}, {"block_size", block},
                             {"miss_property", params.text("miss_property")}};
        for (std::size_t region : sizes) {
            const std::uint32_t n_persistent = static_cast<std::uint32_t>(region / 4);
            const std::size_t window = std::min(region, limits.max_window);
            double hit_ratio = 0;
            reset_window(ctx);
            if (std::string(choice.label) == "hit_ratio_1") {
                hit_ratio = 1.0;
            } else if (std::string(choice.label) == "tuned") {
                // The guide's tuning: keep the window over the whole region and
                // let only set-aside / region of its lines persist.
                hit_ratio = std::min(1.0, static_cast<double>(granted) / static_cast<double>(window));
            }
            if (hit_ratio > 0) set_window(ctx, persistent.get(), window, hit_ratio, GM_ACCESS_PERSISTING, miss);

            auto launch = [&](cudaStream_t s) {
                return kernels::launch_sliding_window(persistent.as<std::uint32_t>(), n_persistent,
                                                      streaming.as<std::uint32_t>(), n_streaming, block, s);
            };
            GM_CUDA(kernels::launch_fill_pattern(streaming.as<std::uint32_t>(), n_streaming, kSeedStreaming, st));
            GM_CUDA(launch(st));
            GM_CUDA(cudaMemcpyAsync(staging.as<std::uint32_t>(), streaming.get(), streaming_bytes, cudaMemcpyDeviceToHost, st));
            GM_CUDA(cudaStreamSynchronize(st));
            const std::uint64_t bad = first_mismatch(n_streaming, [&](std::uint64_t i) {
                return host[i] == pattern_word(i, kSeedStreaming) + pattern_word(i % n_persistent, kSeedPersistent);
            });
            if (bad < n_streaming)
                verification_failed("l2_persist " + std::string(choice.label) + " region " + std::to_string(region), bad,
                                    std::to_string(pattern_word(bad, kSeedStreaming) +
                                                   pattern_word(bad % n_persistent, kSeedPersistent)),
                                    std::to_string(host[bad]));
            out.verified(n_streaming, "every streaming element compared with the host's sum of the two patterns");

            Point p;
            p.x = static_cast<double>(region);
            // Per thread: one streaming read and write, one persistent read.
            p.bytes = 3.0 * 4.0 * n_streaming;
            p.time_ms = time_launch(ctx, launch);
            p.values["window_bytes"] = hit_ratio > 0 ? static_cast<double>(window) : 0.0;
            p.values["hit_ratio"] = hit_ratio;
            p.values["region_over_set_aside"] = static_cast<double>(region) / static_cast<double>(granted);
            // Counters: a persisting window that works shows as a higher L2 hit rate and fewer DRAM bytes.
            measure_counters(ctx, launch, counter_sets::dram(), p, out);
            series.points.push_back(std::move(p));
        }
        out.series.push_back(std::move(series));
    }
    reset_window(ctx);

    // Speed-ups over the no-window series at the same region size.
    const Series *none = nullptr;
    for (const Series &s : out.series)
        if (s.variant == "none") none = &s;
    std::size_t fitting = 0, past = 0;
    for (std::size_t r : sizes) {
        if (r <= granted) fitting = r;
        if (r > granted && past == 0) past = r;
    }
    if (none) {
        for (Series &s : out.series) {
            if (&s == none) continue;
            double best = 0;
            for (std::size_t i = 0; i < s.points.size(); ++i) {
                const double speedup = none->points[i].time_ms.median / s.points[i].time_ms.median;
                s.points[i].values["speedup_over_no_window"] = speedup;
                best = std::max(best, speedup);
                if (static_cast<std::size_t>(s.points[i].x) == fitting) out.summary_values[s.variant + "_speedup_fitting"] = speedup;
                if (static_cast<std::size_t>(s.points[i].x) == sizes.back()) out.summary_values[s.variant + "_speedup_largest"] = speedup;
            }
            out.summary_values[s.variant + "_speedup_best"] = best;
        }
    }
    out.summary_values["l2_bytes"] = static_cast<double>(limits.l2_bytes);
    out.summary_values["set_aside_granted_bytes"] = static_cast<double>(granted);
    out.summary_values["max_window_bytes"] = static_cast<double>(limits.max_window);
    out.summary_values["streaming_bytes"] = static_cast<double>(streaming_bytes);

    out.notes.push_back("L2 is " + mib_text(static_cast<double>(limits.l2_bytes)) + "; the set-aside granted for persisting lines is " +
                        mib_text(static_cast<double>(granted)) + " (asked " + mib_text(static_cast<double>(wanted_set_aside)) +
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

}  // namespace

void add_l2_experiments(std::vector<Experiment> &out) {
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
    e.run = run_l2_persist;
    e.quick = {{"sweep_points", 2}, {"streaming_bytes", 128 * kMiB}};
    e.figures = {
        {"hit_ratio_1_speedup_fitting", "ratio", Better::Neither, "window (hit ratio 1) speed-up, region fits the set-aside"},
        {"hit_ratio_1_speedup_largest", "ratio", Better::Neither, "window (hit ratio 1) speed-up, largest region"},
        {"tuned_speedup_fitting", "ratio", Better::Neither, "tuned window speed-up, region fits"},
        {"tuned_speedup_largest", "ratio", Better::Neither, "tuned window speed-up, largest region"},
    };
    e.compared = {
        {"hit_ratio_1_speedup_fitting", "window (hit ratio 1) speed-up, region fits the set-aside"},
        {"hit_ratio_1_speedup_largest", "window (hit ratio 1) speed-up, largest region"},
        {"tuned_speedup_fitting", "tuned window speed-up, region fits"},
        {"tuned_speedup_largest", "tuned window speed-up, largest region"},
    };
    out.push_back(std::move(e));
}

}  // namespace gmlab
