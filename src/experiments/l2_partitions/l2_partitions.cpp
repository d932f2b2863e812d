// Experiment family "l2_partitions": the L2 of H100/H200 (and A100) is split
// in two partitions joined by a fabric, and a hit in the far one costs more
// than a hit in the near one. One thread pinned to one SM chases a ring of
// lines just written into L2 and times every load on its own: the latency of
// each line as seen from each SM. The measurements split into two levels
// (near and far), and each SM's share of far lines is set beside the
// two-partition model's half. Chases over only the near or only the far lines
// of one SM are counted with the fabric counters, and a working-set sweep from
// one SM shows which level a chase over a quarter to all of L2 finds.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "core/device/host_memory.hpp"
#include "core/error.hpp"
#include "core/experiment/point_protocol.hpp"
#include "core/experiment/registry.hpp"
#include "core/measurement/harness.hpp"
#include "core/units.hpp"
#include "experiments/common/chase.hpp"
#include "experiments/common/latency_model.hpp"
#include "experiments/l2_partitions/l2_partitions.cuh"
#include "experiments/l2_partitions/partition_model.hpp"
#include "experiments/l2_partitions/pinned_chase.hpp"

namespace gmlab {

namespace {

using kernels::kChaseLineBytes;
using kernels::kChasePageBytes;
constexpr std::uint64_t kSeed = 0x6c3270617274ull;  // "l2part"
constexpr double kModelFarShare = 0.5;  // two partitions, addresses spread evenly over them
constexpr double kMinLevelShare = 0.05;  // a level holds at least this share of the (SM, line) pairs

// The headline figures. Latencies are of one dependent L2 hit (ld.global.cg)
// from a chase pinned to one SM, in SM cycles and in ns at the SM clock
// measured during the chases; near and far are the two levels every SM's
// first visits split into. Plain names come before the patterns with axes.
const Figure kLevels{"levels", "count", Better::Neither,
                     "latency levels the first visits split into: 2 where a far partition shows, else 1"};
const Figure kNearCycles{"near_cycles", "cycles", Better::Lower, "L2 hit latency of the lines in an SM's near partition"};
const Figure kNearNs{"near_ns", "ns", Better::Lower, "L2 hit latency of the lines in an SM's near partition"};
const Figure kFarCycles{"far_cycles", "cycles", Better::Lower, "L2 hit latency of the lines in an SM's far partition"};
const Figure kFarNs{"far_ns", "ns", Better::Lower, "L2 hit latency of the lines in an SM's far partition"};
const Figure kGapCycles{"gap_cycles", "cycles", Better::Neither, "far level minus near level"};
const Figure kFarOverNear{"far_over_near", "ratio", Better::Neither, "far over near L2 hit latency"};
const Figure kThresholdCycles{"threshold_cycles", "cycles", Better::Neither, "latency that divides near hits from far ones"};
const Figure kSidesConsistency{"sides_consistency", "ratio", Better::Neither,
                               "share of the (SM, line) pairs the two-partition fit (each SM on one side, each line in one "
                               "partition) explains"};
const Figure kSmsOnSide{"sms_side{side}", "count", Better::Neither, "SMs the two-partition fit puts on side 0 or side 1"};
const Figure kFarShareMedian{"far_share_median", "ratio", Better::Neither,
                             "share of lines far from an SM (model 0.5), median over the SMs measured"};
const Figure kFarShareMin{"far_share_min", "ratio", Better::Neither, "share of lines far from an SM, the lowest over the SMs"};
const Figure kFarShareMax{"far_share_max", "ratio", Better::Neither, "share of lines far from an SM, the highest over the SMs"};
const Figure kRepeatFarShareMedian{"repeat_far_share_median", "ratio", Better::Neither,
                                   "share of lines still far on the second visit from the same SM, median over the SMs"};
const Figure kSmsMeasured{"sms_measured", "count", Better::Neither, "SMs a chase ran on and was measured from"};
const Figure kSmsChosen{"sms_chosen", "count", Better::Neither, "SMs chosen to chase from (every sm_step-th seen, and the lone block's)"};
const Figure kSmsSeen{"sms_seen", "count", Better::Neither, "SM ids the census launch saw"};
const Figure kSmsUnreached{"sms_unreached", "count", Better::Neither, "SMs chosen that no block of the chase ran on"};
const Figure kFabricSm{"fabric_sm", "SM id", Better::Neither, "SM the fabric check and the sweep chased from"};
const Figure kLines{"lines", "count", Better::Neither, "lines chased from each SM"};
const Figure kSmClockMeasured{"sm_clock_mhz_measured", "MHz", Better::Neither,
                              "SM clock during the chases (clock64 cycles over the global timer's ns)"};
const Figure kSmClockReported{"sm_clock_mhz_reported", "MHz", Better::Neither, "SM clock the device reports"};
const Figure kRingCycles{"{ring}_ring_cycles", "cycles", Better::Lower,
                         "L2 hit latency of the fabric check's chase over only one SM's near lines (near) or far lines (far)"};
const Figure kRingFabricSectors{"{ring}_ring_fabric_sectors_per_load", "sectors/load", Better::Neither,
                                "sectors that crossed the fabric between the partitions per load of the fabric check's near "
                                "or far chase, counted (model: 0 near, 1 far)"};
const Figure kSweepFarShare{"sweep_{percent}pct_l2_far_share", "ratio", Better::Neither,
                            "share of the loads at the far level in a chase over this percentage of L2 from one SM"};
const Figure kSweepNearShare{"sweep_{percent}pct_l2_near_share", "ratio", Better::Neither,
                             "share of the loads at the near level in a chase over this percentage of L2 from one SM"};

int kept_launches(const Settings &s) { return std::max(1, std::min(s.min_repetitions, s.max_repetitions)); }
int warmup_launches(const Settings &s) { return std::max(0, s.warmup); }

double median(std::vector<double> v) { return v.empty() ? 0.0 : summarize(std::move(v)).median; }

// A different line for every launch, from a fixed sequence.
std::uint32_t start_line(std::size_t lines, std::uint64_t k) {
    return static_cast<std::uint32_t>(((k + 1) * 0x9E3779B97F4A7C15ull >> 20) % lines);
}

// The lines chased and their ring, on the device, rewritten from one block
// (before every chase of the map: a write leaves a line only where the L2
// keeps it for everyone, whichever SM read it before).
struct Lines {
    std::vector<std::uint64_t> offsets;
    std::vector<std::uint32_t> next;
    std::uint64_t offset_sum = 0;
};

// A series of latencies in cycles (values.latency_cycles) against x.
Series cycles_series(const std::string &name, const std::string &variant, const std::string &x_name,
                     const std::string &x_unit = "") {
    return chase_latency_series(name, variant, x_name, x_unit, "latency per dependent load");
}

// The per-hop cycles of the kept launches among jobs[from, to) (the first
// `warmup` are dropped), as one list.
std::vector<double> kept_cycles(const std::vector<PinnedJob> &jobs, std::size_t from, std::size_t to, int warmup) {
    std::vector<double> v;
    for (std::size_t i = from + static_cast<std::size_t>(warmup); i < to; ++i)
        if (jobs[i].reached)
            for (unsigned c : jobs[i].cycles) v.push_back(c);
    return v;
}

// Each kept launch's timed hops as milliseconds at the measured clock.
Stats launch_times(const std::vector<PinnedJob> &jobs, std::size_t from, std::size_t to, int warmup, std::size_t first_hop,
                   std::size_t hops, double ghz) {
    std::vector<double> ms;
    for (std::size_t i = from + static_cast<std::size_t>(warmup); i < to; ++i) {
        if (!jobs[i].reached) continue;
        double c = 0;
        for (std::size_t h = first_hop; h < first_hop + hops && h < jobs[i].cycles.size(); ++h) c += jobs[i].cycles[h];
        ms.push_back(c / ghz * 1e-6);
    }
    if (ms.empty()) ms.push_back(0.0);
    return summarize(std::move(ms));
}

struct ClockSum {
    double cycles = 0, ns = 0;
    void add(const std::vector<PinnedJob> &jobs) {
        for (const PinnedJob &j : jobs)
            if (j.reached) {
                cycles += static_cast<double>(j.head.cycles);
                ns += static_cast<double>(j.head.ns);
            }
    }
    double ghz(double fallback) const { return cycles > 0 && ns > 0 ? cycles / ns : fallback; }
};

// Counts one more chase of a ring from SM `sm` with the fabric counters,
// after the lines were rewritten (not counted) and without the
// address-translation loads, launched as a single block (one-block launches
// go to `sm`), so that the count holds the ring's loads and the block's own
// few accesses (its claim, its results, its instructions and parameters). A
// count of a launch whose block ran elsewhere is dropped.
void count_fabric(ContextState &ctx, const char *base, unsigned sm, std::uint64_t start, unsigned hops, const Launch &rewrite,
                  Point &p, Result &out) {
    DeviceArray head(ctx, sizeof(kernels::PinnedChaseHead));
    CounterSet set = counter_sets::l2_fabric();
    set.derived.push_back({"fabric_sectors_per_load", "lts__t_sectors_srcunit_ltcfabric.sum", "", static_cast<double>(hops)});
    measure_counters_prepared(
        ctx,
        [&](cudaStream_t s) {
            return kernels::launch_pinned_chase(base, sm, start, hops, 0, 0, 1, head.as<kernels::PinnedChaseHead>(), nullptr, s);
        },
        [&](cudaStream_t s) {
            if (cudaError_t e = cudaMemsetAsync(head.get(), 0, head.bytes(), s); e != cudaSuccess) return e;
            return rewrite(s);
        },
        set, p, out);
    if (p.counters.empty()) return;
    kernels::PinnedChaseHead h{};
    GM_CUDA(cudaMemcpy(&h, head.get(), sizeof h, cudaMemcpyDeviceToHost));
    if (h.claim != 0) return;
    p.counters.clear();
    p.counter_checks.clear();
    out.notes.push_back("A counted chase, launched as one block, did not run on SM " + std::to_string(sm) +
                        "; its counters are left out.");
}

// One SM's map: per line, the median first-visit and repeat-visit cycles
// over the kept launches, and where its jobs begin in the map's list.
struct SmMap {
    unsigned sm = 0;
    std::size_t jobs_from = 0;
    std::vector<double> first, repeat;  // per line
};

// One working set of the sweep and its chases.
struct SweepRaw {
    std::size_t bytes = 0;
    std::vector<PinnedJob> jobs;
};

// The per-line map, compactly: which lines each SM sees far, and per line
// the latency seen from the SMs near to it and from those far from it (with
// full_matrix every SM's first visit of every line).
nlohmann::json line_map(const std::vector<SmMap> &maps, const std::vector<std::vector<bool>> &far,
                        const std::vector<std::uint64_t> &offsets, const PartitionFit &fit, bool full_matrix) {
    nlohmann::json far_hex = nlohmann::json::object(), line_near = nlohmann::json::array(), line_far = nlohmann::json::array(),
                   line_far_sms = nlohmann::json::array();
    for (std::size_t s = 0; s < maps.size(); ++s) far_hex[std::to_string(maps[s].sm)] = bits_hex(far[s]);
    for (std::size_t l = 0; l < offsets.size(); ++l) {
        std::vector<double> nc, fc;
        for (std::size_t s = 0; s < maps.size(); ++s) (far[s][l] ? fc : nc).push_back(maps[s].first[l]);
        line_near.push_back(nc.empty() ? nlohmann::json(nullptr) : nlohmann::json(std::round(median(nc) * 10) / 10));
        line_far.push_back(fc.empty() ? nlohmann::json(nullptr) : nlohmann::json(std::round(median(fc) * 10) / 10));
        line_far_sms.push_back(fc.size());
    }
    nlohmann::json map_json = {{"line_offsets", offsets}, {"far_lines_hex", far_hex}, {"line_near_cycles", line_near},
                               {"line_far_cycles", line_far},   {"line_far_sm_count", line_far_sms}};
    if (!fit.home.empty()) map_json["line_home"] = fit.home;
    if (full_matrix) {
        nlohmann::json m = nlohmann::json::object();
        for (const SmMap &sm : maps) {
            nlohmann::json row = nlohmann::json::array();
            for (double c : sm.first) row.push_back(std::lround(c));
            m[std::to_string(sm.sm)] = row;
        }
        map_json["first_visit_cycles"] = m;
    }
    return map_json;
}

// The working-set sweep from SM s0: a ring over every line of a quarter, a
// half, ... of L2, read by the SM's block first, then chased.
std::vector<SweepRaw> run_sweep(ContextState &ctx, char *base, DeviceArray &next_d, int sweep_points, unsigned sweep_hops,
                                int launches, unsigned s0, ClockSum &clock, Result &out) {
    const DeviceInfo &dev = ctx.info();
    cudaStream_t st = ctx.stream();
    std::vector<SweepRaw> sweep;
    for (int k = 1; k <= sweep_points; ++k) {
        const std::size_t n = dev.l2_bytes / kChaseLineBytes * static_cast<std::size_t>(k) / static_cast<std::size_t>(sweep_points);
        if (n < 2) continue;
        const std::vector<std::uint32_t> next = single_cycle(n, kSeed ^ (n << 1));
        GM_CUDA(cudaMemcpyAsync(next_d.get(), next.data(), n * 4, cudaMemcpyHostToDevice, st));
        GM_CUDA(kernels::launch_write_lines(base, nullptr, next_d.as<std::uint32_t>(), static_cast<unsigned>(n),
                                            4 * static_cast<unsigned>(std::max(1, dev.multiprocessors)), nullptr, st));
        SweepRaw raw;
        raw.bytes = n * kChaseLineBytes;
        for (int i = 0; i < launches; ++i) {
            PinnedJob j;
            j.sm = s0;
            std::uint32_t cur = start_line(n, static_cast<std::uint64_t>(k) * 1000 + static_cast<std::uint64_t>(i));
            j.start = static_cast<std::uint64_t>(cur) * kChaseLineBytes;
            j.hops = sweep_hops;
            for (unsigned h = 0; h < sweep_hops; ++h) {
                cur = next[cur];
                j.expected_sum += static_cast<std::uint64_t>(cur) * kChaseLineBytes;
            }
            j.expected_last = static_cast<std::uint64_t>(cur) * kChaseLineBytes;
            raw.jobs.push_back(std::move(j));
        }
        PinnedSetup setup{base, 0, raw.bytes, {}};
        run_pinned(ctx, setup, raw.jobs, "l2_partitions sweep chase over " + std::to_string(raw.bytes) + " bytes", out);
        clock.add(raw.jobs);
        sweep.push_back(std::move(raw));
    }
    return sweep;
}

// The fabric check (where the map found two levels): from SM s0, a chase
// over only its near lines and one over only its far lines, timed and
// counted; ran is false where one of the two rings is empty.
struct FabricCheck {
    bool ran = false;
    std::vector<std::vector<std::uint32_t>> rings = std::vector<std::vector<std::uint32_t>>(2);
    std::vector<PinnedJob> jobs;
    std::vector<Point> points;
};

FabricCheck run_fabric_check(ContextState &ctx, const Lines &lines, const std::vector<bool> &far_here, unsigned s0,
                             DeviceArray &next_d, const std::function<void(const std::vector<std::uint32_t> &)> &stage,
                             const PinnedSetup &map_setup, const Launch &rewrite, char *base, int launches, ClockSum &clock,
                             Result &out) {
    cudaStream_t st = ctx.stream();
    const std::size_t n_lines = lines.offsets.size();
    FabricCheck f;
    std::vector<std::vector<std::uint32_t>> &rings = f.rings;
    for (std::size_t l = 0; l < n_lines; ++l) rings[far_here[l] ? 1 : 0].push_back(static_cast<std::uint32_t>(l));
    f.ran = !rings[0].empty() && !rings[1].empty();
    if (!f.ran) return f;
    {
        // Two cycles over the same lines: near ones to near ones, far to far.
        std::vector<std::uint32_t> split_next(n_lines);
        std::vector<std::uint64_t> ring_sum(2, 0);
        for (int r = 0; r < 2; ++r) {
            const std::vector<std::uint32_t> cyc = single_cycle(rings[r].size(), kSeed + 7 + static_cast<std::uint64_t>(r));
            for (std::size_t k = 0; k < rings[r].size(); ++k) {
                split_next[rings[r][k]] = rings[r][cyc[k]];
                ring_sum[r] += lines.offsets[rings[r][k]];
            }
        }
        GM_CUDA(cudaMemcpyAsync(next_d.get(), split_next.data(), n_lines * 4, cudaMemcpyHostToDevice, st));
        GM_CUDA(cudaStreamSynchronize(st));
        stage(split_next);
        for (int r = 0; r < 2; ++r)
            for (int i = 0; i < launches; ++i) {
                PinnedJob j;
                j.sm = s0;
                j.start = lines.offsets[rings[r][0]];
                j.hops = static_cast<unsigned>(rings[r].size());
                j.expected_last = j.start;
                j.expected_sum = ring_sum[r];
                f.jobs.push_back(std::move(j));
            }
        run_pinned(ctx, map_setup, f.jobs, "l2_partitions near-only / far-only chase", out);
        clock.add(f.jobs);
        f.points.resize(2);
        for (int r = 0; r < 2; ++r) {
            Point &p = f.points[static_cast<std::size_t>(r)];
            p.x = r;
            p.values["loads"] = static_cast<double>(rings[r].size());
            p.values["sm"] = s0;
            p.predicted["fabric_sectors_per_load"] = r;  // a far hit crosses the fabric once, a near one never
        }
        // The far ring first: where counting is kept within a time budget
        // (counters = auto) the first count is always made.
        for (int r : {1, 0})
            count_fabric(ctx, base, s0, lines.offsets[rings[r][0]], static_cast<unsigned>(rings[r].size()), rewrite,
                         f.points[static_cast<std::size_t>(r)], out);
    }
    return f;
}

// The map's chases: from each target SM, `launches` of two laps of the ring,
// each from a start of its own.
std::vector<PinnedJob> map_jobs(const std::vector<unsigned> &targets, int launches, const Lines &lines, unsigned map_hops) {
    const std::size_t n_lines = lines.offsets.size();
    std::vector<PinnedJob> map;
    for (std::size_t t = 0; t < targets.size(); ++t)
        for (int i = 0; i < launches; ++i) {
            PinnedJob j;
            j.sm = targets[t];
            const std::uint32_t s = start_line(n_lines, t * 1000 + static_cast<std::uint64_t>(i));
            j.start = lines.offsets[s];
            j.hops = map_hops;
            j.expected_last = lines.offsets[s];  // two whole laps of a single cycle
            j.expected_sum = 2 * lines.offset_sum;
            map.push_back(std::move(j));
        }
    return map;
}

// Per reached SM and line: the median first-visit and repeat-visit cycles
// of the kept launches; the SMs no launch reached go to unreached.
std::vector<SmMap> aggregate_maps(const std::vector<PinnedJob> &map, const std::vector<unsigned> &targets, int launches,
                                  int warmup, const Lines &lines, unsigned map_hops, std::vector<unsigned> &unreached) {
    const std::size_t n_lines = lines.offsets.size();
    std::vector<SmMap> maps;
    for (std::size_t t = 0; t < targets.size(); ++t) {
        const std::size_t from = t * static_cast<std::size_t>(launches), to = from + static_cast<std::size_t>(launches);
        std::vector<std::vector<double>> first(n_lines), repeat(n_lines);
        for (std::size_t i = from + static_cast<std::size_t>(warmup); i < to; ++i) {
            if (!map[i].reached) continue;
            // Hop h loads line cur_h: the start, then along the ring.
            std::uint32_t cur = start_line(n_lines, t * 1000 + (i - from));
            for (std::size_t h = 0; h < map_hops; ++h) {
                (h < n_lines ? first : repeat)[cur].push_back(map[i].cycles[h]);
                cur = lines.next[cur];
            }
        }
        if (first[0].empty()) {
            unreached.push_back(targets[t]);
            continue;
        }
        SmMap m;
        m.sm = targets[t];
        m.jobs_from = from;
        for (std::size_t l = 0; l < n_lines; ++l) {
            m.first.push_back(median(first[l]));
            m.repeat.push_back(median(repeat[l]));
        }
        maps.push_back(std::move(m));
    }
    return maps;
}

// The sweep's series: per working set, the median latency and the shares of
// near, far and beyond hops; the far and near shares in the summary.
Series sweep_series(const std::vector<SweepRaw> &sweep, const TwoLevels &levels, double ghz, int warmup, unsigned sweep_hops,
                    unsigned s0, std::size_t l2_bytes, Result &out) {
    Series sweep_s = cycles_series("working set sweep from one SM (its block reads the ring first)", "sweep", "working set",
                                   "bytes");
    for (const SweepRaw &raw : sweep) {
        const std::vector<double> c = kept_cycles(raw.jobs, 0, raw.jobs.size(), warmup);
        if (c.empty()) continue;
        const LevelShares sh = level_shares(c, levels);
        Point p;
        p.x = static_cast<double>(raw.bytes);
        p.time_ms = launch_times(raw.jobs, 0, raw.jobs.size(), warmup, 0, sweep_hops, ghz);
        p.values["latency_cycles"] = median(c);
        p.values["latency_ns"] = median(c) / ghz;
        p.values["near_share"] = sh.near;
        p.values["far_share"] = sh.far;
        p.values["beyond_share"] = sh.beyond;
        p.values["over_l2"] = static_cast<double>(raw.bytes) / static_cast<double>(l2_bytes);
        p.values["sm"] = s0;
        sweep_s.points.push_back(std::move(p));
        const int pct = static_cast<int>(std::lround(100.0 * static_cast<double>(raw.bytes) / static_cast<double>(l2_bytes)));
        out.record(kSweepFarShare, sh.far, {{"percent", std::to_string(pct)}});
        out.record(kSweepNearShare, sh.near, {{"percent", std::to_string(pct)}});
    }
    return sweep_s;
}

// A point of a per-SM series, timed once the SM clock is known.
struct PendingPoint {
    Series *series;
    std::size_t map_index;
    Point point;
};

// Each SM's points: the median latency of its near lines, of its far lines
// and of its second visits, and its shares of far lines (first and second visit).
std::vector<PendingPoint> per_sm_points(const std::vector<SmMap> &maps, const std::vector<std::vector<bool>> &far,
                                        const TwoLevels &levels, const PartitionFit &fit, Series &near_s, Series &far_s,
                                        Series &repeat_s, std::vector<double> &far_shares,
                                        std::vector<double> &repeat_far_shares) {
    const std::size_t n_lines = far.empty() ? 0 : far[0].size();
    std::vector<PendingPoint> pending;
    for (std::size_t s = 0; s < maps.size(); ++s) {
        const SmMap &m = maps[s];
        std::vector<double> near_c, far_c;
        std::size_t repeat_far = 0;
        for (std::size_t l = 0; l < n_lines; ++l) {
            (far[s][l] ? far_c : near_c).push_back(m.first[l]);
            repeat_far += is_far(m.repeat[l], levels) ? 1 : 0;
        }
        const double share = static_cast<double>(far_c.size()) / static_cast<double>(n_lines);
        const double repeat_share = static_cast<double>(repeat_far) / static_cast<double>(n_lines);
        far_shares.push_back(share);
        repeat_far_shares.push_back(repeat_share);
        auto point = [&](const std::vector<double> &c) {
            Point p;
            p.x = m.sm;
            p.values["latency_cycles"] = median(c);
            p.values["lines"] = static_cast<double>(c.size());
            p.values["far_share"] = share;
            p.values["repeat_far_share"] = repeat_share;
            p.values["side"] = fit.side.empty() ? 0 : fit.side[s];
            p.predicted["far_share"] = kModelFarShare;
            return p;
        };
        if (!near_c.empty()) pending.push_back({&near_s, s, point(near_c)});
        if (!far_c.empty()) pending.push_back({&far_s, s, point(far_c)});
        pending.push_back({&repeat_s, s, point(m.repeat)});
    }
    return pending;
}

// The per-SM points' times, at the SM clock measured: each kept launch's
// first pass (its repeat pass for the repeat series); into their series.
void time_map_points(std::vector<PendingPoint> &pending, const std::vector<SmMap> &maps, const std::vector<PinnedJob> &map,
                     int launches, int warmup, double ghz, const Series &repeat_s) {
    for (PendingPoint &pp : pending) {
        const SmMap &m = maps[pp.map_index];
        const std::size_t n_lines = m.first.size();
        const std::size_t to = m.jobs_from + static_cast<std::size_t>(launches);
        const std::size_t first_hop = pp.series == &repeat_s ? n_lines : 0;
        pp.point.time_ms = launch_times(map, m.jobs_from, to, warmup, first_hop, n_lines, ghz);
        pp.point.values["latency_ns"] = pp.point.values["latency_cycles"] / ghz;
        pp.series->points.push_back(std::move(pp.point));
    }
}

// The fabric check's two points (near ring, far ring) timed and classified.
void time_fabric_points(FabricCheck &fabric, const TwoLevels &levels, int launches, int warmup, double ghz, Series &fabric_s) {
    for (std::size_t r = 0; r < fabric.points.size(); ++r) {
        const std::size_t from = r * static_cast<std::size_t>(launches), to = from + static_cast<std::size_t>(launches);
        const std::vector<double> c = kept_cycles(fabric.jobs, from, to, warmup);
        if (c.empty()) continue;
        Point &p = fabric.points[r];
        const LevelShares sh = level_shares(c, levels);
        p.time_ms = launch_times(fabric.jobs, from, to, warmup, 0, fabric.rings[r].size(), ghz);
        p.values["latency_cycles"] = median(c);
        p.values["latency_ns"] = median(c) / ghz;
        p.values["far_share_of_loads"] = sh.far + sh.beyond;
        fabric_s.points.push_back(std::move(p));
    }
}

// The SM ids the device has (a census launch), the one a launch of one
// block goes to, and the ones the map chases from: every sm_step-th seen,
// and the lone block's SM.
struct SmCensus {
    unsigned nsmid = 0;
    std::vector<unsigned> seen, lone, targets;
};

SmCensus census_sms(ContextState &ctx, unsigned sm_step) {
    const DeviceInfo &dev = ctx.info();
    cudaStream_t st = ctx.stream();
    DeviceArray census_d(ctx, (kernels::kSmIdWords + 2) * sizeof(unsigned));
    auto *census = census_d.as<unsigned>();
    GM_CUDA(cudaMemsetAsync(census, 0, census_d.bytes(), st));
    GM_CUDA(kernels::launch_sm_census(census, census + kernels::kSmIdWords,
                                      8 * static_cast<unsigned>(std::max(1, dev.multiprocessors)), st));
    std::vector<std::uint32_t> bits(kernels::kSmIdWords + 1);
    GM_CUDA(cudaMemcpyAsync(bits.data(), census, bits.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, st));
    GM_CUDA(cudaStreamSynchronize(st));
    const unsigned nsmid = bits.back();
    bits.pop_back();
    const std::vector<unsigned> seen = sm_ids_of(bits);
    if (seen.empty()) fail(GM_ERROR_INTERNAL, "l2_partitions: the SM census recorded no SM id");
    // The SM a launch of one block goes to: the fabric check counts a chase
    // launched as one block there, so that no other SM's instruction and
    // parameter fetches (which may cross the fabric too) are in its count.
    GM_CUDA(cudaMemsetAsync(census, 0, kernels::kSmIdWords * sizeof(unsigned), st));
    GM_CUDA(kernels::launch_sm_census(census, census + kernels::kSmIdWords, 1, st));
    std::vector<std::uint32_t> lone_bits(kernels::kSmIdWords);
    GM_CUDA(cudaMemcpyAsync(lone_bits.data(), census, lone_bits.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, st));
    GM_CUDA(cudaStreamSynchronize(st));
    const std::vector<unsigned> lone = sm_ids_of(lone_bits);
    std::vector<unsigned> targets = every_nth_sm(seen, sm_step);
    if (!lone.empty() && std::find(targets.begin(), targets.end(), lone[0]) == targets.end()) {
        targets.push_back(lone[0]);
        std::sort(targets.begin(), targets.end());
    }
    SmCensus c;
    c.nsmid = nsmid;
    c.seen = seen;
    c.lone = lone;
    c.targets = std::move(targets);
    return c;
}

// How many SMs and lines took part, and the SM of the fabric check and the sweep.
struct PartitionCounts {
    std::size_t sms_measured, sms_chosen, sms_seen, lines;
    unsigned fabric_sm;
};

void summarise_partitions(Result &out, const TwoLevels &levels, const PartitionFit &fit, const std::vector<double> &far_shares,
                          const std::vector<double> &repeat_far_shares, double ghz, double reported_ghz,
                          const PartitionCounts &n) {
    out.record(kLevels, levels.found ? 2 : 1);
    out.record(kNearCycles, levels.low);
    out.record(kNearNs, levels.low / ghz);
    if (levels.found) {
        out.record(kFarCycles, levels.high);
        out.record(kFarNs, levels.high / ghz);
        out.record(kGapCycles, levels.gap);
        out.record(kFarOverNear, levels.high / levels.low);
        out.record(kThresholdCycles, levels.threshold);
        out.record(kSidesConsistency, fit.consistency);
        for (int side : {0, 1})
            out.record(kSmsOnSide, static_cast<double>(std::count(fit.side.begin(), fit.side.end(), side)),
                       {{"side", std::to_string(side)}});
    }
    std::vector<double> sorted_shares = far_shares;
    std::sort(sorted_shares.begin(), sorted_shares.end());
    out.record(kFarShareMedian, median(far_shares));
    out.record(kFarShareMin, sorted_shares.front());
    out.record(kFarShareMax, sorted_shares.back());
    out.record(kRepeatFarShareMedian, median(repeat_far_shares));
    out.record(kSmsMeasured, static_cast<double>(n.sms_measured));
    out.record(kSmsChosen, static_cast<double>(n.sms_chosen));
    out.record(kFabricSm, n.fabric_sm);
    out.record(kSmsSeen, static_cast<double>(n.sms_seen));
    out.record(kLines, static_cast<double>(n.lines));
    for (const Series &s : out.series)
        if (s.variant == "fabric")
            for (const Point &p : s.points) {
                const FigureAt ring = {{"ring", p.x == 0 ? "near" : "far"}};
                out.record(kRingCycles, p.values.at("latency_cycles"), ring);
                auto c = p.counters.find("fabric_sectors_per_load");
                if (c != p.counters.end()) out.record(kRingFabricSectors, c->second, ring);
            }
    out.record(kSmClockMeasured, ghz * 1e3);
    out.record(kSmClockReported, reported_ghz * 1e3);
}

// What the notes name: the run's sizes and choices.
struct PartitionSetup {
    std::size_t sms_chosen, sms_seen;
    unsigned nsmid;
    std::size_t n_lines, region;
    unsigned sm_step;
    double min_gap;
    unsigned s0, sweep_hops;
};

void add_partition_notes(Result &out, const TwoLevels &levels, const PartitionFit &fit, const std::vector<double> &far_shares,
                         const std::vector<double> &repeat_far_shares, const PartitionSetup &u,
                         const std::vector<unsigned> &unreached, bool fabric_check, bool swept) {
    std::vector<double> sorted_shares = far_shares;
    std::sort(sorted_shares.begin(), sorted_shares.end());
    const std::size_t n_lines = u.n_lines, region = u.region;
    const unsigned sm_step = u.sm_step, nsmid = u.nsmid, s0 = u.s0, sweep_hops = u.sweep_hops;
    const double min_gap = u.min_gap;
    out.notes.push_back(
        "From each of " + std::to_string(u.sms_chosen) + " SMs (sm_step " + std::to_string(sm_step) + " over the " +
        std::to_string(u.sms_seen) + " SM ids seen; %nsmid " + std::to_string(nsmid) +
        "; and the SM one-block launches go to), one thread follows a ring of " +
        std::to_string(n_lines) + " 128-byte lines drawn at random from " + mib_text(static_cast<double>(region)) +
        " with ld.global.cg (L2 only), twice around, timing every load on its own with clock64 (the cycles from issuing it to "
        "a shared-memory store that waits for its value, so a few cycles above a plain chase's). Before every chase the lines "
        "are written whole by the copy engine from pinned host memory (one 128-byte copy a line), so the first visit finds "
        "each line in L2 in its own partition and no copy of it near the chasing SM (a kernel's writes would leave one on "
        "the writing SM's side: from SM 124 of an H200, SMs of that side saw 5 % of the lines far, the others 39 %); the chase first loads one word per 2 MiB page of the region (untimed) to warm "
        "the address translation. The chase is pinned by launching blocks on every SM and letting only the first block on "
        "the chosen SM (%smid) go on. Each (SM, line) latency is the median over the kept launches.");
    if (levels.found) {
        char buf[320];
        std::snprintf(buf, sizeof buf,
                      "Two levels (two-means split of every SM's first visits): near %.0f cycles, far %.0f cycles (gap %.0f, "
                      "far / near %.2f). Each SM's share of far lines: median %.2f (%.2f..%.2f); the model: 0.5. The "
                      "two-partition fit (each SM on one side, each line in one partition) explains %.1f%% of the (SM, line) pairs.",
                      levels.low, levels.high, levels.gap, levels.high / levels.low, median(far_shares), sorted_shares.front(),
                      sorted_shares.back(), 100 * fit.consistency);
        out.notes.push_back(buf);
        std::snprintf(buf, sizeof buf, "Second visits from the same SM: a median share of %.2f of the lines still far "
                      "(the series 'repeat').", median(repeat_far_shares));
        out.notes.push_back(std::string(buf) +
                            " Where it falls to 0, a line read once across the fabric is kept near the reading SM afterwards, "
                            "and a chase that revisits its lines finds the far level only once its working set no longer fits "
                            "what is kept near (the sweep).");
    } else {
        out.notes.push_back("One level: the first visits do not split into two groups at least " +
                            std::to_string(static_cast<int>(std::lround(min_gap * 100))) +
                            "% apart (min_gap), each holding 5% of the pairs: this L2 shows no far partition to these SMs.");
    }
    if (!unreached.empty()) {
        std::string ids;
        for (unsigned id : unreached) ids += (ids.empty() ? "" : ", ") + std::to_string(id);
        out.notes.push_back("No block of the chase ran on SM " + ids + " in four tries; those SMs are left out.");
        out.record(kSmsUnreached, static_cast<double>(unreached.size()));
    }
    if (fabric_check)
        out.notes.push_back("Fabric check (SM " + std::to_string(s0) + "): a ring over its near lines only and one over its far "
                            "lines only, each counted with lts__t_sectors_srcunit_ltcfabric (sectors that reached an L2 slice "
                            "over the fabric between the partitions): the model is none per near load and one per far load, "
                            "plus the launch's own few accesses (its claim, its results, its instructions), so the counts are "
                            "shown, not held to the model.");
    for (const std::string &e : out.counter_errors)
        if (e.find("ltcfabric") != std::string::npos) {
            out.notes.push_back("The profiler has no fabric counter on this chip (see counters.errors): the crossing is not "
                                "counted; the latencies are measured all the same.");
            break;
        }
    if (swept)
        out.notes.push_back("Sweep (SM " + std::to_string(s0) + "): rings over a quarter to all of L2, every line read by the "
                            "SM's block first, then " + std::to_string(sweep_hops) + " timed hops; each hop is counted near, far "
                            "(up to half the gap above the far level) or beyond (DRAM, or a missed address translation).");
    out.published_source = "published pointer-chase microbenchmarks (H100 PCIe at 1755 MHz), cycles";
    out.published = {{"near_cycles", 265}, {"far_cycles", 475}};
}

// The lines, written whole by the copy engine from pinned host memory, one
// 128-byte copy a line: resident in L2 (a write allocates there) in the
// partition that holds each line, and nowhere nearer to any SM. Not by a
// kernel: a block's writes also leave a copy on its own SM's side (on an
// H200, lines written from SM 124 were far from SMs of the other side only:
// 39 % of them, against 5 % from SMs of its own).
class LineWriter {
public:
    LineWriter(char *base, const Lines &lines)
        : base_(base), lines_(lines),
          staged_(lines.offsets.size() * kChaseLineBytes, cudaHostAllocDefault, "l2_partitions (the lines as written)") {
        stage(lines.next);
    }
    LineWriter(const LineWriter &) = delete;
    LineWriter &operator=(const LineWriter &) = delete;

