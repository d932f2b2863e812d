// Experiment family "shared memory allocation": one kernel with a static
// shared array and the same with a dynamic (extern, sized at launch) one.
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/experiment/registry.hpp"
#include "core/units.hpp"
#include "core/measurement/harness.hpp"
#include "core/measurement/verify.hpp"
#include "experiments/shared_alloc/shared_alloc.cuh"
#include "shared_kernels/fill_pattern.cuh"
#include "shared_kernels/pattern.hpp"

namespace gmlab {

namespace {

constexpr std::uint32_t kSeed = 909;

const Figure kDynamicOverStatic{"dynamic_time_over_static", "ratio", Better::Lower,
                                "time with dynamically sized shared memory over the same kernel's with a static array"};

void run_shared_alloc(ContextState &ctx, const Params &params, Result &out) {
    const int block = kernels::kReverseBlock;
    std::size_t n = params.is_auto("elements") ? default_working_set(ctx.info()) / sizeof(int) : params.size("elements");
    n = n / block * block;
    if (n == 0) invalid("elements must be at least " + std::to_string(block) + ", got " + std::to_string(params.size("elements")));
    const std::size_t bytes = n * sizeof(int);
    require_memory(ctx, bytes, "shared_alloc");
    DeviceArray d(ctx, bytes);
    cudaStream_t st = ctx.stream();
    std::vector<std::uint32_t> host(n);
    std::map<std::string, double> time;
    for (bool dynamic : {false, true}) {
        const std::string name = dynamic ? "dynamic" : "static";
        GM_CUDA(kernels::launch_fill_pattern(d.as<std::uint32_t>(), n, kSeed, st));
        auto launch = [&, dynamic](cudaStream_t s) { return kernels::launch_reverse(dynamic, d.as<int>(), n, s); };
        GM_CUDA(launch(st));
        GM_CUDA(cudaMemcpyAsync(host.data(), d.get(), bytes, cudaMemcpyDeviceToHost, st));
        GM_CUDA(cudaStreamSynchronize(st));
        // Every run of `block` elements comes back reversed.
        auto source = [&](std::uint64_t i) { return i / block * block + (block - 1 - i % block); };
        const std::uint64_t bad = first_mismatch(n, [&](std::uint64_t i) { return host[i] == pattern_word(source(i), kSeed); });
        if (bad < n) verification_failed("shared_alloc " + name, bad, std::to_string(pattern_word(source(bad), kSeed)), std::to_string(host[bad]));
        out.verified(n, "every element compared with the host's reversal");

        cudaFuncAttributes attr{};
        GM_CUDA(kernels::reverse_attributes(dynamic, &attr));
        Series s;
        s.name = name + " shared array";
        s.variant = name;
        s.x_name = "array";
        s.x_unit = "bytes";
        s.quantity = Quantity::DramBandwidth;
        s.attributes = {{"block_size", block}};
        Point p;
        p.x = static_cast<double>(bytes);
        p.bytes = 2.0 * static_cast<double>(bytes);
        p.time_ms = time_launch(ctx, launch);
        p.values["registers"] = attr.numRegs;
        p.values["static_shared_bytes"] = static_cast<double>(attr.sharedSizeBytes);
        p.values["dynamic_shared_bytes"] = dynamic ? block * sizeof(int) : 0.0;
        p.values["local_bytes"] = static_cast<double>(attr.localSizeBytes);
        p.values["max_threads_per_block"] = attr.maxThreadsPerBlock;
        // Counters: static and dynamic shared memory are accessed alike (same wavefronts).
        measure_counters(ctx, launch, counter_sets::shared_banks(), p, out);
        time[name] = p.time_ms.median;
        s.points.push_back(std::move(p));
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
