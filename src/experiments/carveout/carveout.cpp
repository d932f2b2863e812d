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
    Series s;
    s.name = "carveout " + std::to_string(c) + "%, one thread's dependent chase (L1 found by latency)";
    s.variant = "chase";  // one per carveout: carveout_percent tells them apart
    s.x_name = "working set per SM";
    s.x_unit = "KiB";
    s.y_field = "latency_cycles";
    s.y_name = "cycles per dependent ld.global.ca";
    s.y_unit = "cycles";
    s.quantity = Quantity::Latency;
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
        run_checked(ctx, {launch, {{cycles.get(), cycles.bytes()}}, download_to(got, cycles.get(), sizeof got), {}});
        // Node indices are word indices of line starts: the walk of succ from node 0.
        const std::uint64_t want = 32ull * walk(succ, 0, 2ull * hops);
        if (got[1] != want)
            verification_failed("carveout chase " + std::to_string(c) + "% working set " + std::to_string(ws), 0,
                                std::to_string(want), std::to_string(got[1]));
        out.verified(1, "the node each chase ended on compared with the host's walk of the same ring");
        Point p;
        p.x = static_cast<double>(ws) / kKiB;
        p.time_ms = time_launch(ctx, launch);
        p.values["latency_cycles"] = static_cast<double>(got[0]) / hops;
        p.values["hops"] = hops;
        s.points.push_back(std::move(p));
    }
    return s;
}

// Runs a reads launch once on poisoned sums and checks that every block read
// every word of the working set `passes` times (prefix: sums of the first k
// words), before the launch is timed.
template <class Launch>
void verify_block_sums(ContextState &ctx, const Launch &launch, const DeviceArray &sums_d, unsigned blocks,
                       std::uint64_t want, const std::string &what, Result &out) {
    std::vector<std::uint64_t> got(blocks);
    run_checked(ctx, {launch, {{sums_d.get(), sums_d.bytes()}}, download_to(got.data(), sums_d.get(), sums_d.bytes()), {}});
    for (unsigned b = 0; b < blocks; ++b)
        if (got[b] != want) verification_failed(what + " (block sum)", b, std::to_string(want), std::to_string(got[b]));
    out.verified(blocks, "every block's sum of the words it read compared with passes x the host's sum of the working set");
}

