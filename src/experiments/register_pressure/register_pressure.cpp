// Experiment family "register pressure": one kernel with 64 live values per
// thread compiled under several register caps (__launch_bounds__ min blocks):
// registers, spill (local) bytes, theoretical occupancy and time per cap.
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/experiment/point_protocol.hpp"
#include "core/experiment/registry.hpp"
#include "core/measurement/harness.hpp"
#include "core/measurement/verify.hpp"
#include "experiments/common/point_checks.hpp"
#include "experiments/common/thread_results.hpp"
#include "experiments/register_pressure/register_pressure.cuh"
#include "shared_kernels/fill_pattern.cuh"
#include "shared_kernels/pattern.hpp"

namespace gmlab {

namespace {

using kernels::kPressureLive;
constexpr std::uint32_t kSeed = 777;

std::uint32_t reference(std::uint64_t t, std::uint64_t threads, int iterations) {
    std::uint32_t v[kPressureLive];
    for (int k = 0; k < kPressureLive; ++k) v[k] = pattern_word(static_cast<std::uint64_t>(k) * threads + t, kSeed);
    for (int it = 0; it < iterations; ++it)
        for (int k = 0; k < kPressureLive; ++k)
            v[k] = v[k] * (v[(k + 1) % kPressureLive] | 1u) + static_cast<std::uint32_t>(k) * 0x9E3779B1u;
    std::uint32_t sum = 0;
    for (int k = 0; k < kPressureLive; ++k) sum += v[k];
    return sum;
}

const Figure kCapOverBest{"cap{cap}_time_over_best", "ratio", Better::Lower,
                          "time under a register cap over the fastest cap's"};
const Figure kFastestCap{"fastest_cap", "registers", Better::Neither, "the register cap that ran fastest"};

// The blocks per multiprocessor `cap`'s instance asks for in __launch_bounds__.
int min_blocks_of(int cap) {
    for (const auto &c : kernels::pressure_caps())
        if (c.cap == cap && c.min_blocks != 0) return c.min_blocks;
    invalid("caps: " + std::to_string(cap) + " is not compiled");  // params already checked
}

// One cap through the core's point protocol: the results poisoned, one launch
// checked against the host's sums, then timed and counted.
Point measure_cap(ContextState &ctx, int cap, ThreadResults &arrays, std::size_t threads, int iterations, Result &out) {
    const DeviceInfo &dev = ctx.info();
    const int min_blocks = min_blocks_of(cap);
    std::uint32_t *in = arrays.input(), *result = arrays.results();
    const CheckedLaunch point = arrays.checked(
        [=](cudaStream_t stream) { return kernels::launch_pressure(cap, in, result, threads, iterations, stream); },
        "register_pressure cap " + std::to_string(cap), out);
    Point p;
    p.x = cap;
    p.predicted["occupancy_from_cap"] =
        dev.max_threads_per_sm > 0 ? std::min(1.0, static_cast<double>(min_blocks) * kernels::kPressureBlock / dev.max_threads_per_sm) : 0.0;
    // Counters: spilled registers as local traffic, and the occupancy reached.
    const CounterSet counters = counter_sets::local_sectors() + counter_sets::occupancy();
    measure_checked(ctx, point, p, out, &counters);
    cudaFuncAttributes attr{};
    GM_CUDA(kernels::pressure_attributes(cap, &attr));
    int blocks_per_sm = 0;
    GM_CUDA(kernels::pressure_occupancy(cap, &blocks_per_sm));
    const double updates = static_cast<double>(threads) * iterations * kPressureLive;
    p.values["giga_updates_per_s"] = p.time_ms.median > 0 ? updates / (p.time_ms.median * 1e-3) / 1e9 : 0.0;
    p.values["min_blocks"] = min_blocks;
    p.values["registers"] = attr.numRegs;
    p.values["local_bytes_per_thread"] = static_cast<double>(attr.localSizeBytes);
    p.values["blocks_per_sm"] = blocks_per_sm;
    p.values["occupancy"] = dev.max_threads_per_sm > 0
                                ? static_cast<double>(blocks_per_sm) * kernels::kPressureBlock / dev.max_threads_per_sm
                                : 0.0;
    return p;
}

void run_register_pressure(ContextState &ctx, const Params &params, Result &out) {
    const std::size_t threads = threads_for(ctx, params);
    const int iterations = static_cast<int>(params.integer("iterations"));
    ThreadResults arrays(ctx, threads, kPressureLive, kSeed, "register_pressure");
    arrays.expect([&](std::uint64_t t) { return reference(t, threads, iterations); });
    Series s = declared_series("register cap (__launch_bounds__(256, min_blocks))", "launch_bounds", "register cap",
                               "registers per thread", Quantity::Rate,
                               {{"threads", threads}, {"block_size", kernels::kPressureBlock}, {"iterations", iterations},
                                {"live_values", kPressureLive}});
    s.y_field = "giga_updates_per_s";
    s.y_name = "value updates per second";
    s.y_unit = "G/s";
    double best = 0, best_cap = 0;
    for (long long cap_ll : params.integers("caps")) {
        const int cap = static_cast<int>(cap_ll);
        Point p = measure_cap(ctx, cap, arrays, threads, iterations, out);
        if (p.values["giga_updates_per_s"] > best) {
            best = p.values["giga_updates_per_s"];
            best_cap = cap;
        }
        s.points.push_back(std::move(p));
    }
    // Time of every cap relative to the fastest, and the spill-free optimum.
    for (const Point &p : s.points)
        out.record(kCapOverBest, p.values.at("giga_updates_per_s") > 0 ? best / p.values.at("giga_updates_per_s") : 0.0,
                   {{"cap", std::to_string(static_cast<int>(p.x))}});
    out.record(kFastestCap, best_cap);
    out.series.push_back(std::move(s));
    out.notes.push_back("One kernel keeps 64 32-bit values per thread live through every iteration (v[k] = v[k] * (v[k+1] | 1) "
                        "+ c_k), about 80 registers on sm_90. __launch_bounds__(256, min_blocks) asks the compiler to fit "
                        "min_blocks blocks per multiprocessor, which caps the registers at 65536 / (256 x min_blocks): more "
                        "resident warps (occupancy), but below about 80 registers the values spill to local memory "
                        "(local_bytes_per_thread), and every iteration then loads and stores them.");
    out.notes.push_back("Occupancy is cudaOccupancyMaxActiveBlocksPerMultiprocessor x 256 / max threads per multiprocessor. "
                        "Read the table from the largest cap down: the time improves while occupancy rises without spills, "
                        "and worsens once the spill traffic outweighs the extra warps.");
}

// How reports draw register_pressure's result and what they say it shows.
Chart register_pressure_chart() {
    Chart c;
    c.kind = "line";
    c.x_title = "register cap (registers per thread)";
    c.x_log = true;
    c.explanation = "One kernel under tighter and tighter register caps: occupancy rises as the cap falls, until the kernel's "
                    "live values no longer fit and spill to local memory. Look for the cap where the rate stops rising "
                    "(more occupancy no longer pays) and where it falls (spilling costs more than the extra warps give).";
    return c;
}

}  // namespace

void add_register_pressure_experiments(std::vector<Experiment> &out) {
    Experiment e;
    e.name = "register_pressure";
    e.guide_section = "Best Practices Guide: Registers, Register Pressure and Occupancy";
    e.summary = "One kernel with many live values built under several register caps: registers, spilled (local) bytes, "
                "theoretical occupancy and time per cap.";
    std::vector<long long> caps;
    for (const auto &c : kernels::pressure_caps()) caps.push_back(c.cap);
    ParamSpec cap_param = int_list_param("caps", caps, 32, 255, "register caps to run (each a compiled instance)", "registers");
    cap_param.allowed = caps;
    e.params = {std::move(cap_param),
                size_param("threads", 0, 0, 1LL << 28, "threads; 0: 2 x the device's resident threads"),
                int_param("iterations", 32, 1, 4096, "updates of all 64 values per thread")};
    e.axes = {{}, "caps"};  // Its series runs along the register caps.
    e.run = run_register_pressure;
    e.quick = {{"caps", {255, 32}}, {"iterations", 4}};
    e.figures = {kCapOverBest, kFastestCap};
    e.compared = {
        {"cap32_time_over_best", "32-register cap / best time"},
    };
    e.chart = register_pressure_chart();
    out.push_back(std::move(e));
}

}  // namespace gmlab
