// Experiment family "asynchronous copy": the guide's global -> shared copy,
// through registers vs __pipeline_memcpy_async, timed with clock64 inside the
// kernel (as the guide does) and with events.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/experiment/point_protocol.hpp"
#include "core/experiment/registry.hpp"
#include "core/measurement/harness.hpp"
#include "experiments/async_copy/async_copy.cuh"
#include "experiments/common/point_checks.hpp"
#include "shared_kernels/fill_pattern.cuh"
#include "shared_kernels/pattern.hpp"

namespace gmlab {

namespace {

using kernels::kAsyncBlock;
constexpr std::uint32_t kSeed = 4242;

std::vector<long long> default_counts() {
    std::vector<long long> v;
    for (int i = 1; i <= 16; ++i) v.push_back(i);
    for (int i : {20, 24, 28, 32, 48, 64, 96, 128, 192, 224}) v.push_back(i);
    return v;
}

// A pair of series (sync, async) per element size, along the copy counts
// (those that fit the device's shared memory).
const SweepAxes kAxes{{"word_sizes"}, "copy_counts"};

const Figure kAsyncOverSync{"w{word}_count{count}_async_over_sync_cycles", "ratio", Better::Lower,
                            "cycles per element copied with cp.async over through registers, at a copy count"};

// The copy counts of the sweep: each must fit the shared memory a block may
// have; the default sweep is cut to the device (with a note), a count asked
// for explicitly is an error.
std::vector<long long> copy_counts_for(const Params &params, std::size_t smem_limit, long long max_word, Result &out) {
    const bool default_sweep = params.json()["copy_counts"] == nlohmann::json(default_counts());
    std::vector<long long> counts;
    for (long long c : params.integers("copy_counts")) {
        if (static_cast<std::size_t>(c) * kAsyncBlock * max_word <= smem_limit) {
            counts.push_back(c);
        } else if (!default_sweep) {
            invalid("copy_count " + std::to_string(c) + " needs " + std::to_string(c * kAsyncBlock * max_word) +
                    " bytes of shared memory per block for " + std::to_string(max_word) +
                    "-byte elements; this device allows " + std::to_string(smem_limit) + " (at most " +
                    std::to_string(smem_limit / (kAsyncBlock * max_word)) + ")");
        }
    }
    if (counts.empty()) invalid("no copy_count fits this device's shared memory");
    if (default_sweep && counts.size() < default_counts().size())
        out.notes.push_back("copy counts above " + std::to_string(counts.back()) + " are left out: " +
                            std::to_string(kAsyncBlock) + " threads x count x " + std::to_string(max_word) +
                            " bytes must fit the " + std::to_string(smem_limit) + " bytes of shared memory a block may use");
    return counts;
}

// The device buffers of the sweep. Each timed launch sums its clocks into a
// slot of its own (the warm-up launches, and the checked launch before them,
// into another), so that cycles_per_element is the median over the timed
// launches: a launch slowed by something else moves a mean, not the median.
struct AsyncBuffers {
    AsyncBuffers(ContextState &ctx, std::size_t bytes_)
        : bytes(bytes_), slots(static_cast<std::size_t>(std::max(1, ctx.settings.max_repetitions))), in(ctx, bytes),
          out(ctx, bytes), clock(ctx, slots * sizeof(unsigned long long)), warmup_clock(ctx, sizeof(unsigned long long)),
          cycles(slots), host(bytes / 4) {}
    std::size_t bytes, slots;
    DeviceArray in, out, clock, warmup_clock;
    std::vector<unsigned long long> cycles;
    std::vector<std::uint32_t> host;
};

// One kernel (sync or async) at one copy count through the core's point
// protocol: the output poisoned, one launch checked against the input, then
// timed; then the clock sums of the timed launches read back.
Point measure_count(ContextState &ctx, AsyncBuffers &buf, bool async, int w, long long count, int blocks,
                    const std::string &series_name, Result &out) {
    const std::size_t elems = static_cast<std::size_t>(blocks) * kAsyncBlock * count;
    const int warmup = ctx.settings.warmup;
    // -1: the checked launch, before the harness's `warmup` untimed launches.
    int calls = -1;
    CheckedLaunch point;
    point.launch = [&](cudaStream_t stream) {
        const int call = calls++;
        unsigned long long *sum = call < warmup ? buf.warmup_clock.as<unsigned long long>()
                                                : buf.clock.as<unsigned long long>() +
                                                      std::min<std::size_t>(call - warmup, buf.slots - 1);
        return kernels::launch_global_to_shared(async, w, buf.in.get(), buf.out.get(), static_cast<std::size_t>(count), blocks,
                                                sum, stream);
    };
    point.poison = {{buf.out.get(), elems * w}};
    point.download = download_to(buf.host.data(), buf.out.get(), elems * w);
    point.check = [&] {
        verify_equal(buf.host.data(), elems * w / 4, [](std::uint64_t t) { return pattern_word(t, kSeed); },
                     "async_copy " + series_name + " count " + std::to_string(count),
                     "every element copied through shared memory compared with the input", out);
    };
    // One clock sum per timed launch of the harness.
    GM_CUDA(cudaMemsetAsync(buf.clock.get(), 0, buf.slots * sizeof(unsigned long long), ctx.stream()));
    Point p;
    p.x = static_cast<double>(count);
    p.bytes = 2.0 * static_cast<double>(elems) * w;  // in and back out, for the event time
    measure_checked(ctx, point, p, out);
    const std::size_t launches = std::min<std::size_t>(std::max<std::size_t>(p.time_ms.n, 1), buf.slots);
    GM_CUDA(cudaMemcpy(buf.cycles.data(), buf.clock.get(), launches * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    std::vector<double> per_launch(launches);
    for (std::size_t i = 0; i < launches; ++i) per_launch[i] = static_cast<double>(buf.cycles[i]) / static_cast<double>(elems);
    p.values["cycles_per_element"] = summarize(std::move(per_launch)).median;
    p.values["total_bytes"] = static_cast<double>(elems) * w;
    return p;
}

// The series of one kernel (sync or async) at one element size.
Series async_series(bool async, long long w, int blocks, int registers) {
    // Quantity: the cost of one element's copy.
    Series s = declared_series(std::string(async ? "async" : "sync") + ", " + std::to_string(w) + "-byte elements",
                               async ? "async" : "sync", "copy_count", "elements per thread", Quantity::Time,
                               {{"word_size", w}, {"block_size", kAsyncBlock}, {"blocks", blocks}, {"registers", registers}});
    s.y_field = "cycles_per_element";
    s.y_name = "clock64 cycles per element";
    s.y_unit = "cycles";
    return s;
}

// Both kernels at one element size over the sweep, and the async/sync figures.
void run_word_size(ContextState &ctx, AsyncBuffers &buf, int w, const std::vector<long long> &counts, int blocks, Result &out) {
    Series both[2];
    int registers[2] = {0, 0};
    for (bool async : {false, true}) {
        cudaFuncAttributes attr{};
        GM_CUDA(kernels::global_to_shared_attributes(async, w, &attr));
        registers[async] = attr.numRegs;
        both[async] = async_series(async, w, blocks, attr.numRegs);
    }
    // Sync and async of one count are measured one after the other, so
    // that their ratio does not take in the GPU's drift over the sweep.
    for (long long count : counts) {
        Point sync = measure_count(ctx, buf, false, w, count, blocks, both[0].name, out);
        Point async = measure_count(ctx, buf, true, w, count, blocks, both[1].name, out);
        sync.values["registers"] = registers[0];
        async.values["registers"] = registers[1];
        const double ratio = async.values["cycles_per_element"] / sync.values["cycles_per_element"];
        async.values["async_over_sync_cycles"] = ratio;
        async.values["async_over_sync_time"] = async.time_ms.median / sync.time_ms.median;
        if (count == 1 || count == 4 || count == 7 || count == 16 || count == counts.back())
            out.record(kAsyncOverSync, ratio, {{"word", std::to_string(w)}, {"count", std::to_string(count)}});
        both[0].points.push_back(std::move(sync));
        both[1].points.push_back(std::move(async));
    }
    for (Series &s : both) out.series.push_back(std::move(s));
}

void run_async_copy(ContextState &ctx, const Params &params, Result &out) {
    const DeviceInfo &dev = ctx.info();
    const std::size_t smem_limit = dev.shared_per_block_optin;
    const int blocks = dev.multiprocessors * static_cast<int>(params.integer("blocks_per_sm"));
    const std::vector<long long> words = params.integers("word_sizes");
    const long long max_word = *std::max_element(words.begin(), words.end());
    const std::vector<long long> counts = copy_counts_for(params, smem_limit, max_word, out);
    GM_CUDA(kernels::allow_global_to_shared(smem_limit));

    const std::size_t max_elems = static_cast<std::size_t>(blocks) * kAsyncBlock * counts.back();
    const std::size_t bytes = max_elems * max_word;
    require_memory(ctx, 2 * bytes + 8, "async_copy");
    AsyncBuffers buf(ctx, bytes);
    GM_CUDA(kernels::launch_fill_pattern(buf.in.as<std::uint32_t>(), bytes / 4, kSeed, ctx.stream()));
    for (const Combination &c : Sweep(params, kAxes).combinations())
        run_word_size(ctx, buf, static_cast<int>(c.integer("word_sizes")), counts, blocks, out);
    out.notes.push_back("Each of " + std::to_string(blocks) + " blocks of " + std::to_string(kAsyncBlock) +
                        " threads copies copy_count elements per thread from global to shared memory: sync through a "
                        "register (the guide's pipeline_kernel_sync), async with __pipeline_memcpy_async and one wait "
                        "(pipeline_kernel_async). cycles_per_element is the clock64 time of the copy loop, summed over "
                        "threads and divided by the elements, as the guide measures it (the median over the timed "
                        "launches); the event time also covers "
                        "writing the shared data back to global memory, which lets the copy be checked.");
    out.notes.push_back("The guide: sync is best when copy_count is a multiple of 4; async beats sync almost everywhere "
                        "and does not care about multiples of 4; 8- and 16-byte elements are best; 16-byte async copies "
                        "can bypass L1. The async kernels also need no registers to stage the data (see registers).");
}

// How reports draw async_copy's result and what they say it shows.
Chart async_copy_chart() {
    Chart c;
    c.kind = "line";
    c.x_title = "copy_count (elements per thread)";
    c.x_log = true;
    c.explanation = "Global to shared copies through registers (sync) or with the asynchronous copy: sync prefers multiples of 4, "
                    "async is faster almost everywhere.";
    return c;
}

}  // namespace

void add_async_copy_experiments(std::vector<Experiment> &out) {
    Experiment e;
    e.name = "async_copy";
    e.guide_section = "Best Practices Guide: Asynchronous Copy from Global Memory to Shared Memory";
    e.summary = "Global -> shared copies through registers vs __pipeline_memcpy_async, 4/8/16-byte elements, copy_count "
                "swept: clock64 cycles per element and the async/sync ratio.";
    ParamSpec words = int_list_param("word_sizes", {4, 8, 16}, 4, 16, "bytes per element", "bytes");
    words.allowed = {4, 8, 16};
    e.params = {
        int_list_param("copy_counts", default_counts(), 1, 4096, "elements each thread copies (x 256 threads must fit shared memory)"),
        std::move(words),
        int_param("blocks_per_sm", 1, 1, 32, "blocks per multiprocessor"),
    };
    e.axes = kAxes;
    e.run = run_async_copy;
    e.quick = {{"copy_counts", {1, 4, 7}}};
    e.figures = {kAsyncOverSync};
    e.compared = {
        {"w4_count48_async_over_sync_cycles", "async / sync cycles, 4-byte elements, 48 copies"},
        {"w16_count48_async_over_sync_cycles", "async / sync cycles, 16-byte elements, 48 copies"},
    };
    e.chart = async_copy_chart();
    out.push_back(std::move(e));
}

}  // namespace gmlab