// What the reads kernel with 256 bytes of static shared memory (the kernel
// this experiment had) gets under preference c: one block per SM reading each
// working set, every block's sum checked, the launch timed.
Series with_shared_series(ContextState &ctx, int c, const std::vector<std::size_t> &sizes, const DeviceArray &data,
                          const std::vector<std::uint64_t> &prefix, std::uint64_t reads_per_sm, unsigned blocks, Result &out) {
    DeviceArray sums_d(ctx, blocks * sizeof(std::uint64_t));
    GM_CUDA(kernels::set_l1_carveout(kernels::L1Kernel::ReadsWithShared, c));
    Series s;
    s.name = "carveout " + std::to_string(c) + "%, the same reads with 256 B of static shared memory in the kernel";
    s.variant = "with_shared";
    s.x_name = "working set per SM";
    s.x_unit = "KiB";
    s.y_field = "read_gbs";
    s.y_name = "bytes read per second (L1 and L2 hits)";
    s.y_unit = "GB/s";
    s.quantity = Quantity::L1Bandwidth;
    s.attributes = {{"carveout_percent", c}, {"static_shared_bytes", 256}};
    for (std::size_t ws : sizes) {
        const auto n_vec = static_cast<std::uint32_t>(ws / 16);
        const auto passes = static_cast<std::uint32_t>(std::max<std::uint64_t>(1, reads_per_sm / ws));
        auto launch = [&](cudaStream_t s2) {
            return kernels::launch_l1_reads_with_shared(data.as<std::uint32_t>(), n_vec, passes, blocks,
                                                        sums_d.as<unsigned long long>(), s2);
        };
        verify_block_sums(ctx, launch, sums_d, blocks, passes * prefix[ws / 4],
                          "carveout with shared memory " + std::to_string(c) + "% working set " + std::to_string(ws), out);
        Point p;
        p.x = static_cast<double>(ws) / kKiB;
        p.time_ms = time_launch(ctx, launch);
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
    auto &sum = out.summary_values;
    for (long long c : carveouts) {
        const std::string label = "carveout" + std::to_string(c);
        Series s = chase_series(ctx, static_cast<int>(c), sizes, out);
        // The same finder as the reads', on loads per cycle: L1's level is the highest.
        std::vector<double> per_cycle;
        for (double c_ : values_of(s, "latency_cycles")) per_cycle.push_back(c_ > 0 ? 1.0 / c_ : 0.0);
        const L1Fall fall = l1_fall(xs, per_cycle, min_step);
        if (fall.found) sum[label + "_chase_fits_bytes"] = fall.fits;
        if (fall.fell) sum[label + "_chase_falls_bytes"] = fall.falls;
        sum[label + "_chase_l1_cycles"] = s.points.front().values.at("latency_cycles");
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
        const std::string label = "carveout" + std::to_string(c);
        Series s = with_shared_series(ctx, static_cast<int>(c), sizes, data, prefix, reads_per_sm, blocks, out);
        const L1Fall fall = l1_fall(xs, values_of(s, "read_gbs"), min_step);
        if (fall.fell) sum[label + "_with_shared_falls_bytes"] = fall.falls;
        out.series.push_back(std::move(s));
    }
}

// Where the L1 stopped holding the working set: the step out of the highest
// level of read_gbs (carveout_model.hpp), and of the counted hit share where
// every point was counted; whether the model's L1 (l1 >= 0) lies in between.
void summarise_fall(const std::string &label, const std::vector<double> &sizes, const std::vector<double> &bandwidth,
                    const std::vector<double> &hits, double min_step, double l1, nlohmann::json &attributes,
                    std::map<std::string, double> &sum) {
    const L1Fall fall = l1_fall(sizes, bandwidth, min_step);
    if (fall.found) {
        sum[label + "_fits_bytes"] = fall.fits;
        attributes["l1_level_gbs"] = fall.level;
    }
    if (fall.fell) {
        sum[label + "_falls_bytes"] = fall.falls;
        sum[label + "_step_drop"] = fall.drop;
    }
    if (!hits.empty() && hits.size() == sizes.size()) {
        const L1Fall hit_fall = l1_fall(sizes, hits, min_step, LevelScale::Absolute);
        if (hit_fall.fell) sum[label + "_falls_bytes_counters"] = hit_fall.falls;
        sum[label + "_hit_share_smallest"] = hits.front();
        sum[label + "_hit_share_largest"] = hits.back();
    }
    if (l1 >= 0) sum[label + "_model_brackets"] = brackets(fall, l1) ? 1 : 0;
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

    // The model's inputs: the device's largest shared memory per SM, the
    // shared memory the system reserves per block, the kernel's own.
    int reserved = 0;
    if (cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, ctx.device()) != cudaSuccess) {
        reserved = 0;  // not offered before CUDA 11: none reserved
        (void)cudaGetLastError();
    }
    cudaFuncAttributes attrs{};
    GM_CUDA(kernels::l1_reads_attributes(&attrs));
    const std::size_t needed = attrs.sharedSizeBytes + static_cast<std::size_t>(reserved);  // one resident block
    int max_shared_attr = 0;
    GM_CUDA(cudaDeviceGetAttribute(&max_shared_attr, cudaDevAttrMaxSharedMemoryPerMultiprocessor, ctx.device()));
    const std::size_t max_shared = static_cast<std::size_t>(max_shared_attr);
    const UnifiedL1 unified = unified_l1(dev.cc_major, dev.cc_minor, max_shared);

    const std::size_t largest = sizes.back();
    require_memory(ctx, largest + blocks * sizeof(std::uint64_t), "carveout (a working set of " + std::to_string(largest) + " bytes)");
    // The preference as found, on every path out.
    CarveoutRestore restore;
    DeviceArray data(ctx, largest), sums_d(ctx, blocks * sizeof(std::uint64_t));
    GM_CUDA(kernels::launch_fill_pattern(data.as<std::uint32_t>(), largest / 4, kSeed, st));
    std::vector<std::uint64_t> prefix(largest / 4 + 1, 0);  // sums of the first k words
    for (std::size_t k = 0; k < largest / 4; ++k) prefix[k + 1] = prefix[k] + pattern_word(k, kSeed);

    for (long long c : carveouts) {
        GM_CUDA(kernels::set_l1_reads_carveout(static_cast<int>(c)));
        const std::size_t shared = shared_capacity_for(unified, static_cast<int>(c), max_shared, needed);
        const std::size_t l1 = l1_left(unified, shared);
        const std::string label = "carveout" + std::to_string(c);
        Series series;
        series.name = "carveout " + std::to_string(c) + "%" +
                      (unified.known ? " (shared " + kib_text(shared) + ", L1 " + kib_text(l1) + " by the model)" : std::string());
        series.variant = label;
        series.x_name = "working set per SM";
        series.x_unit = "KiB";
        // Not a bandwidth of device memory (most of it is served by L1): a
        // value of its own, so that nothing reads it as DRAM traffic.
        series.y_field = "read_gbs";
        series.y_name = "bytes read per second (L1 and L2 hits)";
        series.y_unit = "GB/s";
        series.quantity = Quantity::L1Bandwidth;
        series.attributes = {{"carveout_percent", c}, {"passes_target_bytes", reads_per_sm}};
        if (unified.known) {
            series.attributes["shared_capacity_bytes"] = shared;
            series.attributes["l1_bytes_predicted"] = l1;
        }
        std::vector<double> bandwidth, hits, xs;
        for (std::size_t ws : sizes) {
            const std::uint32_t n_vec = static_cast<std::uint32_t>(ws / 16);
            const std::uint64_t passes = std::max<std::uint64_t>(1, reads_per_sm / ws);
            auto launch = [&](cudaStream_t s) {
                return kernels::launch_l1_reads(data.as<std::uint32_t>(), n_vec, static_cast<std::uint32_t>(passes), blocks,
                                                sums_d.as<unsigned long long>(), s);
            };
            verify_block_sums(ctx, launch, sums_d, blocks, passes * prefix[ws / 4],
                              "carveout " + std::to_string(c) + "% working set " + std::to_string(ws), out);

            Point p;
            p.x = static_cast<double>(ws) / kKiB;
            p.time_ms = time_launch(ctx, launch);
            const double read = static_cast<double>(blocks) * static_cast<double>(passes) * static_cast<double>(ws);
            p.values["bytes_read"] = read;
            p.values["read_gbs"] = bandwidth_gbs(read, p.time_ms.median);
            p.values["passes"] = static_cast<double>(passes);
            p.values["working_set_bytes"] = static_cast<double>(ws);
            if (unified.known) {
                p.predicted["l1_bytes"] = static_cast<double>(l1);
                p.predicted["l1_hit_share"] = predicted_l1_hit_share(ws, l1, passes);
                p.predicted["fits"] = ws <= l1 ? 1 : 0;
            }
            measure_counters(ctx, launch, counter_sets::l1_global_hits(), p, out);
            bandwidth.push_back(p.values["read_gbs"]);
            xs.push_back(static_cast<double>(ws));
            if (auto h = p.counters.find("l1_global_hit_share"); h != p.counters.end()) {
                hits.push_back(h->second);
            }
            series.points.push_back(std::move(p));
        }
        summarise_fall(label, xs, bandwidth, hits, min_step, unified.known ? static_cast<double>(l1) : -1.0, series.attributes,
                       out.summary_values);
        if (unified.known) {
            out.summary_values[label + "_shared_capacity_bytes"] = static_cast<double>(shared);
            out.summary_values[label + "_l1_predicted_bytes"] = static_cast<double>(l1);
            out.summary_values[label + "_l1_predicted_kib"] = static_cast<double>(l1) / kKiB;
        }
        out.series.push_back(std::move(series));
    }
    second_methods(ctx, carveouts, sizes, data, prefix, reads_per_sm, blocks, min_step, out);
    const int after = restore.restore();
    out.summary_values["carveout_preference_found"] = restore.found();
    out.summary_values["carveout_preference_after"] = after;
    out.summary_values["reserved_shared_per_block"] = reserved;
    out.summary_values["max_shared_per_sm"] = static_cast<double>(max_shared);
    if (unified.known) out.summary_values["unified_l1_shared_bytes"] = static_cast<double>(unified.unified_bytes);

    std::string capacities;
    for (std::size_t cap : unified.shared_capacities) capacities += (capacities.empty() ? "" : ", ") + std::to_string(cap / kKiB);
    out.notes.push_back("One block of " + std::to_string(kernels::kL1ReadThreads) + " threads per SM reads the same working set "
                        "over and over with ld.global.ca (about " + std::to_string(reads_per_sm >> 20) +
                        " MiB per SM per launch), under each carveout preference set on the kernel with cudaFuncSetAttribute. "
                        "read_gbs counts every byte the blocks read per second: L1 hits while the set fits, L2 hits past it.");
    if (unified.known)
        out.notes.push_back("Model: L1 and shared memory share " + kib_text(unified.unified_bytes) + " per SM, split at a shared "
                            "capacity of " + capacities + " KiB. A carveout is a percentage of the largest shared memory per SM (" +
                            kib_text(max_shared) + ", cudaDevAttrMaxSharedMemoryPerMultiprocessor), rounded up to the next "
                            "capacity, and never below what the resident block needs (" + std::to_string(needed) +
                            " bytes: its static shared memory and the " + std::to_string(reserved) +
                            " bytes reserved per block); the L1 is what remains. The preference is a hint: the driver may "
                            "choose otherwise, and the measured fall says what it chose.");
    else
        out.notes.push_back("No model: compute capability " + std::to_string(dev.cc_major) + "." + std::to_string(dev.cc_minor) +
                            " with " + kib_text(max_shared) + " of shared memory per SM is not in the table of unified "
                            "L1/shared sizes, so the L1 each carveout leaves is only measured.");
    out.notes.push_back("A working set falls out of L1 at the step out of the highest level of read_gbs: the curve is fitted "
                        "piecewise constant (experiments/common/levels.hpp), a new level wherever read_gbs moves by at least " +
                        std::to_string(static_cast<int>(std::lround(min_step * 100))) +
                        "% (min_step); <label>_fits_bytes is the last working set on the highest level, _falls_bytes the first "
                        "past it and _step_drop how far read_gbs fell there. The counted L1 hit share likewise, by a step of " +
                        std::to_string(min_step).substr(0, 4) + " in the share, where every point was counted. The kernel's "
                        "carveout preference is put back afterwards (found " + std::to_string(restore.found()) +
                        ", -1 = no preference), on every path out.");
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
    e.run = run_carveout;
    e.quick = {{"carveouts", {0, 100}}, {"working_sets_kib", {16, 48, 320}}, {"reads_per_sm", 8 << 20}};
    e.figures = {
        {"carveout0_fits_bytes", "bytes", Better::Neither, "largest working set still in L1, carveout 0%"},
        {"carveout100_fits_bytes", "bytes", Better::Neither, "largest working set still in L1, carveout 100%"},
    };
    e.compared = {
        {"carveout0_fits_bytes", "largest working set still in L1, carveout 0%"},
        {"carveout100_fits_bytes", "largest working set still in L1, carveout 100%"},
    };
    out.push_back(std::move(e));
}

}  // namespace gmlab
