// Experiment family "shared memory allocation": one kernel with a static
// shared array and the same with a dynamic (extern, sized at launch) one.
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/experiment/point_protocol.hpp"
#include "core/experiment/registry.hpp"
#include "core/measurement/harness.hpp"
#include "core/units.hpp"
#include "experiments/common/point_checks.hpp"
#include "experiments/shared_alloc/shared_alloc.cuh"
#include "shared_kernels/fill_pattern.cuh"
#include "shared_kernels/pattern.hpp"

namespace gmlab {

namespace {

constexpr std::uint32_t kSeed = 909;

const Figure kDynamicOverStatic{"dynamic_time_over_static", "ratio", Better::Lower,
                                "time with dynamically sized shared memory over the same kernel's with a static array"};

// The point of one kernel (static or dynamic shared array) through the core's
// point protocol. The kernel reverses the array in place, so nothing is
// poisoned: the pattern written just before is the input, and a launch that
// skipped a block would leave it unreversed, which the check finds.
Point measure_reverse(ContextState &ctx, bool dynamic, DeviceArray &d, std::size_t n, std::vector<std::uint32_t> &host,
                      Result &out) {
    const int block = kernels::kReverseBlock;
    const std::size_t bytes = n * sizeof(int);
    const std::string name = dynamic ? "dynamic" : "static";
    GM_CUDA(kernels::launch_fill_pattern(d.as<std::uint32_t>(), n, kSeed, ctx.stream()));
    CheckedLaunch point;
    point.launch = [&d, n, dynamic](cudaStream_t s) { return kernels::launch_reverse(dynamic, d.as<int>(), n, s); };
    point.download = download_to(host.data(), d.get(), bytes);
    point.check = [&] {
        // Every run of `block` elements comes back reversed.
        auto source = [&](std::uint64_t i) { return i / block * block + (block - 1 - i % block); };
        verify_equal(host.data(), n, [&](std::uint64_t i) { return pattern_word(source(i), kSeed); }, "shared_alloc " + name,
                     "every element compared with the host's reversal", out);
    };
    Point p;
    p.x = static_cast<double>(bytes);
    p.bytes = 2.0 * static_cast<double>(bytes);
    // Counters: static and dynamic shared memory are accessed alike (same wavefronts).
    const CounterSet counters = counter_sets::shared_banks();
    measure_checked(ctx, point, p, out, &counters);
    cudaFuncAttributes attr{};
    GM_CUDA(kernels::reverse_attributes(dynamic, &attr));
    p.values["registers"] = attr.numRegs;
    p.values["static_shared_bytes"] = static_cast<double>(attr.sharedSizeBytes);
    p.values["dynamic_shared_bytes"] = dynamic ? block * sizeof(int) : 0.0;
    p.values["local_bytes"] = static_cast<double>(attr.localSizeBytes);
    p.values["max_threads_per_block"] = attr.maxThreadsPerBlock;
    return p;
}

void run_shared_alloc(ContextState &ctx, const Params &params, Result &out) {
    const int block = kernels::kReverseBlock;
    std::size_t n = params.is_auto("elements") ? default_working_set(ctx.info()) / sizeof(int) : params.size("elements");
    n = n / block * block;
    if (n == 0) invalid("elements must be at least " + std::to_string(block) + ", got " + std::to_string(params.size("elements")));
    const std::size_t bytes = n * sizeof(int);
    require_memory(ctx, bytes, "shared_alloc");
    DeviceArray d(ctx, bytes);
    std::vector<std::uint32_t> host(n);
    std::map<std::string, double> time;
    for (bool dynamic : {false, true}) {
        const std::string name = dynamic ? "dynamic" : "static";
        Series s = declared_series(name + " shared array", name, "array", "bytes", Quantity::DramBandwidth, {{"block_size", block}});
        s.points.push_back(measure_reverse(ctx, dynamic, d, n, host, out));
        time[name] = s.points.back().time_ms.median;
        out.series.push_back(std::move(s));
    }
    out.record(kDynamicOverStatic, time["dynamic"] / time["static"]);
    out.notes.push_back("Both kernels reverse each run of 256 ints through shared memory. The static one declares "
                        "__shared__ int s[256]: the compiler knows the size (static_shared_bytes). The dynamic one declares "
                        "extern __shared__ int s[] and gets 1024 bytes at launch (dynamic_shared_bytes): the same work, so "
                        "the times should match; what differs is when the size is fixed.");
}

// How reports draw shared_alloc's result and what they say it shows.
Chart shared_alloc_chart() {
    Chart c;
    c.kind = "bar";
    c.explanation = "Static and dynamic shared arrays do the same work at the same speed; only when the size is fixed differs.";
    return c;
}

}  // namespace

void add_shared_alloc_experiments(std::vector<Experiment> &out) {
    Experiment e;
    e.name = "shared_alloc";
    e.guide_section = "Programming Guide: Shared Memory (static and dynamic allocation)";
    e.summary = "The same kernel with a static and with a dynamic shared array: identical results, the resources each uses.";
    e.params = {size_param("elements", 0, 0, 1LL << 36, "ints reversed per launch; 0: max(4 x L2, 64 MiB) of them")};
    e.run = run_shared_alloc;
    e.quick = {{"elements", 4 * kMiB}};
    e.figures = {kDynamicOverStatic};
    e.compared = {
        {"dynamic_time_over_static", "dynamic / static time"},
    };
    e.chart = shared_alloc_chart();
    out.push_back(std::move(e));
}

}  // namespace gmlab
