// Experiment family "local memory": a per-thread array indexed at run time
// (placed in local memory) against the same work with compile-time indices
// (registers), with the warp-uniform and the per-lane run-time index.
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/experiment/registry.hpp"
#include "core/measurement/harness.hpp"
#include "core/measurement/verify.hpp"
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

void run_local_memory(ContextState &ctx, const Params &params, Result &out) {
    const DeviceInfo &dev = ctx.info();
    const std::size_t threads = params.is_auto("threads")
                                    ? static_cast<std::size_t>(dev.multiprocessors) * dev.max_threads_per_sm * 2
                                    : params.size("threads");
    const int rounds = static_cast<int>(params.integer("rounds"));
    const std::size_t in_bytes = threads * kLocalWords * sizeof(std::uint32_t), out_bytes = threads * sizeof(std::uint32_t);
    require_memory(ctx, in_bytes + out_bytes, "local_memory (" + std::to_string(threads) + " threads x 64 words of input)");
    DeviceArray in(ctx, in_bytes), result(ctx, out_bytes);
    cudaStream_t st = ctx.stream();
    GM_CUDA(kernels::launch_fill_pattern(in.as<std::uint32_t>(), threads * kLocalWords, kSeed, st));
    // The reference once for every variant, computed on all host cores.
    std::vector<std::uint32_t> want(threads), host(threads);
    parallel_for(threads, [&](std::uint64_t t) { want[t] = reference(t, threads, rounds); });
    std::map<std::string, double> ms;
    for (const std::string &name : params.texts("variants")) {
        const VariantInfo *vi = nullptr;
        for (const VariantInfo &v : kVariants)
            if (name == v.name) vi = &v;
        if (!vi) invalid("variants: unknown '" + name + "'");
        auto launch = [&, vi](cudaStream_t s) {
            return kernels::launch_local_array(vi->v, in.as<std::uint32_t>(), result.as<std::uint32_t>(), threads, rounds, 0, s);
        };
        run_checked(ctx, {launch, {{result.get(), out_bytes}}, download_to(host.data(), result.get(), out_bytes), [&] {
                              const std::uint64_t bad = first_mismatch(threads, [&](std::uint64_t t) { return host[t] == want[t]; });
                              if (bad < threads)
                                  verification_failed("local_memory " + name, bad, std::to_string(want[bad]), std::to_string(host[bad]));
                              out.verified(threads, "every thread's sum compared with the host's");
                          }});

        cudaFuncAttributes attr{};
        GM_CUDA(kernels::local_array_attributes(vi->v, &attr));
        Series s;
        s.name = vi->label;
        s.variant = name;
        s.x_name = "rounds";
        s.x_unit = "visits of each word";
        s.y_field = "array_access_gbs";
        s.y_name = "rate of array accesses";
        // Accesses to a per-thread array (registers or local memory), not a
        // bandwidth of any one memory: the register version moves no bytes.
        s.quantity = Quantity::Rate;
        s.attributes = {{"threads", threads}, {"block_size", kernels::kLocalBlock}, {"array_words", kLocalWords}};
        Point p;
        p.x = rounds;
        // bytes: the global memory the kernel moves (its input and result). The
        // series plots the rate of array accesses, 4 + 4 bytes per visit (read +
        // write of the word), which for the register version is not memory
        // traffic at all, so the series is a rate and carries no bandwidth.
        p.bytes = static_cast<double>(in_bytes + out_bytes);
        p.time_ms = time_launch(ctx, launch);
        p.values["array_access_gbs"] = static_cast<double>(threads) * rounds * kLocalWords * 8.0 / (p.time_ms.median * 1e6);
        p.values["registers"] = attr.numRegs;
        p.values["local_bytes_per_thread"] = static_cast<double>(attr.localSizeBytes);
        p.values["input_bytes"] = static_cast<double>(in_bytes);
        p.predicted["local_sectors_per_request"] = vi->sectors_per_request;
        // Local sectors moved: none where the array lives in registers; 4 per
        // request when the warp shares the index (exact). With an index per
        // lane the model's 32 is an upper bound: lanes of one 8-lane group
        // whose indices coincide share a sector, so the counter may be a few
        // per cent lower (within 10 %).
        const double tolerance = vi->v == LocalVariant::LocalDivergent ? 0.1 : 0.0;
        measure_counters(ctx, launch,
                         (counter_sets::local_sectors() + counter_sets::dram())
                             .agree("local_sectors_per_request_ld", "local_sectors_per_request", tolerance)
                             .agree("local_sectors_per_request_st", "local_sectors_per_request", tolerance),
                         p, out);
        ms[name] = p.time_ms.median;
        s.points.push_back(std::move(p));
        out.series.push_back(std::move(s));
    }
    if (ms.count("registers")) {
        if (ms.count("uniform")) out.record(kIndexOverRegisters, ms["uniform"] / ms["registers"], {{"index", "uniform"}});
        if (ms.count("divergent")) out.record(kIndexOverRegisters, ms["divergent"] / ms["registers"], {{"index", "divergent"}});
    }
    if (ms.count("uniform") && ms.count("divergent"))
        out.record(kDivergentOverUniform, ms["divergent"] / ms["uniform"]);
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
