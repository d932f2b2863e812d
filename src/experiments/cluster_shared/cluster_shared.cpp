// Experiment family "cluster shared": distributed shared memory between the
// blocks of a thread block cluster (sm_90). The latency of a dependent load
// from another block's shared memory against local shared memory and an L2
// hit (one thread chasing pointers, clock64, as the latency family does), the
// bandwidth of an all-to-all exchange between the blocks of a cluster through
// distributed shared memory against the same exchange through global memory,
// and the clusters each size lets the device hold at once.
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
#include "experiments/cluster_shared/cluster_plan.hpp"
#include "experiments/cluster_shared/cluster_shared.cuh"
#include "experiments/common/chase.hpp"
#include "experiments/common/compute_capability.hpp"
#include "experiments/common/latency_model.hpp"

namespace gmlab {

namespace {

using kernels::ClusterChase;
constexpr std::uint64_t kSeed = 0x6473686dull;  // "dshm"
constexpr std::size_t kL2RingBytes = 1 << 20;   // fits any L2, several times any L1
constexpr std::size_t kLine = 128;

static_assert(sizeof(kernels::ClusterChaseSample) == sizeof(kernels::ChaseSample),
              "the cluster chase writes the latency family's sample layout");

struct ChaseKind {
    ClusterChase where;
    const char *variant, *name;
};
const ChaseKind kChases[] = {
    {ClusterChase::Remote, "remote", "distributed shared memory (the cluster's last block, ld.shared::cluster)"},
    {ClusterChase::Local, "local", "local shared memory (ld.shared)"},
    {ClusterChase::L2, "l2", "L2 hit (ld.global.cg, 1 MiB ring)"},
};

std::string join(const std::vector<long long> &v) {
    std::string s;
    for (long long x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
    return s;
}

// The headline figures. Latencies are medians over the cluster sizes, in SM
// cycles and in ns at the SM clock measured during the chases; plain names
// come before the patterns with axes.
const Figure kLocalCycles{"local_cycles", "cycles", Better::Lower,
                          "latency of one dependent load from the block's own shared memory (ld.shared), median over the "
                          "cluster sizes"};
const Figure kLocalNs{"local_ns", "ns", Better::Lower, "local_cycles at the SM clock measured"};
const Figure kL2Cycles{"l2_cycles", "cycles", Better::Lower,
                       "latency of one dependent L2 hit (ld.global.cg over a 1 MiB ring), median over the cluster sizes"};
const Figure kL2Ns{"l2_ns", "ns", Better::Lower, "l2_cycles at the SM clock measured"};
const Figure kRemoteCycles{"remote_cycles", "cycles", Better::Lower,
                           "latency of one dependent load from another block's shared memory in the cluster (distributed "
                           "shared memory, ld.shared::cluster), median over the cluster sizes"};
const Figure kRemoteNs{"remote_ns", "ns", Better::Lower,
                       "latency of one dependent load from distributed shared memory (remote_cycles at the SM clock measured)"};
const Figure kRemoteOverLocal{"remote_over_local", "ratio", Better::Neither,
                              "latency of distributed shared memory over the block's own shared memory"};
const Figure kRemoteOverL2{"remote_over_l2", "ratio", Better::Neither, "latency of distributed shared memory over an L2 hit"};
const Figure kLocalGenericCycles{"local_generic_cycles", "cycles", Better::Lower,
                                 "latency of one dependent load from the block's own shared memory through generic ld of "
                                 "64-bit addresses"};
const Figure kLocalGenericNs{"local_generic_ns", "ns", Better::Lower, "local_generic_cycles at the SM clock measured"};
const Figure kLocalGenericOverLocal{"local_generic_over_local", "ratio", Better::Neither,
                                    "latency of the shared-memory chase through generic ld over the same chase through ld.shared"};
const Figure kSmClockMhz{"sm_clock_mhz_measured", "MHz", Better::Neither,
                         "SM clock during the chases (clock64 cycles over the global timer's ns)"};
const Figure kDsmOverGlobalBest{"dsm_over_global_best", "ratio", Better::Neither,
                                "bandwidth of the exchange through distributed shared memory over the same exchange through "
                                "global memory, the highest over the cluster sizes"};
const Figure kChaseCyclesAt{"{chase}_cycles_c{size}", "cycles", Better::Lower,
                            "latency of one dependent load (remote: distributed shared memory, local: own shared memory, l2: "
                            "an L2 hit) at one cluster size"};
const Figure kMaxActiveClusters{"max_active_clusters_c{size}", "count", Better::Neither,
                                "clusters of this size the device holds at once (cudaOccupancyMaxActiveClusters of the exchange)"};
const Figure kResidentBlocks{"resident_blocks_c{size}", "count", Better::Neither,
                             "blocks resident at once in clusters of this size (max_active_clusters x size)"};
const Figure kExchangeGbs{"{memory}_gbs_c{size}", "GB/s", Better::Higher,
                          "bandwidth of the all-to-all exchange at one cluster size, bytes exchanged, through distributed "
                          "shared memory (dsm) or through global memory that stays in L2 (global)"};
const Figure kDsmOverGlobal{"dsm_over_global_c{size}", "ratio", Better::Neither,
                            "bandwidth of the exchange through distributed shared memory over the same through global "
                            "memory, at one cluster size"};

FigureAt at_size(long long c) { return {{"size", std::to_string(c)}}; }

// A series of one dependent load's latency in cycles against the cluster size.
Series latency_series(const std::string &name, const std::string &variant) {
    return chase_latency_series(name, variant, "cluster size", "blocks", "latency per dependent load");
}

// The cluster sizes this device runs, and the clusters of each it holds at
// once (cudaOccupancyMaxActiveClusters of the exchange).
struct ClusterSizes {
    std::vector<long long> sizes;
    std::map<long long, int> active;
};

ClusterSizes runnable_cluster_sizes(const std::vector<long long> &asked, std::size_t slice, std::size_t smem_limit,
                                    bool nonportable, int max_chase, Result &out) {
    const bool default_sweep = asked == cluster_size_choices();
    // The sizes this device runs: the default sweep leaves out what it
    // refuses (16, typically, where non-portable sizes are not allowed);
    // a size asked for explicitly that it refuses is an error.
    ClusterSizes r;
    std::vector<long long> &sizes = r.sizes;
    std::map<long long, int> &active = r.active;
    std::vector<std::string> left_out;
    for (long long c : asked) {
        const int ci = static_cast<int>(c);
        if (c >= 2) check_slice(slice, ci, smem_limit);
        const std::size_t smem = c >= 2 ? exchange_shared_bytes(ci, slice) : 0;
        int max_exchange = 0;
        GM_CUDA(kernels::max_cluster_size(true, smem, &max_exchange));
        const int most = std::min(max_chase, max_exchange);
        int clusters = 0;
        if (c <= most) GM_CUDA(kernels::max_active_clusters(true, ci, smem, &clusters));
        if (c <= most && clusters > 0) {
            sizes.push_back(c);
            active[c] = clusters;
            continue;
        }
        const std::string why = c > most ? "cudaOccupancyMaxPotentialClusterSize for the chase (" + std::to_string(max_chase) +
                                               ") and the exchange (" + std::to_string(max_exchange) + ")"
                                         : "cudaOccupancyMaxActiveClusters, which holds no cluster of this size";
        if (default_sweep) {
            left_out.push_back(std::to_string(c) + " (" + why + ")");
            continue;
        }
        if (c > most) check_cluster_size(c, most, nonportable, why);
        invalid("cluster_sizes: " + std::to_string(c) + " is refused here: " + why + " (slice_bytes " + std::to_string(slice) +
                "); cluster_sizes must be one of " + join(allowed_cluster_sizes(static_cast<int>(c) - 1, nonportable)) +
                " on this device");
    }
    if (sizes.empty()) invalid("cluster_sizes: this device runs none of " + join(asked));
    if (!left_out.empty()) {
        std::string l;
        for (const auto &s : left_out) l += (l.empty() ? "" : "; ") + s;
        out.notes.push_back("Cluster sizes left out of the default sweep, refused on this device: " + l +
                            (nonportable ? "." : "; non-portable cluster sizes (above 8) are not allowed here."));
    }

    return r;
}

// The medians over the cluster sizes of each chase's latency, in cycles, and
// the SM clock they ran at.
struct ClusterLatency {
    double local = 0, remote = 0, l2 = 0, ghz = 0;
};

// Each chase's samples by kind and cluster size, and the SM clock they ran at.
struct ChaseSamples {
    std::map<std::string, std::map<long long, std::vector<kernels::ChaseSample>>> by_kind;
    double ghz = 0;
};

// Latency: one thread of block 0 chasing a ring, for each cluster size, in
// the cluster's last block's shared memory, its own, and L2.
ChaseSamples run_cluster_chases(ContextState &ctx, const std::vector<long long> &sizes, unsigned hops, Result &out) {
    const DeviceInfo &dev = ctx.info();
    // ---- latency: one thread of block 0 chasing a ring, for each cluster size ----
    const std::vector<std::uint32_t> next = single_cycle(kernels::kClusterRingNodes, kSeed);
    std::vector<std::uint32_t> offsets(next.size());
    for (std::size_t k = 0; k < next.size(); ++k) offsets[k] = next[k] * 4u;
    const std::size_t lines = kL2RingBytes / kLine;
    const std::vector<std::uint32_t> next_l2 = single_cycle(lines, kSeed ^ lines);
    require_memory(ctx, offsets.size() * 4 + kL2RingBytes, "cluster_shared (the chase rings)");
    DeviceArray offsets_d(ctx, offsets.size() * 4), ring_d(ctx, kL2RingBytes);
    cudaStream_t st = ctx.stream();
    {
        std::vector<unsigned long long> ring(kL2RingBytes / 8, 0);
        const auto base = reinterpret_cast<unsigned long long>(ring_d.get());
        for (std::size_t i = 0; i < lines; ++i) ring[i * (kLine / 8)] = base + next_l2[i] * kLine;
        GM_CUDA(cudaMemcpyAsync(ring_d.get(), ring.data(), kL2RingBytes, cudaMemcpyHostToDevice, st));
        GM_CUDA(cudaMemcpyAsync(offsets_d.get(), offsets.data(), offsets.size() * 4, cudaMemcpyHostToDevice, st));
        GM_CUDA(cudaStreamSynchronize(st));
    }
    ChaseRunner runner(ctx);
    ChaseSamples result;
    auto &samples = result.by_kind;
    for (long long c : sizes)
        for (const ChaseKind &k : kChases) {
            if (k.where == ClusterChase::Remote && c < 2) continue;
            const bool l2 = k.where == ClusterChase::L2;
            const unsigned prewalk = l2 ? static_cast<unsigned>(lines) : static_cast<unsigned>(kernels::kClusterRingNodes);
            auto launch = [&, c, k, prewalk](kernels::ChaseSample *o, cudaStream_t s) {
                return kernels::launch_cluster_chase(k.where, static_cast<int>(c), offsets_d.as<std::uint32_t>(),
                                                     ring_d.as<unsigned long long>(), 0, prewalk, hops,
                                                     reinterpret_cast<kernels::ClusterChaseSample *>(o), s);
            };
            const std::uint64_t last = walk(l2 ? next_l2 : next, 0, std::uint64_t(prewalk) + hops);
            samples[k.variant][c] =
                runner.run(launch, false, last, "cluster_shared " + std::string(k.variant) + " chase, cluster size " + std::to_string(c), out);
        }
    // The local ring once more through generic loads (ld of a shared
    // address, not ld.shared): the two instructions a "shared-memory latency"
    // can mean, measured on the same ring.
    {
        const unsigned prewalk = static_cast<unsigned>(kernels::kClusterRingNodes);
        auto launch = [&, prewalk](kernels::ChaseSample *o, cudaStream_t s) {
            return kernels::launch_shared_generic_chase(offsets_d.as<std::uint32_t>(), 0, prewalk, hops,
                                                        reinterpret_cast<kernels::ClusterChaseSample *>(o), s);
        };
        samples["local_generic"][1] = runner.run(launch, false, walk(next, 0, std::uint64_t(prewalk) + hops),
                                                 "cluster_shared local chase through generic loads", out);
    }
    result.ghz = runner.clock_ghz(dev.clock_khz / 1e6);
    return result;
}

// The latency series and figures: each chase over the cluster sizes, and
// the medians over them.
ClusterLatency summarise_cluster_latency(ChaseSamples &chased, unsigned hops, Result &out) {
    auto &samples = chased.by_kind;
    const double ghz = chased.ghz;
    std::map<std::string, std::vector<double>> cycles;  // each kind's latency over the cluster sizes
    for (const ChaseKind &k : kChases) {
        Series s = latency_series(k.name, k.variant);
        s.attributes = {{"ring_bytes", k.where == ClusterChase::L2 ? kL2RingBytes : kernels::kClusterRingNodes * 4},
                        {"hops", hops},
                        {"chasing_block", 0}};
        if (k.where == ClusterChase::Remote) s.attributes["target_block"] = "the cluster's last (rank cluster size - 1)";
        for (const auto &[c, v] : samples[k.variant]) {
            Point p = chase_point(static_cast<double>(c), hops, v, ghz);
            cycles[k.variant].push_back(p.values.at("latency_cycles"));
            out.record(kChaseCyclesAt, p.values.at("latency_cycles"), {{"chase", k.variant}, {"size", std::to_string(c)}});
            s.points.push_back(std::move(p));
        }
        if (!s.points.empty()) out.series.push_back(std::move(s));
    }
    {
        Series s = latency_series("local shared memory through generic ld (the same ring, 8-byte nodes of generic addresses)",
                                  "local_generic");
        s.attributes = {{"ring_bytes", kernels::kClusterRingNodes * 8}, {"hops", hops}, {"instruction", "ld (generic)"}};
        Point p = chase_point(1, hops, samples["local_generic"][1], ghz);
        out.record(kLocalGenericCycles, p.values.at("latency_cycles"));
        out.record(kLocalGenericNs, p.values.at("latency_cycles") / ghz);
        s.points.push_back(std::move(p));
        out.series.push_back(std::move(s));
    }
    auto median = [](std::vector<double> v) {
        if (v.empty()) return 0.0;
        std::sort(v.begin(), v.end());
        const std::size_t m = v.size() / 2;
        return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
    };
    const double local = median(cycles["local"]), remote = median(cycles["remote"]), l2 = median(cycles["l2"]);
    out.record(kLocalCycles, local);
    if (local > 0) out.record(kLocalGenericOverLocal, out.summary_values[kLocalGenericCycles.name] / local);
    out.record(kL2Cycles, l2);
    out.record(kLocalNs, local / ghz);
    out.record(kL2Ns, l2 / ghz);
    out.record(kSmClockMhz, ghz * 1e3);
    if (remote > 0) {
        out.record(kRemoteCycles, remote);
        out.record(kRemoteNs, remote / ghz);
        if (local > 0) out.record(kRemoteOverLocal, remote / local);
        if (l2 > 0) out.record(kRemoteOverL2, remote / l2);
    }

    return {local, remote, l2, ghz};
}

ClusterLatency measure_cluster_latency(ContextState &ctx, const std::vector<long long> &sizes, unsigned hops, Result &out) {
    ChaseSamples chased = run_cluster_chases(ctx, sizes, hops, out);
    return summarise_cluster_latency(chased, hops, out);
}

// One exchange: through distributed shared memory or through global memory,
// at one cluster size, with the clusters the device holds at once.
struct ExchangeShape {
    bool dsm;
    int size, clusters;
    std::size_t slice;
    unsigned rounds;
    double bytes;  // exchanged per launch
};

// What the device counted over the launches since counts was last zeroed:
// words that differed from what their sender wrote, and words checked.
void check_exchange_counts(const unsigned long long (&host)[2], unsigned long long words_per_launch, bool one_launch,
                           const std::string &what) {
    const bool whole = one_launch ? host[1] == words_per_launch : host[1] != 0 && host[1] % words_per_launch == 0;
    if (host[0] == 0 && whole) return;
    if (one_launch)
        verification_failed(what, host[0], "0 mismatching of " + std::to_string(words_per_launch) + " words",
                            std::to_string(host[0]) + " mismatching of " + std::to_string(host[1]));
    verification_failed(what + " (timed launches)", host[0], "0 mismatching words",
                        std::to_string(host[0]) + " mismatching of " + std::to_string(host[1]));
}

// Every word each block receives is checked on the device by the exchange
// itself: the first launch is checked on its own (the slots poisoned), then
// the timed and counted launches together.
Point measure_exchange_point(ContextState &ctx, const ExchangeShape &x, DeviceArray &slots, DeviceArray &counts, Result &out) {
    cudaStream_t st = ctx.stream();
    auto launch = [&, x](cudaStream_t s) {
        return kernels::launch_exchange(x.dsm, x.size, x.clusters, x.slice, x.rounds, slots.get(), counts.as<unsigned long long>(), s);
    };
    const std::string what = std::string("cluster_shared exchange through ") + (x.dsm ? "distributed shared" : "global") +
                             " memory, cluster size " + std::to_string(x.size);
    const auto words_per_launch = static_cast<unsigned long long>(x.bytes / 4);
    unsigned long long host[2] = {0, 0};
    Point p;
    p.x = static_cast<double>(x.size);
    p.bytes = x.bytes;
    p.values["clusters"] = x.clusters;
    p.values["blocks"] = static_cast<double>(x.clusters) * x.size;
    p.values["max_active_clusters"] = x.clusters;
    p.values["shared_bytes_per_block"] = x.dsm ? static_cast<double>(exchange_shared_bytes(x.size, x.slice)) : 0.0;
    // Through global memory each exchanged byte is written to L2 once
    // and read from it once: a floor, not an exact model (on an H100
    // the L2 counters saw more, and saw L2 traffic through distributed
    // shared memory too: docs/experiments.md), so shown, not checked.
    if (!x.dsm) p.predicted["l2_bytes_per_exchanged_byte_floor"] = 2.0;
    CounterSet set;
    set.metrics = {"lts__t_bytes.sum", "smsp__inst_executed.sum"};
    set.derived = {{"l2_bytes_per_exchanged_byte", "lts__t_bytes.sum", "", x.bytes},
                   {"inst_per_exchanged_byte", "smsp__inst_executed.sum", "", x.bytes}};
    // The counts are zeroed, not poisoned: the exchange adds to them.
    GM_CUDA(cudaMemsetAsync(counts.get(), 0, sizeof host, st));
    measure_checked(ctx,
                    {launch, {{slots.get(), slots.bytes()}}, download_to(host, counts.get(), sizeof host),
                     [&] {
                         check_exchange_counts(host, words_per_launch, true, what);
                         out.verified(host[1], "every word each block received compared on the device with what its sender "
                                               "wrote (exchange_word of round, cluster, sender and receiver), mismatches and "
                                               "words counted");
                     }},
                    p, out, &set);
    // The timed and counted launches checked every word too.
    GM_CUDA(cudaMemcpyAsync(host, counts.get(), sizeof host, cudaMemcpyDeviceToHost, st));
    GM_CUDA(cudaStreamSynchronize(st));
    check_exchange_counts(host, words_per_launch, false, what);
    return p;
}

// The all-to-all exchange through distributed shared memory and through
// global memory, for each cluster size of two or more.
void measure_exchange(ContextState &ctx, const ClusterSizes &cs, std::size_t slice, unsigned rounds, Result &out) {
    const std::vector<long long> &sizes = cs.sizes;
    const std::map<long long, int> &active = cs.active;
    // ---- occupancy: the clusters each size lets the device hold ----
    for (const auto &[c, n] : active) {
        out.record(kMaxActiveClusters, n, at_size(c));
        out.record(kResidentBlocks, static_cast<double>(n) * c, at_size(c));
    }

    // ---- the all-to-all exchange ----
    Series dsm_series, global_series;
    dsm_series.name = "exchange through distributed shared memory";
    dsm_series.variant = "dsm";
    global_series.name = "exchange through global memory (L2)";
    global_series.variant = "global";
    dsm_series.quantity = Quantity::L1Bandwidth;     // shared memory of the cluster's blocks
    global_series.quantity = Quantity::L2Bandwidth;  // the slices fit in L2
    for (Series *s : {&dsm_series, &global_series}) {
        s->x_name = "cluster size";
        s->x_unit = "blocks";
        s->attributes = {{"slice_bytes", slice}, {"rounds", rounds}, {"threads_per_block", kernels::kExchangeBlock}};
    }
    DeviceArray counts(ctx, 2 * sizeof(unsigned long long));
    double best_ratio = 0;
    for (long long c : sizes) {
        if (c < 2) continue;
        const int ci = static_cast<int>(c);
        const int clusters = active.at(c);
        const std::size_t slot_bytes = static_cast<std::size_t>(clusters) * ci * ci * slice;
        require_memory(ctx, slot_bytes, "cluster_shared (the global exchange's slots)");
        DeviceArray slots(ctx, slot_bytes);
        const double bytes = exchanged_bytes(ci, slice, rounds, static_cast<std::uint64_t>(clusters));
        double gbs[2] = {0, 0};
        for (bool dsm : {true, false}) {
            Point p = measure_exchange_point(ctx, {dsm, ci, clusters, slice, rounds, bytes}, slots, counts, out);
            gbs[dsm ? 0 : 1] = bandwidth_gbs(p.bytes, p.time_ms.median);
            (dsm ? dsm_series : global_series).points.push_back(std::move(p));
        }
        out.record(kExchangeGbs, gbs[0], {{"memory", "dsm"}, {"size", std::to_string(c)}});
        out.record(kExchangeGbs, gbs[1], {{"memory", "global"}, {"size", std::to_string(c)}});
        if (gbs[1] > 0) {
            out.record(kDsmOverGlobal, gbs[0] / gbs[1], at_size(c));
            best_ratio = std::max(best_ratio, gbs[0] / gbs[1]);
        }
    }
    if (!dsm_series.points.empty()) {
        out.series.push_back(std::move(dsm_series));
        out.series.push_back(std::move(global_series));
        out.record(kDsmOverGlobalBest, best_ratio);
    }

}

void add_cluster_notes(Result &out, unsigned hops, std::size_t slice, unsigned rounds, const ClusterLatency &lat) {
    const double local = lat.local, remote = lat.remote, l2 = lat.l2;
    auto r = [](double v) { return std::to_string(static_cast<long long>(std::llround(v))); };
    out.notes.push_back("Latency: thread 0 of block 0 follows a random ring of " + std::to_string(kernels::kClusterRingNodes) +
                        " 4-byte nodes (each holding its successor's address) " + std::to_string(hops) +
                        " times, timed with clock64 after one untimed lap: in the shared memory of the cluster's last block "
                        "(addresses from mapa, loads ld.shared::cluster), in its own shared memory (ld.shared), and through "
                        "a 1 MiB ring of 128-byte lines in global memory with L1 bypassed (an L2 hit). Every block fills its "
                        "ring, the cluster synchronises before the chase and again before any block exits.");
    if (remote > 0 && local > 0)
        out.notes.push_back("Measured: distributed shared memory " + r(remote) + " cycles, local shared memory " + r(local) +
                            ", an L2 hit " + r(l2) + " (medians over the cluster sizes): remote / local " +
                            std::to_string(remote / local).substr(0, 4) +
                            (l2 > 0 ? ", remote / L2 " + std::to_string(remote / l2).substr(0, 4) : std::string()) +
                            " (docs/experiments.md sets these beside the published Hopper studies).");
    if (local > 0)
        out.notes.push_back("Two instructions, one shared memory: ld.shared with a 32-bit shared-window address (what CUDA C++ "
                            "emits for a __shared__ array it can see) took " + r(local) + " cycles a load, a generic ld of the "
                            "same nodes' 64-bit addresses " + r(out.summary_values[kLocalGenericCycles.name]) +
                            " (local_generic_cycles): the generic load first decides which memory the address is in. A "
                            "chase that also computes each address (an index times 4 plus a base) adds its arithmetic to "
                            "either. local_cycles is the shared-memory latency other experiments compare with.");
    out.notes.push_back("Exchange: once every block of the cluster has started (a cluster barrier), every block writes a "
                        "slice of " + std::to_string(slice) + " bytes into each other block of its cluster, the cluster "
                        "synchronises, every block reads and checks what it received, and the "
                        "cluster synchronises again; " + std::to_string(rounds) + " rounds a launch, as many clusters as "
                        "cudaOccupancyMaxActiveClusters allows (max_active_clusters_c<size>). Through global memory the "
                        "slices go to a slot per (receiver, sender) in device memory (which stays in L2) and are read "
                        "with ld.global.cg. Bandwidth counts the bytes exchanged: clusters x size x (size - 1) x slice x rounds.");
}

void run_cluster_shared(ContextState &ctx, const Params &params, Result &out) {
    const DeviceInfo &dev = ctx.info();
    if (!has_compute_capability(dev, 9, 0, "cluster_shared",
                                "thread block clusters and distributed shared memory arrived with Hopper (sm_90)", out))
        return;
    const unsigned hops = static_cast<unsigned>(params.integer("hops"));
    const auto slice = static_cast<std::size_t>(params.integer("slice_bytes"));
    const auto rounds = static_cast<unsigned>(params.integer("rounds"));
    const std::vector<long long> asked = params.integers("cluster_sizes");
    const std::size_t smem_limit = dev.shared_per_block_optin;

    bool nonportable = false;
    GM_CUDA(kernels::prepare_cluster_kernels(smem_limit, &nonportable));
    int max_chase = 0;
    GM_CUDA(kernels::max_cluster_size(false, 0, &max_chase));

    const ClusterSizes cs = runnable_cluster_sizes(asked, slice, smem_limit, nonportable, max_chase, out);
    const ClusterLatency lat = measure_cluster_latency(ctx, cs.sizes, hops, out);
    measure_exchange(ctx, cs, slice, rounds, out);
    add_cluster_notes(out, hops, slice, rounds, lat);
}

// The latencies per cluster size; the exchange's bandwidths are in the table.
Chart cluster_shared_chart() {
    Chart c;
    c.x_title = "cluster size (blocks)";
    c.x_log = true;
    c.y_log = true;
    c.leave_out = {"dsm", "global"};  // the exchange's bandwidths: GB/s, in the table
    c.explanation = "The latency of one dependent load from another block's shared memory in the same cluster (distributed "
                    "shared memory, over the SM-to-SM network) against the block's own shared memory and an L2 hit, for each "
                    "cluster size. Distributed shared memory sits between the two: several times local shared memory, below "
                    "L2. The table adds the all-to-all exchange through distributed shared memory against the same exchange "
                    "through global memory, and the key figures the clusters each size lets the device hold.";
    return c;
}

}  // namespace

void add_cluster_shared_experiments(std::vector<Experiment> &out) {
    Experiment e;
    e.name = "cluster_shared";
    e.guide_section = "CUDA C++ Programming Guide: Thread Block Clusters, Distributed Shared Memory";
    e.summary = "Distributed shared memory between the blocks of a cluster: dependent-load latency from another block's "
                "shared memory against local shared memory and an L2 hit, an all-to-all exchange through distributed "
                "shared memory against global memory, and the clusters each size lets the device hold, for cluster sizes 1 to 16.";
    ParamSpec sizes = int_list_param("cluster_sizes", cluster_size_choices(), 1, 16,
                                     "blocks per cluster (16 only where the device allows non-portable cluster sizes)", "blocks");
    sizes.allowed = cluster_size_choices();
    e.params = {
        std::move(sizes),
        int_param("hops", 1024, 16, 1 << 20, "timed dependent loads per chase"),
        with_multiple_of(int_param("slice_bytes", 4096, 16, 64 * 1024, "bytes each block sends to each other block per round (cluster size x slice within shared memory)", "bytes"), 16),
        int_param("rounds", 256, 1, 1 << 16, "exchange rounds per launch"),
    };
    e.axes = {{}, "cluster_sizes"};  // Its series run along the cluster sizes.
    e.run = run_cluster_shared;
    e.quick = {{"cluster_sizes", {1, 2, 8}}, {"hops", 256}, {"rounds", 16}};
    e.figures = {kLocalCycles,       kLocalNs,      kL2Cycles,       kL2Ns,           kRemoteCycles,
                 kRemoteNs,          kRemoteOverLocal, kRemoteOverL2, kLocalGenericCycles, kLocalGenericNs,
                 kLocalGenericOverLocal, kSmClockMhz, kDsmOverGlobalBest, kChaseCyclesAt, kMaxActiveClusters,
                 kResidentBlocks,    kExchangeGbs,  kDsmOverGlobal};
    e.compared = {
        {kRemoteNs.name, "distributed shared memory latency"},
        {kRemoteOverLocal.name, "distributed / local shared memory latency"},
        {kDsmOverGlobalBest.name, "exchange: distributed shared / global memory"},
        {figure_key(kMaxActiveClusters, at_size(8)), "clusters of 8 held at once"},
    };
    e.chart = cluster_shared_chart();
    e.consistency = {
        gmvocab::agrees_on("l2_hit_latency", "l2_cycles", "1 MiB ring of 128-byte lines, ld.global.cg"),
        gmvocab::agrees_on("shared_latency", "local_cycles", "ld.shared chase of the block's own shared memory"),
        gmvocab::shown_beside("shared_latency", "local_generic_cycles", "generic ld of the same shared nodes",
                              "a generic ld first decides which memory its address is in; ld.shared does not"),
        gmvocab::shown_beside("shared_latency", "remote_cycles", "ld.shared::cluster of another block's shared memory",
                              "distributed shared memory: another SM's shared memory, over the network between the cluster's SMs"),
    };
    out.push_back(std::move(e));
}

}  // namespace gmlab
