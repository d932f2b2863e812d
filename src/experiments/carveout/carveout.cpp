// Experiment family "carveout": L1 and shared memory share one array per SM,
// and the shared-memory carveout a kernel prefers
// (cudaFuncAttributePreferredSharedMemoryCarveout) decides how much L1 it
// keeps. One block per SM reads a working set over and over through L1, for
// working sets swept across the L1 sizes the carveouts leave: the time and
// the L1 hit rate per carveout, the working set where the hit rate falls, and
// beside it the model's L1 (unified size - the shared capacity the preference
// rounds to).
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/experiment/point_protocol.hpp"
#include "core/experiment/registry.hpp"
#include "core/measurement/harness.hpp"
#include "core/measurement/verify.hpp"
#include "experiments/carveout/carveout.cuh"
#include "experiments/carveout/carveout_model.hpp"
#include "experiments/common/latency_model.hpp"
#include "shared_kernels/fill_pattern.cuh"
#include "shared_kernels/pattern.hpp"

namespace gmlab {

namespace {

constexpr std::uint32_t kSeed = 606;

// The headline figures, per carveout preference where the name has
// {carveout} (its percentage). A working set "fits" while the reads stay on the
// highest level of read_gbs (L1 hits) and "falls" at the first past it. The
// chase's and with_shared's figures come before the reads' patterns, whose
// names their keys would also match.
const Figure kPreferenceFound{"carveout_preference_found", "%", Better::Neither,
                              "the reads kernel's carveout preference before the run (-1: none set)"};
const Figure kPreferenceAfter{"carveout_preference_after", "%", Better::Neither,
                              "the reads kernel's carveout preference after the run put it back"};
const Figure kReservedShared{"reserved_shared_per_block", "bytes", Better::Neither,
                             "shared memory the system reserves per block (cudaDevAttrReservedSharedMemoryPerBlock)"};
const Figure kMaxSharedPerSm{"max_shared_per_sm", "bytes", Better::Neither,
                             "largest shared memory per SM (cudaDevAttrMaxSharedMemoryPerMultiprocessor)"};
const Figure kUnifiedBytes{"unified_l1_shared_bytes", "bytes", Better::Neither,
                           "size of the array per SM that L1 and shared memory share, from the model's table"};
const Figure kChaseFits{"carveout{carveout}_chase_fits_bytes", "bytes", Better::Neither,
                        "largest working set the dependent chase still reads at its L1 latency under one carveout"};
const Figure kChaseFalls{"carveout{carveout}_chase_falls_bytes", "bytes", Better::Neither,
                         "smallest working set past the chase's L1 level under one carveout"};
const Figure kChaseL1Cycles{"carveout{carveout}_chase_l1_cycles", "cycles", Better::Lower,
                            "latency of one dependent ld.global.ca over the smallest working set (an L1 hit) under one carveout"};
const Figure kWithSharedFalls{"carveout{carveout}_with_shared_falls_bytes", "bytes", Better::Neither,
                              "smallest working set past the L1 level of the reads with 256 B of static shared memory"};
const Figure kFits{"carveout{carveout}_fits_bytes", "bytes", Better::Neither,
                   "largest working set still read from L1 under one carveout (the last on the highest level of read_gbs)"};
const Figure kFalls{"carveout{carveout}_falls_bytes", "bytes", Better::Neither,
                    "smallest working set past the L1 level of read_gbs under one carveout"};
const Figure kStepDrop{"carveout{carveout}_step_drop", "ratio", Better::Neither,
                       "how far read_gbs fell at the step out of L1: 1 - after / before"};
const Figure kFallsCounted{"carveout{carveout}_falls_bytes_counters", "bytes", Better::Neither,
                           "smallest working set past the highest level of the counted L1 hit share"};
const Figure kHitShareSmallest{"carveout{carveout}_hit_share_smallest", "ratio", Better::Neither,
                               "counted L1 hit share of the reads over the smallest working set"};
const Figure kHitShareLargest{"carveout{carveout}_hit_share_largest", "ratio", Better::Neither,
                              "counted L1 hit share of the reads over the largest working set"};
const Figure kModelBrackets{"carveout{carveout}_model_brackets", "count", Better::Neither,
                            "1 where the model's L1 lies between the working set that fits and the one that falls, else 0"};
const Figure kSharedCapacity{"carveout{carveout}_shared_capacity_bytes", "bytes", Better::Neither,
                             "shared memory capacity per SM the model rounds the carveout up to"};
const Figure kL1PredictedBytes{"carveout{carveout}_l1_predicted_bytes", "bytes", Better::Neither,
                               "L1 per SM the model leaves under one carveout (unified size - shared capacity)"};
const Figure kL1PredictedKib{"carveout{carveout}_l1_predicted_kib", "KiB", Better::Neither,
                             "the same L1 per SM the model leaves, in KiB (the chart's markers)"};

FigureAt at_carveout(long long c) { return {{"carveout", std::to_string(c)}}; }

// A series over the working set per SM, in KiB, of one carveout.
Series working_set_series(const std::string &name, const std::string &variant, Quantity quantity) {
    Series s;
    s.name = name;
    s.variant = variant;
    s.x_name = "working set per SM";
    s.x_unit = "KiB";
    s.quantity = quantity;
    return s;
}

// Bytes read per second by every block, most of them L1 hits: not a
// bandwidth of device memory, a value of its own, so that nothing reads it
// as DRAM traffic.
void reads_per_second(Series &s) {
    s.y_field = "read_gbs";
    s.y_name = "bytes read per second (L1 and L2 hits)";
    s.y_unit = "GB/s";
}

// A kernel's carveout preference as found, set back when this goes out of
// scope, on every path (never throws). The preference is a function
// attribute: it stays with the kernel for the whole process.
class CarveoutRestore {
public:
    explicit CarveoutRestore(kernels::L1Kernel kernel = kernels::L1Kernel::Reads) : kernel_(kernel) {
        cudaFuncAttributes a{};
        GM_CUDA(kernels::l1_attributes(kernel_, &a));
        saved_ = a.preferredShmemCarveout;
    }
    ~CarveoutRestore() {
        kernels::set_l1_carveout(kernel_, saved_);
        (void)cudaGetLastError();
    }
    CarveoutRestore(const CarveoutRestore &) = delete;
    CarveoutRestore &operator=(const CarveoutRestore &) = delete;
    int found() const { return saved_; }
    // Puts it back now and returns what the kernel reports afterwards.
    int restore() {
        GM_CUDA(kernels::set_l1_carveout(kernel_, saved_));
        cudaFuncAttributes a{};
        GM_CUDA(kernels::l1_attributes(kernel_, &a));
        return a.preferredShmemCarveout;
    }

private:
    kernels::L1Kernel kernel_;
    int saved_ = -1;
};

// The same L1, found by latency: one thread chases a random ring of the
// working set's 128-byte lines under the chase kernel's own preference c.
// Each point: the ring checked by the node the walk ends on, the launch
// timed, the cycles per load from one more launch.
Series chase_series(ContextState &ctx, int c, const std::vector<std::size_t> &sizes, Result &out) {
    cudaStream_t st = ctx.stream();
    DeviceArray ring(ctx, sizes.back()), cycles(ctx, 2 * sizeof(unsigned long long));
    GM_CUDA(kernels::set_l1_carveout(kernels::L1Kernel::Chase, c));
    // One per carveout: carveout_percent tells them apart.
    Series s = working_set_series("carveout " + std::to_string(c) + "%, one thread's dependent chase (L1 found by latency)",
                                  "chase", Quantity::Latency);
    s.y_field = "latency_cycles";
    s.y_name = "cycles per dependent ld.global.ca";
    s.y_unit = "cycles";
    s.attributes = {{"carveout_percent", c}, {"line_bytes", 128}};
    for (std::size_t ws : sizes) {
        const std::size_t lines = ws / 128, words = ws / 4;
        const std::vector<std::uint32_t> succ = single_cycle(lines, kSeed + ws);  // succ[i]: the line after line i
        std::vector<std::uint32_t> next(words, 0);  // word indices, one node at the start of each line
        for (std::size_t i = 0; i < lines; ++i) next[i * 32] = succ[i] * 32;
        GM_CUDA(cudaMemcpyAsync(ring.get(), next.data(), ws, cudaMemcpyHostToDevice, st));
        const auto hops = static_cast<std::uint32_t>(std::max<std::size_t>(4 * lines, 2048));
        auto launch = [&](cudaStream_t s2) {
            return kernels::launch_l1_chase(ring.as<std::uint32_t>(), hops, cycles.as<unsigned long long>(), s2);
        };
        unsigned long long got[2] = {0, 0};
        // Node indices are word indices of line starts: the walk of succ from node 0.
        const std::uint64_t want = 32ull * walk(succ, 0, 2ull * hops);
        Point p;
        p.x = static_cast<double>(ws) / kKiB;
        measure_checked(ctx,
                        {launch, {{cycles.get(), cycles.bytes()}}, download_to(got, cycles.get(), sizeof got),
                         [&] {
                             if (got[1] != want)
                                 verification_failed("carveout chase " + std::to_string(c) + "% working set " + std::to_string(ws),
                                                     0, std::to_string(want), std::to_string(got[1]));
                             out.verified(1, "the node each chase ended on compared with the host's walk of the same ring");
                         }},
                        p, out);
        p.values["latency_cycles"] = static_cast<double>(got[0]) / hops;
        p.values["hops"] = hops;
        s.points.push_back(std::move(p));
    }
    return s;
}

// A reads launch as the point protocol runs it: once on poisoned sums,
// checking that every block read every word of the working set `passes`
// times (want: passes x the host's sum of the working set), before it is
// timed. `got` receives the sums.
CheckedLaunch block_sums_checked(const Launch &launch, const DeviceArray &sums_d, std::vector<std::uint64_t> &got,
                                 std::uint64_t want, const std::string &what, Result &out) {
    return {launch, {{sums_d.get(), sums_d.bytes()}}, download_to(got.data(), sums_d.get(), sums_d.bytes()), [&got, want, what, &out] {
                for (std::size_t b = 0; b < got.size(); ++b)
                    if (got[b] != want) verification_failed(what + " (block sum)", b, std::to_string(want), std::to_string(got[b]));
                out.verified(got.size(), "every block's sum of the words it read compared with passes x the host's sum of "
                                         "the working set");
            }};
}

// What the reads kernel with 256 bytes of static shared memory (the kernel
// this experiment had) gets under preference c: one block per SM reading each
// working set, every block's sum checked, the launch timed.
Series with_shared_series(ContextState &ctx, int c, const std::vector<std::size_t> &sizes, const DeviceArray &data,
                          const std::vector<std::uint64_t> &prefix, std::uint64_t reads_per_sm, unsigned blocks, Result &out) {
    DeviceArray sums_d(ctx, blocks * sizeof(std::uint64_t));
    GM_CUDA(kernels::set_l1_carveout(kernels::L1Kernel::ReadsWithShared, c));
    Series s = working_set_series("carveout " + std::to_string(c) + "%, the same reads with 256 B of static shared memory in the kernel",
                                  "with_shared", Quantity::L1Bandwidth);
    reads_per_second(s);
    s.attributes = {{"carveout_percent", c}, {"static_shared_bytes", 256}};
    for (std::size_t ws : sizes) {
        const auto n_vec = static_cast<std::uint32_t>(ws / 16);
        const auto passes = static_cast<std::uint32_t>(std::max<std::uint64_t>(1, reads_per_sm / ws));
        auto launch = [&](cudaStream_t s2) {
            return kernels::launch_l1_reads_with_shared(data.as<std::uint32_t>(), n_vec, passes, blocks,
                                                        sums_d.as<unsigned long long>(), s2);
        };
        std::vector<std::uint64_t> got(blocks);
        Point p;
        p.x = static_cast<double>(ws) / kKiB;
        measure_checked(ctx,
                        block_sums_checked(launch, sums_d, got, passes * prefix[ws / 4],
                                           "carveout with shared memory " + std::to_string(c) + "% working set " + std::to_string(ws),
                                           out),
                        p, out);
        const double read = static_cast<double>(blocks) * passes * static_cast<double>(ws);
        p.values["read_gbs"] = bandwidth_gbs(read, p.time_ms.median);
        p.values["passes"] = passes;
        s.points.push_back(std::move(p));
    }
    return s;
}

std::vector<double> values_of(const Series &s, const char *key) {
    std::vector<double> v;
    for (const Point &p : s.points) v.push_back(p.values.at(key));
    return v;
}

// Each carveout's L1 by latency beside the bandwidth sweep, and what a
// kernel's own shared memory does to the preferences between 0 and 100 %.
void second_methods(ContextState &ctx, const std::vector<long long> &carveouts, const std::vector<std::size_t> &sizes,
                    const DeviceArray &data, const std::vector<std::uint64_t> &prefix, std::uint64_t reads_per_sm,
                    unsigned blocks, double min_step, Result &out) {
    std::vector<double> xs;
    for (std::size_t ws : sizes) xs.push_back(static_cast<double>(ws));
    CarveoutRestore restore_chase(kernels::L1Kernel::Chase), restore_shared(kernels::L1Kernel::ReadsWithShared);
    for (long long c : carveouts) {
        Series s = chase_series(ctx, static_cast<int>(c), sizes, out);
        // The same finder as the reads', on loads per cycle: L1's level is the highest.
        std::vector<double> per_cycle;
        for (double c_ : values_of(s, "latency_cycles")) per_cycle.push_back(c_ > 0 ? 1.0 / c_ : 0.0);
        const L1Fall fall = l1_fall(xs, per_cycle, min_step);
        if (fall.found) out.record(kChaseFits, fall.fits, at_carveout(c));
        if (fall.fell) out.record(kChaseFalls, fall.falls, at_carveout(c));
        out.record(kChaseL1Cycles, s.points.front().values.at("latency_cycles"), at_carveout(c));
        out.series.push_back(std::move(s));
    }
    out.notes.push_back("Each carveout's L1 is found a second way: one thread chases a random ring of the working set's "
                        "128-byte lines with ld.global.ca under the same preference (series 'chase'; carveout<p>_chase_fits_bytes "
                        "and _chase_falls_bytes: the step out of the fastest level of loads per cycle, by the same finder).");
    out.notes.push_back("The reads kernel has no shared memory of its own (each warp adds its sum to the block's in global "
                        "memory). The same reads with 256 bytes of static shared memory (series 'with_shared', for each "
                        "preference between 0 and 100 %) ran on an H200 with the largest shared configuration under every "
                        "preference but 0 %: 50 % left them the L1 of 100 %. A preference is a hint, and a kernel's own "
                        "shared memory changes what the driver chooses.");
    for (long long c : carveouts) {
        if (c <= 0 || c >= 100) continue;
        Series s = with_shared_series(ctx, static_cast<int>(c), sizes, data, prefix, reads_per_sm, blocks, out);
        const L1Fall fall = l1_fall(xs, values_of(s, "read_gbs"), min_step);
        if (fall.fell) out.record(kWithSharedFalls, fall.falls, at_carveout(c));
        out.series.push_back(std::move(s));
    }
}

// Where the L1 stopped holding the working set: the step out of the highest
// level of read_gbs (carveout_model.hpp), and of the counted hit share where
// every point was counted; whether the model's L1 (l1 >= 0) lies in between.
void summarise_fall(long long carveout, const std::vector<double> &sizes, const std::vector<double> &bandwidth,
                    const std::vector<double> &hits, double min_step, double l1, nlohmann::json &attributes, Result &out) {
    const FigureAt at = at_carveout(carveout);
    const L1Fall fall = l1_fall(sizes, bandwidth, min_step);
    if (fall.found) {
        out.record(kFits, fall.fits, at);
        attributes["l1_level_gbs"] = fall.level;
    }
    if (fall.fell) {
        out.record(kFalls, fall.falls, at);
        out.record(kStepDrop, fall.drop, at);
    }
    if (!hits.empty() && hits.size() == sizes.size()) {
        const L1Fall hit_fall = l1_fall(sizes, hits, min_step, LevelScale::Absolute);
        if (hit_fall.fell) out.record(kFallsCounted, hit_fall.falls, at);
        out.record(kHitShareSmallest, hits.front(), at);
        out.record(kHitShareLargest, hits.back(), at);
    }
    if (l1 >= 0) out.record(kModelBrackets, brackets(fall, l1) ? 1 : 0, at);
}

// The model's inputs: the device's largest shared memory per SM, the shared
// memory the system reserves per block, the reads kernel's own.
struct CarveoutModelInputs {
    int reserved = 0;
    std::size_t needed = 0;  // one resident block: its static shared memory and the reserved bytes
    std::size_t max_shared = 0;
    UnifiedL1 unified;
};

CarveoutModelInputs model_inputs(ContextState &ctx) {
    const DeviceInfo &dev = ctx.info();
    CarveoutModelInputs m;
    if (cudaDeviceGetAttribute(&m.reserved, cudaDevAttrReservedSharedMemoryPerBlock, ctx.device()) != cudaSuccess) {
        m.reserved = 0;  // not offered before CUDA 11: none reserved
        (void)cudaGetLastError();
    }
    cudaFuncAttributes attrs{};
    GM_CUDA(kernels::l1_reads_attributes(&attrs));
    m.needed = attrs.sharedSizeBytes + static_cast<std::size_t>(m.reserved);
    int max_shared_attr = 0;
    GM_CUDA(cudaDeviceGetAttribute(&max_shared_attr, cudaDevAttrMaxSharedMemoryPerMultiprocessor, ctx.device()));
    m.max_shared = static_cast<std::size_t>(max_shared_attr);
    m.unified = unified_l1(dev.cc_major, dev.cc_minor, m.max_shared);
    return m;
}

// What every carveout's reads share: the working set on the device, the
// host's sums of its first k words, the bytes each SM reads per launch and
// the blocks (one per SM) with their sums.
struct ReadsSetup {
    const std::vector<std::size_t> &sizes;
    const DeviceArray &data;
    const DeviceArray &sums_d;
    const std::vector<std::uint64_t> &prefix;
    std::uint64_t reads_per_sm;
    unsigned blocks;
    double min_step;
};

// The reads under preference c over every working set: each point checked,
// timed and counted (the L1 hit share), with the model's L1 beside it; where
// the reads fell out of L1, and the model's figures.
Series carveout_reads_series(ContextState &ctx, long long c, const CarveoutModelInputs &m, const ReadsSetup &r, Result &out) {
    GM_CUDA(kernels::set_l1_reads_carveout(static_cast<int>(c)));
    const UnifiedL1 &unified = m.unified;
    const std::size_t shared = shared_capacity_for(unified, static_cast<int>(c), m.max_shared, m.needed);
    const std::size_t l1 = l1_left(unified, shared);
    Series series = working_set_series(
        "carveout " + std::to_string(c) + "%" +
            (unified.known ? " (shared " + kib_text(shared) + ", L1 " + kib_text(l1) + " by the model)" : std::string()),
        "carveout" + std::to_string(c), Quantity::L1Bandwidth);
    reads_per_second(series);
    series.attributes = {{"carveout_percent", c}, {"passes_target_bytes", r.reads_per_sm}};
    if (unified.known) {
        series.attributes["shared_capacity_bytes"] = shared;
        series.attributes["l1_bytes_predicted"] = l1;
    }
    std::vector<double> bandwidth, hits, xs;
    for (std::size_t ws : r.sizes) {
        const std::uint32_t n_vec = static_cast<std::uint32_t>(ws / 16);
        const std::uint64_t passes = std::max<std::uint64_t>(1, r.reads_per_sm / ws);
        auto launch = [&, n_vec, passes](cudaStream_t s) {
            return kernels::launch_l1_reads(r.data.as<std::uint32_t>(), n_vec, static_cast<std::uint32_t>(passes), r.blocks,
                                            r.sums_d.as<unsigned long long>(), s);
        };
        Point p;
        p.x = static_cast<double>(ws) / kKiB;
        if (unified.known) {
            p.predicted["l1_bytes"] = static_cast<double>(l1);
            p.predicted["l1_hit_share"] = predicted_l1_hit_share(ws, l1, passes);
            p.predicted["fits"] = ws <= l1 ? 1 : 0;
        }
        std::vector<std::uint64_t> got(r.blocks);
        const CounterSet hits_counted = counter_sets::l1_global_hits();
        measure_checked(ctx,
                        block_sums_checked(launch, r.sums_d, got, passes * r.prefix[ws / 4],
                                           "carveout " + std::to_string(c) + "% working set " + std::to_string(ws), out),
                        p, out, &hits_counted);
        const double read = static_cast<double>(r.blocks) * static_cast<double>(passes) * static_cast<double>(ws);
        p.values["bytes_read"] = read;
        p.values["read_gbs"] = bandwidth_gbs(read, p.time_ms.median);
        p.values["passes"] = static_cast<double>(passes);
        p.values["working_set_bytes"] = static_cast<double>(ws);
        bandwidth.push_back(p.values["read_gbs"]);
        xs.push_back(static_cast<double>(ws));
        if (auto h = p.counters.find("l1_global_hit_share"); h != p.counters.end()) hits.push_back(h->second);
        series.points.push_back(std::move(p));
    }
    summarise_fall(c, xs, bandwidth, hits, r.min_step, unified.known ? static_cast<double>(l1) : -1.0, series.attributes, out);
    if (unified.known) {
        out.record(kSharedCapacity, static_cast<double>(shared), at_carveout(c));
        out.record(kL1PredictedBytes, static_cast<double>(l1), at_carveout(c));
        out.record(kL1PredictedKib, static_cast<double>(l1) / kKiB, at_carveout(c));
    }
    return series;
}

void add_carveout_notes(Result &out, const DeviceInfo &dev, const CarveoutModelInputs &m, std::uint64_t reads_per_sm,
                        double min_step, int found) {
    const UnifiedL1 &unified = m.unified;
    std::string capacities;
    for (std::size_t cap : unified.shared_capacities) capacities += (capacities.empty() ? "" : ", ") + std::to_string(cap / kKiB);
    out.notes.push_back("One block of " + std::to_string(kernels::kL1ReadThreads) + " threads per SM reads the same working set "
                        "over and over with ld.global.ca (about " + std::to_string(reads_per_sm >> 20) +
                        " MiB per SM per launch), under each carveout preference set on the kernel with cudaFuncSetAttribute. "
                        "read_gbs counts every byte the blocks read per second: L1 hits while the set fits, L2 hits past it.");
    if (unified.known)
        out.notes.push_back("Model: L1 and shared memory share " + kib_text(unified.unified_bytes) + " per SM, split at a shared "
                            "capacity of " + capacities + " KiB. A carveout is a percentage of the largest shared memory per SM (" +
                            kib_text(m.max_shared) + ", cudaDevAttrMaxSharedMemoryPerMultiprocessor), rounded up to the next "
                            "capacity, and never below what the resident block needs (" + std::to_string(m.needed) +
                            " bytes: its static shared memory and the " + std::to_string(m.reserved) +
                            " bytes reserved per block); the L1 is what remains. The preference is a hint: the driver may "
                            "choose otherwise, and the measured fall says what it chose.");
    else
        out.notes.push_back("No model: compute capability " + std::to_string(dev.cc_major) + "." + std::to_string(dev.cc_minor) +
                            " with " + kib_text(m.max_shared) + " of shared memory per SM is not in the table of unified "
                            "L1/shared sizes, so the L1 each carveout leaves is only measured.");
    out.notes.push_back("A working set falls out of L1 at the step out of the highest level of read_gbs: the curve is fitted "
                        "piecewise constant (experiments/common/levels.hpp), a new level wherever read_gbs moves by at least " +
                        std::to_string(static_cast<int>(std::lround(min_step * 100))) +
                        "% (min_step); <label>_fits_bytes is the last working set on the highest level, _falls_bytes the first "
                        "past it and _step_drop how far read_gbs fell there. The counted L1 hit share likewise, by a step of " +
                        std::to_string(min_step).substr(0, 4) + " in the share, where every point was counted. The kernel's "
                        "carveout preference is put back afterwards (found " + std::to_string(found) +
                        ", -1 = no preference), on every path out.");
}

void run_carveout(ContextState &ctx, const Params &params, Result &out) {
    const DeviceInfo &dev = ctx.info();
    cudaStream_t st = ctx.stream();
    const std::vector<long long> carveouts = params.integers("carveouts");
    std::vector<std::size_t> sizes;
    for (long long k : params.integers("working_sets_kib")) sizes.push_back(static_cast<std::size_t>(k) * kKiB);
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    const std::uint64_t reads_per_sm = params.size("reads_per_sm");
    const double min_step = params.number("min_step");
    const unsigned blocks = static_cast<unsigned>(std::max(1, dev.multiprocessors));  // one block per SM
    const CarveoutModelInputs m = model_inputs(ctx);

    const std::size_t largest = sizes.back();
    require_memory(ctx, largest + blocks * sizeof(std::uint64_t), "carveout (a working set of " + std::to_string(largest) + " bytes)");
    // The preference as found, on every path out.
    CarveoutRestore restore;
    DeviceArray data(ctx, largest), sums_d(ctx, blocks * sizeof(std::uint64_t));
    GM_CUDA(kernels::launch_fill_pattern(data.as<std::uint32_t>(), largest / 4, kSeed, st));
    std::vector<std::uint64_t> prefix(largest / 4 + 1, 0);  // sums of the first k words
    for (std::size_t k = 0; k < largest / 4; ++k) prefix[k + 1] = prefix[k] + pattern_word(k, kSeed);

    const ReadsSetup reads{sizes, data, sums_d, prefix, reads_per_sm, blocks, min_step};
    for (long long c : carveouts) out.series.push_back(carveout_reads_series(ctx, c, m, reads, out));
    second_methods(ctx, carveouts, sizes, data, prefix, reads_per_sm, blocks, min_step, out);
    const int after = restore.restore();
    out.record(kPreferenceFound, restore.found());
    out.record(kPreferenceAfter, after);
    out.record(kReservedShared, m.reserved);
    out.record(kMaxSharedPerSm, static_cast<double>(m.max_shared));
    if (m.unified.known) out.record(kUnifiedBytes, static_cast<double>(m.unified.unified_bytes));
    add_carveout_notes(out, dev, m, reads_per_sm, min_step, restore.found());
}

// The reads per carveout against the working set, with the model's L1 marked.
Chart carveout_chart() {
    Chart c;
    c.x_title = "working set per SM (KiB)";
    c.x_log = true;
    c.leave_out = {"chase"};  // the same L1 found by latency: cycles, in the tables
    c.markers = {{"carveout0_l1_predicted_kib", "model L1, carveout 0%"},
                 {"carveout50_l1_predicted_kib", "model L1, carveout 50%"},
                 {"carveout100_l1_predicted_kib", "model L1, carveout 100%"}};
    c.explanation = "L1 and shared memory share one array per SM, and the carveout decides how much of it is L1. Reading a "
                    "working set over and over runs at L1 speed while it fits the L1 the carveout leaves and drops to L2 "
                    "speed past it; the dashed lines mark the L1 the model predicts for each carveout (unified size minus "
                    "the shared capacity the preference rounds up to).";
    return c;
}

}  // namespace

void add_carveout_experiments(std::vector<Experiment> &out) {
    Experiment e;
    e.name = "carveout";
    e.guide_section = "Programming Guide: shared memory carveout (cudaFuncAttributePreferredSharedMemoryCarveout) and the "
                      "unified L1/shared memory per compute capability";
    e.summary = "One block per SM reading a working set over and over through L1 under shared-memory carveouts of 0 to "
                "100%: time and L1 hit rate against the working set, and where the hit rate falls beside the L1 the model "
                "leaves (unified size - the shared capacity the carveout rounds up to).";
    // Default run, H100: 3 carveouts x 7 working sets, each launch reading
    // 128 MiB per SM (about 0.6 ms from L1, 2 ms from L2): about 11 ms a
    // point, 0.25 s of GPU time, counters aside.
    e.params = {
        int_list_param("carveouts", {0, 50, 100}, 0, 100, "shared-memory carveout preferences, percent of the largest shared memory per SM", "%"),
        int_list_param("working_sets_kib", {16, 24, 48, 96, 160, 200, 320}, 1, 4096, "working sets read by each SM", "KiB"),
        size_param("reads_per_sm", 128LL << 20, 1LL << 20, 1LL << 32, "bytes each SM reads per launch (passes = this / working set)"),
        double_param("min_step", 0.15, 0.01, 0.9, "smallest step of read_gbs (relative) or of the hit share (absolute) that starts a new level: a working set no longer fits past the highest level"),
    };
    // A series per carveout, along the working sets (sorted, each once).
    e.axes = {{"carveouts"}, "working_sets_kib"};
    e.run = run_carveout;
    e.quick = {{"carveouts", {0, 100}}, {"working_sets_kib", {16, 48, 320}}, {"reads_per_sm", 8 << 20}};
    e.figures = {kPreferenceFound,  kPreferenceAfter, kReservedShared,  kMaxSharedPerSm,   kUnifiedBytes,
                 kChaseFits,        kChaseFalls,      kChaseL1Cycles,   kWithSharedFalls,  kFits,
                 kFalls,            kStepDrop,        kFallsCounted,    kHitShareSmallest, kHitShareLargest,
                 kModelBrackets,    kSharedCapacity,  kL1PredictedBytes, kL1PredictedKib};
    e.compared = {
        {figure_key(kFits, at_carveout(0)), "largest working set still in L1, carveout 0%"},
        {figure_key(kFits, at_carveout(100)), "largest working set still in L1, carveout 100%"},
    };
    e.chart = carveout_chart();
    e.consistency = {
        gmvocab::agrees_on("l1_capacity", "carveout0_fits_bytes", "read_gbs of one block per SM, carveout 0 %", "carveout0_falls_bytes"),
        gmvocab::agrees_on("l1_capacity", "carveout0_chase_fits_bytes", "one thread's chase, carveout 0 %", "carveout0_chase_falls_bytes"),
        gmvocab::shown_beside("l1_capacity", "carveout0_l1_predicted_bytes", "the model: unified L1/shared less the shared capacity",
                              "a model, not a measurement"),
    };
    out.push_back(std::move(e));
}

}  // namespace gmlab
