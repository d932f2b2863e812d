// Experiment family "shared memory banks": reads and writes of shared memory
// with a word stride, the guide's n-way conflicts beside the time per access.
#include <cstdio>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/experiment/point_protocol.hpp"
#include "core/experiment/registry.hpp"
#include "core/measurement/harness.hpp"
#include "core/measurement/verify.hpp"
#include "experiments/bank_conflicts/bank_conflicts.cuh"
#include "experiments/bank_conflicts/bank_model.hpp"
#include "experiments/common/point_checks.hpp"

namespace gmlab {

namespace {

// Time at a stride over time at stride 1: the conflict's cost (stride 0: a broadcast).
const Figure kStrideOverStride1{"{variant}_w{word}_stride{stride}_over_stride1", "ratio", Better::Lower,
                                "time of a warp's shared-memory accesses at a stride over at stride 1"};


// A series per word size and access (reads, writes), each along the strides.
const SweepAxes kBankAxes{{"word_sizes", "accesses"}, "strides"};

using kernels::kBankRegionWords;
using kernels::kBankWarpsPerBlock;

// Expected output of one launch, checked word by word on the host.
template <class T>
void check_output(bool write, unsigned stride, unsigned iterations, std::size_t warps, const std::vector<T> &host,
                  Result &out, const std::string &what) {
    if (write) {
        const std::uint64_t n = warps * kBankRegionWords;
        const std::uint64_t bad = first_mismatch(n, [&](std::uint64_t i) {
            const unsigned w = static_cast<unsigned>(i % kBankRegionWords);
            T want = static_cast<T>(kernels::bank_init_value(w));
            if (w % stride == 0 && w / stride < 32) want = static_cast<T>(kernels::bank_write_value(w / stride, iterations - 1));
            return host[i] == want;
        });
        if (bad < n) verification_failed(what, bad, "the last value written there", std::to_string(host[bad]));
        out.verified(n, "every shared word (writes) or every lane's sum (reads) compared with the host's model");
    } else {
        const std::uint64_t n = warps * 32;
        const std::uint64_t bad = first_mismatch(n, [&](std::uint64_t i) {
            const unsigned lane = static_cast<unsigned>(i % 32);
            const T word = static_cast<T>(kernels::bank_init_value((lane * stride) % kBankRegionWords));
            return host[i] == static_cast<T>(word * static_cast<T>(iterations));
        });
        if (bad < n) verification_failed(what, bad, "iterations x the word read", std::to_string(host[bad]));
        out.verified(n, "every shared word (writes) or every lane's sum (reads) compared with the host's model");
    }
}

template <class T>
void run_series(ContextState &ctx, bool write, const std::vector<long long> &strides, unsigned iterations, int blocks,
                DeviceArray &buf, Result &out) {
    const int w = static_cast<int>(sizeof(T));
    const std::size_t warps = static_cast<std::size_t>(blocks) * kBankWarpsPerBlock;
    const std::size_t out_words = write ? warps * kBankRegionWords : warps * 32;
    std::vector<T> host(out_words);
    const DeviceInfo &dev = ctx.info();
    // Quantity: the time of one warp's shared-memory access.
    Series s = declared_series(std::string(write ? "write, " : "read, ") + std::to_string(w) + "-byte words",
                               write ? "write" : "read", "stride", "words", Quantity::Time,
                               {{"word_size", w}, {"iterations", iterations}, {"blocks", blocks},
                                {"warps_per_block", kBankWarpsPerBlock}});
    s.y_field = "ns_per_warp_access";
    s.y_name = "time per warp access, per multiprocessor";
    s.y_unit = "ns";
    for (long long stride_ll : strides) {
        const unsigned stride = static_cast<unsigned>(stride_ll);
        if (write && stride == 0) continue;  // every lane writing one word is a race, not a broadcast
        CheckedLaunch point;
        point.launch = [&buf, write, w, stride, iterations, blocks](cudaStream_t st) {
            return kernels::launch_bank_access(write, w, stride, iterations, blocks, buf.get(), st);
        };
        point.poison = {{buf.get(), out_words * sizeof(T)}};
        point.download = download_to(host.data(), buf.get(), out_words * sizeof(T));
        const std::string what = "bank_conflicts " + s.name + " stride " + std::to_string(stride);
        point.check = [&] { check_output<T>(write, stride, iterations, warps, host, out, what); };
        Point p;
        p.x = stride;
        p.predicted["wavefronts"] = shared_wavefronts(w, stride);
        p.predicted["n_way"] = shared_conflict_ways(w, stride);
        // Counters: the read kernel's strided loads are its only shared loads,
        // so their wavefronts per request equal the model. Measured on an H200
        // with the standard parameters (4 blocks per SM, 4096 iterations), the
        // 8-byte series at strides 17..32 counted up to 5e-5 more wavefronts
        // than requests x model (exact with fewer blocks and iterations, as the
        // GPU test checks), hence a tolerance of 0.1 %. The write kernel's
        // stores include the region's contiguous fill, so its store wavefronts
        // are shown without a claim.
        const CounterSet counters =
            write ? counter_sets::shared_banks()
                  : counter_sets::shared_banks().agree("wavefronts_per_request_ld", "wavefronts", 1e-3);
        measure_checked(ctx, point, p, out, &counters);
        // Each multiprocessor serves its share of the warps' accesses one after another.
        const double per_sm = static_cast<double>(warps) * iterations / dev.multiprocessors;
        const double ns = p.time_ms.median * 1e6 / per_sm;
        p.values["ns_per_warp_access"] = ns;
        p.values["cycles_per_warp_access"] = ns * dev.clock_khz / 1e6;  // at the device's peak SM clock
        s.points.push_back(std::move(p));
    }
    // Time ratios against stride 1 (same work at every point).
    const Point *base = nullptr;
    for (const Point &p : s.points)
        if (p.x == 1) base = &p;
    for (const Point &p : s.points) {
        if (!base || p.x == 1) continue;
        if (p.x == 0 || p.x == 2 || p.x == 32)
            out.record(kStrideOverStride1, p.time_ms.median / base->time_ms.median,
                       {{"variant", s.variant}, {"word", std::to_string(w)}, {"stride", std::to_string(static_cast<int>(p.x))}});
    }
    out.series.push_back(std::move(s));
}

void run_bank_conflicts(ContextState &ctx, const Params &params, Result &out) {
    const unsigned iterations = static_cast<unsigned>(params.integer("iterations"));
    const int blocks = ctx.info().multiprocessors * static_cast<int>(params.integer("blocks_per_sm"));
    const std::size_t warps = static_cast<std::size_t>(blocks) * kBankWarpsPerBlock;
    const std::size_t bytes = warps * kBankRegionWords * 8;  // the largest output: 8-byte writes
    require_memory(ctx, bytes, "bank_conflicts");
    DeviceArray buf(ctx, bytes);
    const Sweep sweep(params, kBankAxes);
    const std::vector<long long> strides = sweep.xs();
    for (const Combination &c : sweep.combinations()) {
        const bool write = c.text("accesses") == "write";
        if (c.integer("word_sizes") == 4) run_series<std::uint32_t>(ctx, write, strides, iterations, blocks, buf, out);
        else run_series<std::uint64_t>(ctx, write, strides, iterations, blocks, buf, out);
    }
    out.notes.push_back("Each warp works in its own shared region: lane t touches word (t x stride) mod 1024, "
                        "`iterations` times (volatile, so that every access happens). Stride 0 is the broadcast: every "
                        "lane reads one word (not timed for writes, where it would be a race).");
    out.notes.push_back("Prediction (compute capability 5.0 and later): 32 banks of 4 bytes; an odd stride is conflict-free, "
                        "stride 2^k is a 2^k-way conflict (up to 32), a broadcast costs one access. A pass serves one word "
                        "per bank and at most 128 bytes, so a warp of 8-byte words takes 2 passes without conflicts, "
                        "stride 2 is already 2-way, and an 8-byte broadcast takes half the time of stride 1.");
    out.notes.push_back("Time per warp access = kernel time / (warp accesses per multiprocessor); it includes filling and "
                        "reading out each region once, under 1% at the default 4096 iterations. Cycles assume the peak SM clock.");
}

// How reports draw bank_conflicts's result and what they say it shows.
Chart bank_conflicts_chart() {
    Chart c;
    c.kind = "line";
    c.x_title = "stride (words; 0 = every lane one word)";
    c.y_log = true;
    c.prediction = "predicted.n_way";
    c.prediction_label = "n-way model";
    c.counter = "counters.wavefronts_per_request_ld";
    c.counter_model = "predicted.wavefronts";
    c.explanation = "32 banks of 4 bytes serve one word each per pass: odd strides are free, stride 2^k costs 2^k passes, "
                    "a broadcast costs one.";
    return c;
}

}  // namespace

void add_bank_conflicts_experiments(std::vector<Experiment> &out) {
    Experiment e;
    e.name = "bank_conflicts";
    e.guide_section = "Best Practices Guide: Shared Memory and Memory Banks";
    e.summary = "Shared-memory reads and writes with a word stride of 0 (broadcast) to 32: n-way bank conflicts, "
                "predicted and measured, for 4- and 8-byte words.";
    std::vector<long long> strides;
    for (int i = 0; i <= 32; ++i) strides.push_back(i);
    ParamSpec words = int_list_param("word_sizes", {4, 8}, 4, 8, "bytes per word", "bytes");
    words.allowed = {4, 8};
    e.params = {
        int_list_param("strides", strides, 0, 32, "word strides swept (0: every lane reads one word)", "words"),
        std::move(words),
        enum_list_param("accesses", {"read", "write"}, {"read", "write"}, "reads, writes or both"),
        int_param("iterations", 4096, 1, 1 << 20, "accesses per lane per launch"),
        int_param("blocks_per_sm", 4, 1, 32, "blocks of 4 warps per multiprocessor"),
    };
    e.axes = kBankAxes;
    e.run = run_bank_conflicts;
    e.quick = {{"strides", {0, 1, 2, 32}}, {"iterations", 256}};
    e.figures = {kStrideOverStride1};
    e.compared = {
        {"read_w4_stride2_over_stride1", "stride 2 / stride 1 (2-way conflict)"},
        {"read_w4_stride32_over_stride1", "stride 32 / stride 1 (32-way conflict)"},
        {"read_w4_stride0_over_stride1", "broadcast / stride 1"},
    };
    e.chart = bank_conflicts_chart();
    out.push_back(std::move(e));
}

}  // namespace gmlab
