// Experiment family "latency": one thread chasing a random single-cycle ring
// of pointers, one per cache line, over working sets from a few KiB to several
// times L2, through L1 (ld.global.ca) and around it (ld.global.cg). The sizes
// where the latency steps up are the cache capacities found by measurement.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/experiment/point_protocol.hpp"
#include "core/experiment/registry.hpp"
#include "core/measurement/harness.hpp"
#include "experiments/common/chase.hpp"
#include "experiments/common/latency_model.hpp"
#include "experiments/latency/latency.cuh"

namespace gmlab {

namespace {

using kernels::LoadPath;
constexpr std::uint64_t kSeed = 0x6c6174656e6379ull;  // "latency"
// Serial untimed hops before each warm chase: covers every ring up to 1 MiB
// (128-byte lines), several times any L1.
constexpr std::size_t kSerialWarm = 8192;

nlohmann::json levels_json(const ChaseCurve &c) {
    nlohmann::json a = nlohmann::json::array();
    for (const Level &l : c.levels.levels)
        a.push_back({{"latency_cycles", l.value}, {"from_bytes", l.begins}, {"to_bytes", l.ends}, {"points", l.points},
                     {"open", l.open_end}});
    return a;
}

// The headline figures: each named level's latency, the working sets where
// the levels begin and end (the capacities lie between a level's end and the
// first working set past it), and the clock the cycles were converted at.
const Figure kLevelCycles{"{level}_cycles", "cycles", Better::Lower,
                          "SM cycles per dependent load served by one level: l1 (the ld.ca chase), l2_near and l2_far "
                          "(the near and far L2 partition, ld.cg chase), dram_level (the ld.cg chase's last level) or "
                          "dram (the cold chase, L2 flushed)"};
const Figure kLevelNs{"{level}_ns", "ns", Better::Lower,
                      "nanoseconds per dependent load served by one level (l1, l2_near, l2_far, dram_level, dram), "
                      "its cycles at the SM clock measured during the chases"};
const Figure kL1Bytes{"l1_bytes", "bytes", Better::Neither,
                      "the largest working set on the L1 level of the ld.ca chase: L1 holds at least this much"};
const Figure kL1FallsBytes{"l1_falls_bytes", "bytes", Better::Neither,
                           "the first working set past the L1 level: L1 holds less than this"};
const Figure kL2NearBytes{"l2_near_bytes", "bytes", Better::Neither,
                          "the largest working set on the near L2 level of the ld.cg chase"};
const Figure kL2FarBeginsBytes{"l2_far_begins_bytes", "bytes", Better::Neither,
                               "the first working set on the far L2 level (hits from the far partition)"};
const Figure kL2Bytes{"l2_bytes", "bytes", Better::Neither,
                      "the L2 capacity found: where the last named L2 level of the ld.cg chase ends"};
const Figure kL2FallsBytes{"l2_falls_bytes", "bytes", Better::Neither,
                           "the first working set past the last L2 level: L2 holds less than this"};
const Figure kL2DetectedOverReported{"l2_detected_over_reported", "ratio", Better::Neither,
                                     "the L2 capacity found (l2_bytes) over the L2 size the device reports"};
const Figure kL2ReportedBytes{"l2_reported_bytes", "bytes", Better::Neither, "the L2 size the device reports"};
const Figure kDramBeginsBytes{"dram_begins_bytes", "bytes", Better::Neither,
                              "the first working set on the ld.cg chase's DRAM level"};

void record_level(Result &out, const std::string &level, double cycles, double ghz) {
    record_latency(out, kLevelCycles, kLevelNs, cycles, ghz, {{"level", level}});
}

// The key figures of the named levels: each level's latency in cycles and ns,
// where it begins and ends, and the first working set past it (the capacity
// lies between its end and that).
void summarise_levels(const CacheLevels &lv, double dram, double ghz, const DeviceInfo &dev, Result &out) {
    if (lv.l1) {
        record_level(out, "l1", lv.l1_level.value, ghz);
        out.record(kL1Bytes, lv.l1_level.ends);
        if (lv.l1_falls > 0) out.record(kL1FallsBytes, lv.l1_falls);
    }
    if (lv.l2) {
        record_level(out, "l2_near", lv.l2_near.value, ghz);
        out.record(kL2NearBytes, lv.l2_near.ends);
        if (lv.l2_far) {
            record_level(out, "l2_far", lv.l2_far_level.value, ghz);
            out.record(kL2FarBeginsBytes, lv.l2_far_level.begins);
        }
        out.record(kL2Bytes, lv.l2_capacity);
        if (lv.l2_falls > 0) out.record(kL2FallsBytes, lv.l2_falls);
        if (dev.l2_bytes > 0) out.record(kL2DetectedOverReported, lv.l2_capacity / static_cast<double>(dev.l2_bytes));
    }
    if (lv.dram) {
        record_level(out, "dram_level", lv.dram_level.value, ghz);
        out.record(kDramBeginsBytes, lv.dram_level.begins);
    }
    if (dram > 0) record_level(out, "dram", dram, ghz);
    out.record(kL2ReportedBytes, static_cast<double>(dev.l2_bytes));
}

// What the latency curve means and how it was measured: the notes, given
// the levels found.
void add_latency_notes(Result &out, std::size_t stride, unsigned hops, double ghz, const DeviceInfo &dev, double min_step,
                       const CacheLevels &lv) {
    out.notes.push_back(
        "One thread follows a random single-cycle ring (Sattolo, fixed seed) with one pointer per " + std::to_string(stride) +
        "-byte line, so every hop is a dependent load of a new line. Before each launch's timed " + std::to_string(hops) +
        " hops the whole block reads every line through the same path (so what fits is in L2), then the chasing "
        "thread walks up to 8192 lines untimed (the whole ring where L1 can matter) and the timed hops continue from there. "
        "Each launch and each path starts at a different line. Each chase's final node is checked against the host's walk.");
    out.notes.push_back("Cycles are clock64 inside the kernel; nanoseconds use the SM clock measured during the run (clock64 "
                        "cycles over %globaltimer nanoseconds of the same chases): " +
                        std::to_string(static_cast<long long>(std::llround(ghz * 1e3))) + " MHz, against " +
                        std::to_string(dev.clock_khz / 1000) + " MHz reported.");
    out.notes.push_back("Levels (experiments/common/levels.hpp): the curve is fitted piecewise constant, a new level where "
                        "the latency moves by at least " + std::to_string(static_cast<int>(std::lround(min_step * 100))) +
                        "% (min_step) for at least two working sets; a lone point away from two neighbours that agree is "
                        "set aside. A capacity lies between the last working set on a level (l1_bytes, l2_near_bytes, "
                        "l2_bytes) and the first past it (l1_falls_bytes, l2_falls_bytes). Past a capacity a random chase "
                        "still hits about capacity / working set of the time, so the curve climbs towards DRAM gradually; "
                        "dram is the cold chase, L2 flushed before each launch, dram_level the ld.cg chase's last level.");
    if (!lv.l1) out.notes.push_back("No L1 level below half the L2 latency was found in the ld.ca chase.");
    if (!lv.l2) out.notes.push_back("No L2 level below 0.85 x the DRAM latency was found in the ld.cg chase.");
    if (lv.l2 && lv.l2_capacity_open)
        out.notes.push_back("The last L2 level runs to the end of the sweep: L2 is at least l2_bytes; raise max_bytes to see its end.");
    if (lv.l2_far)
        out.notes.push_back("Two L2 levels in the ld.cg chase: the L2 is split in two partitions, and from l2_far_begins_bytes "
                            "on hits come from the far one, slower by the crossing between them.");
    if (lv.l2_levels > 2)
        out.notes.push_back(std::to_string(lv.l2_levels) + " levels below DRAM latency in the ld.cg chase: past the second "
                            "(far) they are left unnamed (the series' levels attribute lists them all).");
    out.notes.push_back("At large working sets a random chase also misses the TLBs (one translation per few lines visited), so "
                        "part of the rise towards DRAM there is address translation, not the cache.");
}

// What the sweep is planned from.
struct LatencyPlan {
    std::size_t stride = 0, stride_words = 0;
    unsigned hops = 0;
    double min_step = 0;
    std::vector<std::size_t> sizes;
    // The cold (DRAM) chase runs on the first ring at least as large as L2:
    // after the flush none of it is cached, and it is small enough for the
    // TLBs to matter less than at the end of the sweep.
    std::size_t cold_size = 0;
};

LatencyPlan plan_latency(const Params &params, const DeviceInfo &dev) {
    LatencyPlan plan;
    plan.stride = static_cast<std::size_t>(params.integer("stride"));
    plan.stride_words = plan.stride / sizeof(unsigned long long);
    const std::size_t min_bytes = params.size("min_bytes");
    const std::size_t max_bytes = params.is_auto("max_bytes") ? 4 * std::max<std::size_t>(dev.l2_bytes, 1 << 20)
                                                              : params.size("max_bytes");
    plan.hops = static_cast<unsigned>(params.integer("hops"));
    plan.min_step = params.number("min_step");
    plan.sizes = working_sets(min_bytes, max_bytes, static_cast<int>(params.integer("points_per_octave")), plan.stride);
    const std::size_t max_lines = plan.sizes.back() / plan.stride;
    if (max_lines > 0xFFFFFFFFull) invalid("max_bytes / stride must be below 2^32 lines, got " + std::to_string(max_lines));
    plan.cold_size = plan.sizes.back();
    for (std::size_t s : plan.sizes)
        if (s >= dev.l2_bytes) {
            plan.cold_size = s;
            break;
        }
    return plan;
}

// The chases of one working set: their samples and the counters of one more
// chase in the same cache state.
struct Raw {
    std::size_t bytes;
    std::vector<kernels::ChaseSample> samples;
    Point counted;
};

// The rings of the sweep on the device and the chases over them, in the
// order they run: for each working set the ld.ca and ld.cg chases, and on
// cold_size the cold one.
class LatencySweep {
public:
    LatencySweep(ContextState &ctx, const LatencyPlan &plan, Result &out)
        : ctx_(ctx), plan_(plan), out_(out), runner_(ctx),
          ring_(ctx, plan.sizes.back()), next_d_(ctx, plan.sizes.back() / plan.stride * sizeof(std::uint32_t)),
          counted_slot_(ctx, sizeof(kernels::ChaseSample)) {}