    // As kernels::launch_write_lines writes them: word 0 the next line's
    // address, the rest filler. Called again for other rings over the same
    // lines, once no copy from the buffer is in flight.
    void stage(const std::vector<std::uint32_t> &next) {
        const auto b = reinterpret_cast<unsigned long long>(base_);
        for (std::size_t i = 0; i < lines_.offsets.size(); ++i) {
            unsigned long long *line = staged_.as<unsigned long long>() + i * (kChaseLineBytes / 8);
            for (std::size_t w = 0; w < kChaseLineBytes / 8; ++w) line[w] = lines_.offsets[i] + w;
            line[0] = b + lines_.offsets[next[i]];
        }
    }

    // Enqueues the copies of every staged line into the region.
    Launch rewrite() const {
        return [this](cudaStream_t s) {
            for (std::size_t i = 0; i < lines_.offsets.size(); ++i) {
                const cudaError_t e = cudaMemcpyAsync(base_ + lines_.offsets[i], staged_.as<char>() + i * kChaseLineBytes,
                                                      kChaseLineBytes, cudaMemcpyHostToDevice, s);
                if (e != cudaSuccess) return e;
            }
            return cudaSuccess;
        };
    }

private:
    char *base_;
    const Lines &lines_;
    PinnedHostBuffer staged_;
};

// The map and what it shows: every chosen SM's chases of two passes, each
// reached SM's per-line medians, the two levels over every first visit,
// which lines each SM sees far and the two-partition fit.
struct PartitionMap {
    std::vector<PinnedJob> jobs;
    std::vector<SmMap> maps;
    std::vector<unsigned> unreached;
    TwoLevels levels;
    std::vector<std::vector<bool>> far;  // [SM of maps][line]
    PartitionFit fit;
};

PartitionMap run_partition_map(ContextState &ctx, const std::vector<unsigned> &targets, const Lines &lines,
                               const PinnedSetup &map_setup, int launches, int warmup, double min_gap, Result &out) {
    const std::size_t n_lines = lines.offsets.size();
    PartitionMap m;
    // From each SM, two passes over the ring (first visit, then repeat) right
    // after the lines were rewritten.
    const unsigned map_hops = static_cast<unsigned>(2 * n_lines);
    m.jobs = map_jobs(targets, launches, lines, map_hops);
    run_pinned(ctx, map_setup, m.jobs, "l2_partitions map chase", out);
    m.maps = aggregate_maps(m.jobs, targets, launches, warmup, lines, map_hops, m.unreached);
    if (m.maps.empty())
        fail(GM_ERROR_INTERNAL, "l2_partitions: no block of the pinned chase ran on any of the " +
                                    std::to_string(targets.size()) + " SMs chosen");
    std::vector<double> all_first;
    for (const SmMap &sm : m.maps) all_first.insert(all_first.end(), sm.first.begin(), sm.first.end());
    m.levels = split_two_levels(all_first, min_gap, kMinLevelShare);
    m.far.assign(m.maps.size(), std::vector<bool>(n_lines, false));
    for (std::size_t s = 0; s < m.maps.size(); ++s)
        for (std::size_t l = 0; l < n_lines; ++l) m.far[s][l] = is_far(m.maps[s].first[l], m.levels);
    m.fit = fit_sides(m.far);
    return m;
}

// The per-SM, fabric and sweep series with their attributes, into the result
// (those with points).
struct PartitionSeries {
    Series near_s = cycles_series("near lines (first visit after the lines were written)", "near", "SM");
    Series far_s = cycles_series("far lines (first visit after the lines were written)", "far", "SM");
    Series repeat_s = cycles_series("every line, second visit from the same SM", "repeat", "SM");
    Series fabric_s = cycles_series("one SM's near lines only, then its far lines only", "fabric",
                                    "ring (0: near lines, 1: far lines)");
    Series sweep_s;
};

void publish_series(PartitionSeries &ps, const nlohmann::json &common, const nlohmann::json &map_json, unsigned s0,
                    const FabricCheck &fabric, unsigned sweep_hops, std::size_t l2_bytes, Result &out) {
    for (Series *s : {&ps.near_s, &ps.far_s, &ps.repeat_s}) s->attributes = common;
    ps.far_s.attributes["map"] = map_json;
    ps.fabric_s.attributes = {{"sm", s0}, {"near_lines", fabric.rings[0].size()}, {"far_lines", fabric.rings[1].size()}};
    ps.sweep_s.attributes = {{"sm", s0}, {"hops", sweep_hops}, {"l2_bytes", l2_bytes}};
    for (Series *s : {&ps.near_s, &ps.far_s, &ps.repeat_s, &ps.fabric_s, &ps.sweep_s})
        if (!s->points.empty()) out.series.push_back(std::move(*s));
}

void run_l2_partitions(ContextState &ctx, const Params &params, Result &out) {
    const DeviceInfo &dev = ctx.info();
    cudaStream_t st = ctx.stream();
    const std::size_t n_lines = static_cast<std::size_t>(params.integer("lines"));
    const std::size_t region = (params.size("region_bytes") + kChasePageBytes - 1) / kChasePageBytes * kChasePageBytes;
    const unsigned sm_step = static_cast<unsigned>(params.integer("sm_step"));
    const double min_gap = params.number("min_gap");
    const int sweep_points = dev.l2_bytes > 0 ? static_cast<int>(params.integer("sweep_points")) : 0;
    const unsigned sweep_hops = static_cast<unsigned>(params.integer("sweep_hops"));
    const int warmup = warmup_launches(ctx.settings), kept = kept_launches(ctx.settings), launches = warmup + kept;
    const unsigned warm_pages = static_cast<unsigned>(region / kChasePageBytes);

    Lines lines;
    lines.offsets = choose_lines(region, n_lines, kSeed);
    lines.next = single_cycle(n_lines, kSeed ^ n_lines);
    for (std::uint64_t o : lines.offsets) lines.offset_sum += o;
    const std::size_t sweep_max_lines = sweep_points > 0 ? dev.l2_bytes / kChaseLineBytes : 0;
    const std::size_t buffer_bytes = std::max(region, sweep_max_lines * kChaseLineBytes);
    const std::size_t next_words = std::max(n_lines, sweep_max_lines);

    // Which SM ids exist: the chases are pinned to ids that were seen.
    const SmCensus sms = census_sms(ctx, sm_step);
    const std::vector<unsigned> &lone = sms.lone, &targets = sms.targets;

    // The region and its rings, and the largest batch's heads and per-hop
    // cycles (the map: every chosen SM's launches of two passes).
    const std::size_t slots = static_cast<std::size_t>(launches) * targets.size() *
                              (sizeof(kernels::PinnedChaseHead) + 2 * n_lines * sizeof(unsigned));
    const std::size_t sweep_slots = static_cast<std::size_t>(launches) * (sizeof(kernels::PinnedChaseHead) + sweep_hops * 4);
    require_memory(ctx, buffer_bytes + next_words * 4 + n_lines * 8 + std::max(slots, sweep_slots),
                   "l2_partitions (a region of " + std::to_string(buffer_bytes) + " bytes and its rings)");
    DeviceArray buffer(ctx, buffer_bytes), next_d(ctx, next_words * sizeof(std::uint32_t)),
        offsets_d(ctx, n_lines * sizeof(std::uint64_t));
    char *base = buffer.as<char>();
    GM_CUDA(cudaMemsetAsync(base, 0, buffer_bytes, st));
    GM_CUDA(cudaMemcpyAsync(offsets_d.get(), lines.offsets.data(), n_lines * 8, cudaMemcpyHostToDevice, st));
    GM_CUDA(cudaMemcpyAsync(next_d.get(), lines.next.data(), n_lines * 4, cudaMemcpyHostToDevice, st));
    LineWriter writer(base, lines);
    const Launch rewrite = writer.rewrite();

    const PinnedSetup map_setup{base, warm_pages, 0, rewrite};
    const PartitionMap pm = run_partition_map(ctx, targets, lines, map_setup, launches, warmup, min_gap, out);
    ClockSum clock;
    clock.add(pm.jobs);

    // The per-SM series; the clock is refined below once every chase has run.
    PartitionSeries ps;
    std::vector<double> far_shares, repeat_far_shares;
    std::vector<PendingPoint> pending = per_sm_points(pm.maps, pm.far, pm.levels, pm.fit, ps.near_s, ps.far_s, ps.repeat_s,
                                                      far_shares, repeat_far_shares);

    // The fabric check and the sweep run from the SM one-block launches go to
    // (else the first SM measured): a chase over only its near lines and one
    // over only its far lines, timed and counted.
    std::size_t m0 = 0;
    for (std::size_t m = 0; m < pm.maps.size(); ++m)
        if (!lone.empty() && pm.maps[m].sm == lone[0]) m0 = m;
    const unsigned s0 = pm.maps[m0].sm;
    const auto stage = [&writer](const std::vector<std::uint32_t> &next) { writer.stage(next); };
    FabricCheck fabric = pm.levels.found ? run_fabric_check(ctx, lines, pm.far[m0], s0, next_d, stage, map_setup, rewrite,
                                                            base, launches, clock, out)
                                         : FabricCheck{};

    // The working-set sweep from the same SM: a ring over every line of a
    // quarter, a half, ... of L2, read by the SM's block first, then chased.
    const std::vector<SweepRaw> sweep = run_sweep(ctx, base, next_d, sweep_points, sweep_hops, launches, s0, clock, out);

    // Cycles to time at the SM clock measured during every chase.
    const double reported_ghz = dev.clock_khz / 1e6;
    const double ghz = clock.ghz(reported_ghz);
    time_map_points(pending, pm.maps, pm.jobs, launches, warmup, ghz, ps.repeat_s);
    time_fabric_points(fabric, pm.levels, launches, warmup, ghz, ps.fabric_s);
    ps.sweep_s = sweep_series(sweep, pm.levels, ghz, warmup, sweep_hops, s0, dev.l2_bytes, out);

    // The per-line map, compactly: which lines each SM sees far, and per line
    // the latency seen from the SMs near to it and from those far from it.
    const nlohmann::json map_json = line_map(pm.maps, pm.far, lines.offsets, pm.fit, params.flag("full_matrix"));
    const nlohmann::json common = {{"lines", n_lines}, {"region_bytes", region}, {"sm_step", sm_step},
                                   {"threshold_cycles", pm.levels.threshold}, {"lines_written_by", "copy engine"}};
    publish_series(ps, common, map_json, s0, fabric, sweep_hops, dev.l2_bytes, out);

    summarise_partitions(out, pm.levels, pm.fit, far_shares, repeat_far_shares, ghz, reported_ghz,
                         {pm.maps.size(), targets.size(), sms.seen.size(), n_lines, s0});
    add_partition_notes(out, pm.levels, pm.fit, far_shares, repeat_far_shares,
                        {targets.size(), sms.seen.size(), sms.nsmid, n_lines, region, sm_step, min_gap, s0, sweep_hops},
                        pm.unreached, fabric.ran, !sweep.empty());
}

// Each SM's near and far latencies; the fabric rings and the sweep are in
// the tables.
Chart l2_partitions_chart() {
    Chart c;
    c.x_title = "SM (%smid)";
    c.leave_out = {"fabric", "sweep"};  // a ring index and a working set, not SMs: in the tables
    c.published_base = "near_cycles";
    c.explanation = "The L2 hit latency of each SM's near lines and far lines: with the L2 in two partitions joined by a "
                    "fabric, every SM sees two levels, and about half the lines (those in the other partition) at the far "
                    "one. The second visit shows whether a line read across the fabric is kept near the reader afterwards. "
                    "The tables give each SM's share of far lines against the model's half, the fabric counters of a "
                    "near-only and a far-only chase, and which level chases over a quarter to all of L2 find.";
    return c;
}

}  // namespace

void add_l2_partitions_experiments(std::vector<Experiment> &out) {
    Experiment e;
    e.name = "l2_partitions";
    e.guide_section = "Beyond the guide: the L2 partitions of H100/H200 and the fabric between them";
    e.summary = "L2 hit latency of each line seen from each SM (a chase pinned to the SM, every load timed): the near and "
                "far levels found by measurement, each SM's share of far lines against the model's half, the fabric counters "
                "of near-only and far-only chases, and which level a chase over a quarter to all of L2 finds.";
    // Default run, H100/H200 (132 SMs): 33 SMs x 7 launches of 512 timed hops
    // (about 0.15 ms each), a sweep of 4 rings up to L2 read and chased 7
    // times (about 1 ms each) and two short fabric rings: about 0.07 s of GPU time.
    e.params = {
        int_param("lines", 256, 16, 4096, "lines chased from each SM (each visited twice: first visit, then repeat)", "lines"),
        size_param("region_bytes", 64LL << 20, 8LL << 20, 4LL << 30, "region the lines are drawn from (random, fixed seed)"),
        int_param("sm_step", 4, 1, 1024, "chase from every sm_step-th SM id seen (1: every SM, the full map)"),
        double_param("min_gap", 0.15, 0.01, 10.0, "least gap between the two levels, relative to the near level"),
        int_param("sweep_points", 4, 0, 16, "rings of 1/points .. all of L2 chased from one SM (0: no sweep)"),
        int_param("sweep_hops", 2048, 16, kernels::kMaxTimedHops, "timed hops per sweep chase"),
        bool_param("full_matrix", false, "add every (SM, line) first-visit latency to the result"),
    };
    e.run = run_l2_partitions;
    e.quick = {{"lines", 64}, {"sm_step", 16}, {"sweep_points", 1}, {"sweep_hops", 256}};
    e.figures = {kLevels,          kNearCycles,      kNearNs,         kFarCycles,         kFarNs,
                 kGapCycles,       kFarOverNear,     kThresholdCycles, kSidesConsistency, kSmsOnSide,
                 kFarShareMedian,  kFarShareMin,     kFarShareMax,    kRepeatFarShareMedian, kSmsMeasured,
                 kSmsChosen,       kSmsSeen,         kSmsUnreached,   kFabricSm,          kLines,
                 kSmClockMeasured, kSmClockReported, kRingCycles,     kRingFabricSectors, kSweepFarShare,
                 kSweepNearShare};
    e.compared = {
        {kNearNs.name, "L2 hit latency, near partition"},
        {kFarNs.name, "L2 hit latency, far partition"},
        {kFarOverNear.name, "far / near L2 hit latency"},
        {kFarShareMedian.name, "share of lines far from an SM (model 0.5)"},
    };
    e.chart = l2_partitions_chart();
    e.consistency = {
        gmvocab::agrees_on("l2_hit_latency", "near_cycles", "chase pinned to one SM, lines of its own partition"),
        gmvocab::agrees_on("l2_far_hit_latency", "far_cycles", "chase pinned to one SM, lines of the other partition"),
    };
    out.push_back(std::move(e));
}

}  // namespace gmlab
