// Experiment family "local memory": a per-thread array indexed at run time
// (placed in local memory) against the same work with compile-time indices
// (registers), with the warp-uniform and the per-lane run-time index.
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/experiment/point_protocol.hpp"
#include "core/experiment/registry.hpp"
#include "core/measurement/harness.hpp"
#include "core/measurement/verify.hpp"
#include "experiments/common/point_checks.hpp"
#include "experiments/common/thread_results.hpp"
#include "experiments/local_memory/local_memory.cuh"
#include "shared_kernels/fill_pattern.cuh"
#include "shared_kernels/pattern.hpp"

namespace gmlab {

namespace {

using kernels::kLocalWords;
using kernels::LocalVariant;
constexpr std::uint32_t kSeed = 4242;

struct VariantInfo {
    const char *name;
    LocalVariant v;
    const char *label;
    double sectors_per_request;  // of each warp's local access (4-byte words)
};

const VariantInfo kVariants[] = {
    {"registers", LocalVariant::Registers, "compile-time indices (registers)", 0},
    {"uniform", LocalVariant::LocalUniform, "run-time index, same in the warp (local, coalesced)", 4},
    {"divergent", LocalVariant::LocalDivergent, "run-time index per lane (local, uncoalesced)", 32},
};

// The host's version of every kernel's result for thread t (the visiting order
// within a round does not change it).
std::uint32_t reference(std::uint64_t t, std::uint64_t threads, int rounds) {
    std::uint32_t a[kLocalWords];
    for (int k = 0; k < kLocalWords; ++k) a[k] = pattern_word(static_cast<std::uint64_t>(k) * threads + t, kSeed);
    std::uint32_t acc = 0;
    for (int r = 0; r < rounds; ++r)
        for (int k = 0; k < kLocalWords; ++k) {
            acc += a[k];
            a[k] = a[k] * 3u + 1u;
        }
    for (int k = 0; k < kLocalWords; ++k) acc += a[k];
    return acc;
}

const Figure kIndexOverRegisters{"{index}_time_over_registers", "ratio", Better::Lower,
                                 "time with the array in local memory (uniform or per-lane index) over in registers"};
const Figure kDivergentOverUniform{"divergent_time_over_uniform", "ratio", Better::Lower,
                                   "time with a per-lane index into local memory over with a uniform one"};

// One variant through the core's point protocol: the results poisoned, one
// launch checked against the host's sums, then timed and counted.
Point measure_variant(ContextState &ctx, const VariantInfo &vi, ThreadResults &arrays, std::size_t threads, int rounds,
                      Result &out) {
    std::uint32_t *in = arrays.input(), *result = arrays.results();
    const LocalVariant v = vi.v;
    const CheckedLaunch point = arrays.checked(
        [=](cudaStream_t s) { return kernels::launch_local_array(v, in, result, threads, rounds, 0, s); },
        std::string("local_memory ") + vi.name, out);
    Point p;
    p.x = rounds;
    // bytes: the global memory the kernel moves (its input and result). The
    // series plots the rate of array accesses, 4 + 4 bytes per visit (read +
    // write of the word), which for the register version is not memory
    // traffic at all, so the series is a rate and carries no bandwidth.
    p.bytes = static_cast<double>(arrays.input_bytes() + arrays.result_bytes());
    p.predicted["local_sectors_per_request"] = vi.sectors_per_request;
    // Local sectors moved: none where the array lives in registers; 4 per
    // request when the warp shares the index (exact). With an index per
    // lane the model's 32 is an upper bound: lanes of one 8-lane group
    // whose indices coincide share a sector, so the counter may be a few
    // per cent lower (within 10 %).
    const double tolerance = v == LocalVariant::LocalDivergent ? 0.1 : 0.0;
    const CounterSet counters = (counter_sets::local_sectors() + counter_sets::dram())
                                    .agree("local_sectors_per_request_ld", "local_sectors_per_request", tolerance)
                                    .agree("local_sectors_per_request_st", "local_sectors_per_request", tolerance);
    measure_checked(ctx, point, p, out, &counters);
    cudaFuncAttributes attr{};
    GM_CUDA(kernels::local_array_attributes(v, &attr));
    p.values["array_access_gbs"] = static_cast<double>(threads) * rounds * kLocalWords * 8.0 / (p.time_ms.median * 1e6);
    p.values["registers"] = attr.numRegs;
    p.values["local_bytes_per_thread"] = static_cast<double>(attr.localSizeBytes);
    p.values["input_bytes"] = static_cast<double>(arrays.input_bytes());
    return p;
}

const VariantInfo &variant_named(const std::string &name) {
    for (const VariantInfo &v : kVariants)
        if (name == v.name) return v;
    invalid("variants: unknown '" + name + "'");
}

void run_local_memory(ContextState &ctx, const Params &params, Result &out) {
    const std::size_t threads = threads_for(ctx, params);
    const int rounds = static_cast<int>(params.integer("rounds"));
    ThreadResults arrays(ctx, threads, kLocalWords, kSeed, "local_memory");
    // The reference once for every variant, computed on all host cores.
    arrays.expect([&](std::uint64_t t) { return reference(t, threads, rounds); });
    std::map<std::string, double> ms;
    for (const std::string &name : params.texts("variants")) {
        const VariantInfo &vi = variant_named(name);
        // Accesses to a per-thread array (registers or local memory), not a
        // bandwidth of any one memory: the register version moves no bytes.
        Series s = declared_series(vi.label, name, "rounds", "visits of each word", Quantity::Rate,
                                   {{"threads", threads}, {"block_size", kernels::kLocalBlock}, {"array_words", kLocalWords}});
        s.y_field = "array_access_gbs";
        s.y_name = "rate of array accesses";
        s.points.push_back(measure_variant(ctx, vi, arrays, threads, rounds, out));
        ms[name] = s.points.back().time_ms.median;
        out.series.push_back(std::move(s));
    }
    if (ms.count("registers")) {
        record_ratio_if_measured(out, kIndexOverRegisters, ms, "uniform", "registers", {{"index", "uniform"}});
        record_ratio_if_measured(out, kIndexOverRegisters, ms, "divergent", "registers", {{"index", "divergent"}});
    }
    record_ratio_if_measured(out, kDivergentOverUniform, ms, "divergent", "uniform");
    out.notes.push_back("Each thread keeps an array of 64 words and visits every word once per round (acc += a[i]; "
                        "a[i] = 3 a[i] + 1). With compile-time indices the array stays in registers (local_bytes_per_thread "
                        "0); indexed at run time it cannot, and the compiler puts it in local memory (256 bytes per thread), "
                        "which lives in device memory and is cached in L1 and L2.");
    out.notes.push_back("Local memory is interleaved so that the same index of consecutive threads is in consecutive words: a "
                        "warp whose lanes use the same index reads 128 contiguous bytes (4 sectors); lanes with different "
                        "indices hit 32 different sectors. The access rate counts 8 bytes per visit (read + write of the word); bandwidth_gbs "
                        "is the global memory the kernel reads and writes.");
}

// How reports draw local_memory's result and what they say it shows.
Chart local_memory_chart() {
    Chart c;
    c.kind = "bar";
    c.explanation = "A per-thread array indexed at run time cannot live in registers: the compiler puts it in local memory, "
                    "which is device memory cached in L1 and L2 (local_bytes_per_thread > 0). The guide: local memory is as "
                    "slow as global memory. Compare the two run-time-index bars with the register bar; the per-lane index "
                    "also loses coalescing (32 sectors per warp access instead of 4).";
    return c;
}

}  // namespace

void add_local_memory_experiments(std::vector<Experiment> &out) {
    Experiment e;
    e.name = "local_memory";
    e.guide_section = "Best Practices Guide: Local Memory";
    e.summary = "A per-thread array indexed at run time (local memory, warp-uniform or per-lane index) against the same "
                "work with compile-time indices (registers): local bytes and registers per thread, time.";
    e.params = {size_param("threads", 0, 0, 1LL << 28, "threads, each with its own array; 0: 2 x the device's resident threads"),
                int_param("rounds", 16, 1, 4096, "visits of every array word per thread"),
                enum_list_param("variants", {"registers", "uniform", "divergent"}, {"registers", "uniform", "divergent"},
                                "registers (compile-time indices), uniform and divergent (run-time index)")};
    e.axes = {{"variants"}, ""};  // A one-point series per variant.
    e.run = run_local_memory;
    e.quick = {{"rounds", 4}};
    e.figures = {kIndexOverRegisters, kDivergentOverUniform};
    e.compared = {
        {"uniform_time_over_registers", "local (uniform index) / registers time"},
        {"divergent_time_over_registers", "local (per-lane index) / registers time"},
    };
    e.chart = local_memory_chart();
    out.push_back(std::move(e));
}

}  // namespace gmlab