    void run() {
        GM_CUDA(kernels::prefer_l1_for_chase());
        for (std::size_t bytes : plan_.sizes) measure_ring(bytes);
    }

    std::vector<Raw> cached, bypass, cold;
    ChaseRunner &runner() { return runner_; }

private:
    // Counters: where the chase's loads were served (L2 hit rate) and the DRAM
    // bytes, from one more launch of the same chase into a slot of its own.
    Point count_chase(const std::function<cudaError_t(kernels::ChaseSample *, cudaStream_t)> &chase, bool is_cold) {
        Point p;
        measure_counters(ctx_, [&](cudaStream_t s) { return chase(counted_slot_.as<kernels::ChaseSample>(), s); },
                         counter_sets::dram(), p, out_, is_cold);
        return p;
    }

    void measure_ring(std::size_t bytes) {
        cudaStream_t st = ctx_.stream();
        const std::size_t lines = bytes / plan_.stride;
        const std::vector<std::uint32_t> next = single_cycle(lines, kSeed ^ lines);
        GM_CUDA(cudaMemcpyAsync(next_d_.get(), next.data(), lines * sizeof(std::uint32_t), cudaMemcpyHostToDevice, st));
        GM_CUDA(kernels::launch_build_ring(ring_.as<unsigned long long>(), plan_.stride_words, next_d_.as<std::uint32_t>(),
                                           lines, st));
        for (LoadPath path : {LoadPath::Cached, LoadPath::Bypass}) measure_warm(bytes, next, path);
        if (bytes == plan_.cold_size) measure_cold(bytes, next);
    }

    void measure_warm(std::size_t bytes, const std::vector<std::uint32_t> &next, LoadPath path) {
        const std::size_t lines = next.size();
        const unsigned hops = plan_.hops;
        // Each launch starts somewhere else on the ring: repeating the same
        // lines launch after launch lets L2's replacement keep them past its
        // capacity (measured: a flat L2 latency up to twice the L2 size).
        // Thread 0 first walks up to kSerialWarm lines untimed, the whole ring
        // where it is small enough for L1 to matter.
        const unsigned prewalk = static_cast<unsigned>(std::min<std::size_t>(lines, kSerialWarm));
        // The two paths take different starts too: the lines one path's chases
        // just walked would still be in L2 for the other.
        auto start_of = [lines, path](int index) {
            const std::uint64_t k = std::uint64_t(index) * 2 + (path == LoadPath::Bypass ? 1 : 0);
            return static_cast<std::uint32_t>(((k + 1) * 0x9E3779B97F4A7C15ull >> 20) % lines);
        };
        auto end_of = [&](int index) { return std::uint64_t(walk(next, start_of(index), std::uint64_t(prewalk) + hops)); };
        auto launch = [&](int index, kernels::ChaseSample *o, cudaStream_t s) {
            return kernels::launch_chase(path, ring_.as<unsigned long long>(), plan_.stride_words, lines, start_of(index),
                                         prewalk, hops, true, o, s);
        };
        const std::string what = std::string("latency ") + (path == LoadPath::Cached ? "ld.ca" : "ld.cg") + " chase over " +
                                 std::to_string(bytes) + " bytes";
        Raw raw{bytes, runner_.run(launch, false, end_of, what, out_), {}};
        const int fresh = ctx_.settings.warmup + ctx_.settings.max_repetitions;  // a start the timed chases did not use
        raw.counted = count_chase([&](kernels::ChaseSample *o, cudaStream_t s) { return launch(fresh, o, s); }, false);
        (path == LoadPath::Cached ? cached : bypass).push_back(std::move(raw));
    }

    void measure_cold(std::size_t bytes, const std::vector<std::uint32_t> &next) {
        const std::size_t lines = next.size();
        const unsigned hops = plan_.hops;
        auto launch = [&](kernels::ChaseSample *o, cudaStream_t s) {
            return kernels::launch_chase(LoadPath::Bypass, ring_.as<unsigned long long>(), plan_.stride_words, lines, 0, 0,
                                         hops, false, o, s);
        };
        Raw raw{bytes, runner_.run(launch, true, walk(next, 0, hops), "latency cold chase over " + std::to_string(bytes) + " bytes", out_), {}};
        raw.counted = count_chase(launch, true);
        cold.push_back(std::move(raw));
    }

    ContextState &ctx_;
    const LatencyPlan &plan_;
    Result &out_;
    ChaseRunner runner_;
    DeviceArray ring_, next_d_, counted_slot_;
};

// A chase's points: each working set's latency, with the counters of its counted chase.
void add_points(Series &s, const std::vector<Raw> &raws, unsigned hops, double ghz) {
    for (const Raw &r : raws) {
        Point p = chase_point(static_cast<double>(r.bytes), hops, r.samples, ghz);
        p.counters = r.counted.counters;
        s.points.push_back(std::move(p));
    }
}

ChaseCurve curve_of(const Series &s, double min_step) {
    std::vector<double> x, y;
    for (const Point &p : s.points) {
        x.push_back(p.x);
        y.push_back(p.values.at("latency_cycles"));
    }
    return chase_curve(std::move(x), std::move(y), min_step);
}

void run_latency(ContextState &ctx, const Params &params, Result &out) {
    const DeviceInfo &dev = ctx.info();
    const LatencyPlan plan = plan_latency(params, dev);
    const std::size_t max_lines = plan.sizes.back() / plan.stride;
    require_memory(ctx, plan.sizes.back() + max_lines * sizeof(std::uint32_t), "latency (the ring and its permutation)");
    LatencySweep sweep(ctx, plan, out);
    sweep.run();

    // Cycles to nanoseconds at the clock the SM ran during these chases.
    const double reported_ghz = dev.clock_khz / 1e6;
    const double ghz = sweep.runner().clock_ghz(reported_ghz);
    Series sc = chase_latency_series("default path (ld.global.ca: L1 and L2)", "ca", "working set", "bytes");
    Series sb = chase_latency_series("L1 bypassed (ld.global.cg: L2 only)", "cg", "working set", "bytes");
    Series sd = chase_latency_series("cold: L2 flushed, no warm-up (ld.global.cg: DRAM)", "dram", "working set", "bytes");
    add_points(sc, sweep.cached, plan.hops, ghz);
    add_points(sb, sweep.bypass, plan.hops, ghz);
    add_points(sd, sweep.cold, plan.hops, ghz);

    const ChaseCurve cc = curve_of(sc, plan.min_step), cb = curve_of(sb, plan.min_step);
    const double dram = sd.points.empty() ? 0.0 : sd.points[0].values.at("latency_cycles");
    const CacheLevels lv = name_levels(cc, cb, dram, 0.85, 0.5, static_cast<double>(dev.l2_bytes));
    sc.attributes = {{"stride_bytes", plan.stride}, {"hops", plan.hops}, {"min_step", plan.min_step}, {"levels", levels_json(cc)}};
    sb.attributes = {{"stride_bytes", plan.stride}, {"hops", plan.hops}, {"min_step", plan.min_step}, {"levels", levels_json(cb)}};
    sd.attributes = {{"stride_bytes", plan.stride}, {"hops", plan.hops}};
    summarise_levels(lv, dram, ghz, dev, out);
    out.record(kChaseClockMeasured, ghz * 1e3);
    out.record(kChaseClockReported, reported_ghz * 1e3);

    out.series.push_back(std::move(sc));
    out.series.push_back(std::move(sb));
    out.series.push_back(std::move(sd));

    add_latency_notes(out, plan.stride, plan.hops, ghz, dev, plan.min_step, lv);
    out.published_source = "published pointer-chase microbenchmarks (H100 PCIe at 1755 MHz), cycles";
    out.published = {{"l1_cycles", 34}, {"l2_near_cycles", 265}, {"l2_far_cycles", 475}, {"dram_cycles", 660}};
}

// How reports draw it: latency against the working set, log-log, with the
// capacities found marked.
Chart latency_chart() {
    Chart c;
    c.kind = "line";
    c.x_title = "working set (MiB)";
    c.x_log = true;
    c.y_log = true;
    c.published_base = "l1_cycles";
    c.markers = {{"l1_bytes", "detected L1"}, {"l2_near_bytes", "detected near L2"}, {"l2_bytes", "detected L2"}};
    c.explanation = "One thread chasing a random ring of cache lines: while the ring fits a cache, every hop costs that cache's "
                    "latency; past its capacity the latency steps up to the next level. The plateaus are L1 (only on the "
                    "default path), L2 (two where the far partition shows) and, cold, DRAM; the dashed lines mark the capacities found.";
    return c;
}

// The L2 size CUDA reports, from the run's device block: the capacity the
// chase finds is held to it.
gmvocab::ConsistencyFigure l2_size_reported() {
    gmvocab::ConsistencyFigure f = gmvocab::agrees_on("l2_capacity", "l2_cache_bytes", "the size CUDA reports (cudaDevAttrL2CacheSize)");
    f.from_device = true;
    return f;
}

// The pointer chase's experiment, "latency".
void add_latency_chase(std::vector<Experiment> &out) {
    Experiment e;
    e.name = "latency";
    e.guide_section = "Beyond the guide: memory latency by pointer chasing (Programming Guide: Device Memory Accesses)";
    e.summary = "One thread chasing a random ring of cache lines over working sets from 4 KiB to 4 x L2, through L1 and "
                "around it: L1, L2 and DRAM latency in cycles and ns, and the cache capacities where the latency steps up.";
    ParamSpec stride = int_param("stride", 128, 32, 512, "bytes between the ring's pointers (one per line)", "bytes");
    stride.allowed = {32, 64, 128, 256, 512};
    e.params = {
        size_param("min_bytes", 4096, 1024, 1LL << 30, "smallest working set"),
        size_param("max_bytes", 0, 0, 1LL << 36, "largest working set; 0: 4 x L2"),
        int_param("points_per_octave", 3, 1, 16, "working sets per doubling"),
        int_param("hops", 2048, 16, 1 << 22, "timed dependent loads per launch"),
        std::move(stride),
        double_param("min_step", 0.10, 0.01, 1.0, "smallest latency step between two levels (relative)"),
    };
    e.run = run_latency;
    e.quick = {{"points_per_octave", 1}, {"hops", 512}};
    e.figures = {kLevelCycles,     kLevelNs,       kL1Bytes,         kL1FallsBytes,      kL2NearBytes,
                 kL2FarBeginsBytes, kL2Bytes,       kL2FallsBytes,    kL2DetectedOverReported, kL2ReportedBytes,
                 kDramBeginsBytes, kChaseClockMeasured, kChaseClockReported};
    e.chart = latency_chart();
    e.compared = {
        {"l1_ns", "L1 latency"},
        {"l2_near_ns", "L2 latency"},
        {"dram_ns", "DRAM latency"},
    };
    e.consistency = {
        gmvocab::agrees_on("l2_hit_latency", "l2_near_cycles", "ld.cg chase, its first L2 level"),
        gmvocab::shown_beside("l2_hit_latency", "l2_far_cycles", "ld.cg chase, its second L2 level",
                              "far partition: a hit in the other half of L2, across the fabric between them"),
        gmvocab::agrees_on("l2_far_hit_latency", "l2_far_cycles", "ld.cg chase, its second L2 level"),
        gmvocab::agrees_on("l1_hit_latency", "l1_cycles", "ld.ca chase, its first level"),
        gmvocab::agrees_on("dram_latency", "dram_cycles", "cold ld.cg chase, L2 flushed before each launch"),
        gmvocab::shown_beside("dram_latency", "dram_level_cycles", "warm ld.cg chase, its level past L2",
                              "a warm chase past L2 still hits L2 part of the time and walks a larger ring's pages"),
        gmvocab::agrees_on("l1_capacity", "l1_bytes", "ld.ca chase under the largest-L1 preference", "l1_falls_bytes"),
        gmvocab::agrees_on("l2_capacity", "l2_bytes", "where the ld.cg chase leaves its last L2 level", "l2_falls_bytes"),
        l2_size_reported(),
    };
    out.push_back(std::move(e));
}

}  // namespace

void add_memory_spaces_experiments(std::vector<Experiment> &out);  // memory_spaces.cpp

// The latency family: the pointer chase, then the memory spaces' latencies
// (memory_spaces.cpp), in the standard suite's order.
void add_latency_experiments(std::vector<Experiment> &out) {
    add_latency_chase(out);
    add_memory_spaces_experiments(out);
}

}  // namespace gmlab
