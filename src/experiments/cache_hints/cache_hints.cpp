// Experiment family "cache_hints": what the L2 eviction hints and controls do
// for a reused working set that fits in L2 while a stream of twice the L2 size
// passes once beside it (default loads, streaming loads, createpolicy
// evict_first / evict_last, L1::no_allocate, access policy windows), and what
// the L2 fetch granularity limit and the prefetch instruction and qualifiers
// make L2 fetch from DRAM for strided reads, against the sector model.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/device/l2_window.hpp"
#include "core/error.hpp"
#include "core/experiment/point_protocol.hpp"
#include "core/experiment/registry.hpp"
#include "core/measurement/harness.hpp"
#include "core/measurement/verify.hpp"
#include "core/units.hpp"
#include "experiments/cache_hints/cache_hints.cuh"
#include "experiments/cache_hints/fetch_limit.hpp"
#include "experiments/cache_hints/hint_models.hpp"
#include "shared_kernels/fill_pattern.cuh"

namespace gmlab {

namespace {

using kernels::LoadHint;
using kernels::Prefetch;
constexpr std::uint32_t kStreamSeed = 303, kReusedSeed = 404, kStridedSeed = 505;
// What a variant changes besides the loads: nothing, the persisting set-aside
// (at its maximum), or an access policy window on the context's stream.
enum class L2Setup { None, SetAside, WindowOverStream, WindowOverReused };

struct HintVariant {
    const char *label, *name;
    LoadHint stream, reused;
    L2Setup setup;
    bool needs_cc80;
};

constexpr HintVariant kHints[] = {
    {"default", "default loads", LoadHint::Default, LoadHint::Default, L2Setup::None, false},
    {"stream_cs", "stream read with __ldcs (ld.global.cs)", LoadHint::Streaming, LoadHint::Default, L2Setup::None, false},
    {"stream_l1_no_allocate", "stream read with ld.global.L1::no_allocate", LoadHint::L1NoAllocate, LoadHint::Default,
     L2Setup::None, false},
    {"stream_evict_first", "stream read with an L2::evict_first policy", LoadHint::EvictFirst, LoadHint::Default,
     L2Setup::None, true},
    {"reused_evict_last", "reused set read with an L2::evict_last policy", LoadHint::Default, LoadHint::EvictLast,
     L2Setup::None, true},
    {"evict_first_last", "evict_first on the stream, evict_last on the reused set", LoadHint::EvictFirst,
     LoadHint::EvictLast, L2Setup::None, true},
    {"evict_first_last_set_aside", "evict_first / evict_last with the persisting set-aside at its maximum",
     LoadHint::EvictFirst, LoadHint::EvictLast, L2Setup::SetAside, true},
    {"window_streaming", "access policy window over the stream: streaming", LoadHint::Default, LoadHint::Default,
     L2Setup::WindowOverStream, true},
    {"window_persisting", "access policy window over the reused set: persisting (set-aside at its maximum)",
     LoadHint::Default, LoadHint::Default, L2Setup::WindowOverReused, true},
};

struct PrefetchVariant {
    const char *label, *name;
    Prefetch kind;
    long long granularity;  // the fetch granularity limit asked for; -1: the limit as found
    std::uint64_t size;     // the prefetch size asked for by the load (0: none)
    bool needs_cc80;
};

constexpr PrefetchVariant kPrefetch[] = {
    {"plain", "plain loads, the fetch granularity limit as found", Prefetch::None, -1, 0, false},
    {"granularity_0", "fetch granularity limit 0", Prefetch::None, 0, 0, false},
    {"granularity_32", "fetch granularity limit 32 bytes", Prefetch::None, 32, 0, false},
    {"granularity_64", "fetch granularity limit 64 bytes", Prefetch::None, 64, 0, false},
    {"granularity_128", "fetch granularity limit 128 bytes", Prefetch::None, 128, 0, false},
    {"prefetch_l2", "prefetch.global.L2 one read ahead", Prefetch::Instruction, -1, 0, false},
    {"prefetch_size_64", "ld.global.L2::64B", Prefetch::Size64, -1, 64, false},
    {"prefetch_size_128", "ld.global.L2::128B", Prefetch::Size128, -1, 128, false},
    {"prefetch_size_256", "ld.global.L2::256B", Prefetch::Size256, -1, 256, true},
};

// The headline figures. Part 1, per hint variant: its time, the reused
// set's L2 hits and DRAM reads, its speed-up over default loads. Part 2, per
// prefetch variant and stride: time and DRAM bytes against plain loads and
// the sector model. And the sizes and state the run found.
const Figure kHintMs{"{hint}_ms", "ms", Better::Lower,
                     "time of one launch reading the reused set beside the stream, under one hint or L2 control"};
const Figure kHintSpeedup{"{hint}_speedup", "ratio", Better::Neither,
                          "time with default loads over time under this hint or L2 control"};
const Figure kReusedHitShare{"{hint}_reused_hit_share", "ratio", Better::Neither,
                             "counted L2 read hits over the reused set's sectors read, under one hint (the stream's "
                             "sectors all miss, so the hits are the reused set's)"};
const Figure kReusedFromDramShare{"{hint}_reused_from_dram_share", "ratio", Better::Neither,
                                  "(counted DRAM bytes read - the stream's bytes) over the reused set's bytes read: the "
                                  "share of the reused reads that went to DRAM, under one hint"};
const Figure kTimeOverPlain{"{variant}_s{stride}_time_over_plain", "ratio", Better::Neither,
                            "time of the strided reads under a fetch limit or prefetch over plain loads' at the same stride"};
const Figure kDramBytesPerRead{"{variant}_s{stride}_dram_bytes_per_read", "bytes", Better::Neither,
                               "counted DRAM bytes read per 4-byte strided read, under a fetch limit or prefetch"};
const Figure kDramOverSectorModel{"{variant}_s{stride}_dram_over_sector_model", "ratio", Better::Neither,
                                  "counted DRAM bytes of the strided reads over the 32-byte sector model's"};
const Figure kReusedBytes{"reused_bytes", "bytes", Better::Neither, "the reused set read beside the stream"};
const Figure kStreamBytes{"stream_bytes", "bytes", Better::Neither, "the stream read once per launch"};
const Figure kReusedReads{"reused_reads", "count", Better::Neither, "times the reused set is read per launch"};
const Figure kSetAsideFound{"set_aside_found_bytes", "bytes", Better::Neither,
                            "the persisting L2 set-aside in force when the experiment began"};
const Figure kFetchGranularityFound{"fetch_granularity_found", "bytes", Better::Neither,
                                    "the L2 fetch granularity limit in force when the experiment began"};

std::vector<std::string> labels_of_hints() {
    std::vector<std::string> v;
    for (const HintVariant &h : kHints) v.push_back(h.label);
    return v;
}

std::vector<std::string> labels_of_prefetch() {
    std::vector<std::string> v;
    for (const PrefetchVariant &p : kPrefetch) v.push_back(p.label);
    return v;
}

bool wanted(const std::vector<std::string> &list, const char *label) {
    return std::find(list.begin(), list.end(), label) != list.end();
}

// The point protocol of a launch that writes per-block sums into `partials`:
// poisoned, run once, downloaded, and their sums (pairs of stream and reused
// sums, or single sums) compared with the host's.
CheckedLaunch checked_sums(const Launch &launch, DeviceArray &partials, std::size_t blocks, std::size_t per_block,
                           const std::vector<std::uint64_t> &expected, const std::string &what, Result &out) {
    auto got = std::make_shared<std::vector<std::uint64_t>>(blocks * per_block);
    const std::size_t bytes = got->size() * sizeof(std::uint64_t);
    auto check = [got, blocks, per_block, expected, what, &out] {
        for (std::size_t k = 0; k < per_block; ++k) {
            std::uint64_t sum = 0;
            for (std::size_t b = 0; b < blocks; ++b) sum += (*got)[b * per_block + k];
            if (sum != expected[k])
                verification_failed(what + (per_block > 1 ? (k == 0 ? " (stream sum)" : " (reused sum)") : " (sum)"), k,
                                    std::to_string(expected[k]), std::to_string(sum));
        }
        out.verified(blocks * per_block, "every block's sums of the words it read, added up and compared with the host's sums of the same words");
    };
    return {launch, {{partials.get(), bytes}}, download_to(got->data(), partials.get(), bytes), check};
}

Series one_series(const std::string &name, const std::string &variant, const std::string &x_name, const std::string &x_unit) {
    Series s;
    s.name = name;
    s.variant = variant;
    s.x_name = x_name;
    s.x_unit = x_unit;
    return s;
}

// Part 2: strided reads under each prefetch and fetch granularity variant,
// the DRAM bytes each read fetched against the model's unit.
void measure_strided_reads(ContextState &ctx, std::size_t strided_bytes, const std::vector<std::uint64_t> &strides,
                           const std::vector<std::string> &prefetch, bool cc80, DeviceArray &partials, unsigned strided_blocks,
                           FetchGranularityRestore &fetch, std::vector<std::string> &skipped, Result &out) {
    require_memory(ctx, strided_bytes, "cache_hints (strided region of " + std::to_string(strided_bytes) + " bytes)");
    DeviceArray strided_d(ctx, std::max<std::size_t>(strided_bytes, 4));
    GM_CUDA(kernels::launch_fill_pattern(strided_d.as<std::uint32_t>(), strided_bytes / 4, kStridedSeed, ctx.stream()));
    const std::uint64_t sector_unit = fetch_unit(fetch.supported() ? fetch.found() : 0);
    std::map<std::string, double> plain_ms;
    for (const PrefetchVariant &v : kPrefetch) {
        if (!wanted(prefetch, v.label)) continue;
        if (v.needs_cc80 && !cc80) {
            skipped.push_back(v.label);
            continue;
        }
        std::size_t in_force = fetch.found();
        if (v.granularity >= 0) {
            if (!fetch.set(static_cast<std::size_t>(v.granularity), &in_force)) {
                skipped.push_back(std::string(v.label) + " (the device does not take this fetch granularity limit)");
                continue;
            }
        } else {
            fetch.restore();
        }
        // The unit the model expects L2 to fetch for one missed word.
        const std::uint64_t unit = v.granularity >= 0 ? fetch_unit(in_force) : std::max(sector_unit, fetch_unit(v.size));
        Series series = one_series(v.name, v.label, "stride", "bytes");
        series.y_field = "bandwidth_gbs";
        series.y_name = "useful bandwidth (the words read)";
        series.y_unit = "GB/s";
        series.quantity = Quantity::DramBandwidth;
        series.attributes = {{"region_bytes", strided_bytes}, {"granularity_in_force", in_force}, {"model_unit_bytes", unit}};
        for (std::uint64_t stride : strides) {
            const std::uint64_t n_reads = strided_bytes / stride;
            if (n_reads == 0 || n_reads >= (1ull << 31)) continue;
            const std::uint32_t stride_words = static_cast<std::uint32_t>(stride / 4);
            auto launch = [&](cudaStream_t s) {
                return kernels::launch_strided_read(v.kind, strided_d.as<std::uint32_t>(), static_cast<std::uint32_t>(n_reads),
                                                    stride_words, strided_blocks, partials.as<unsigned long long>(), s);
            };
            Point p;
            p.x = static_cast<double>(stride);
            p.bytes = 4.0 * static_cast<double>(n_reads);
            p.values["reads"] = static_cast<double>(n_reads);
            p.values["granularity_in_force"] = static_cast<double>(in_force);
            p.predicted["dram_bytes_read"] = static_cast<double>(fetched_bytes(n_reads, stride, unit));
            p.predicted["dram_bytes_per_read"] = static_cast<double>(fetched_bytes(n_reads, stride, unit)) / n_reads;
            p.predicted["sector_bytes"] = static_cast<double>(fetched_bytes(n_reads, stride, kSectorBytes));
            CounterSet set = counter_sets::dram();
            set.derived.push_back({"dram_bytes_per_read", "dram__bytes_read.sum", "", static_cast<double>(n_reads)});
            measure_checked(ctx,
                            checked_sums(launch, partials, strided_blocks, 1, {strided_sum(n_reads, stride_words, kStridedSeed)},
                                         std::string("cache_hints ") + v.label + " stride " + std::to_string(stride), out),
                            p, out, &set);
            const FigureAt at = {{"variant", v.label}, {"stride", std::to_string(stride)}};
            if (std::string(v.label) == "plain") plain_ms[std::to_string(stride)] = p.time_ms.median;
            if (auto it = plain_ms.find(std::to_string(stride)); it != plain_ms.end() && std::string(v.label) != "plain")
                out.record(kTimeOverPlain, p.time_ms.median / it->second, at);
            if (auto d = p.counters.find("dram__bytes_read.sum"); d != p.counters.end()) {
                out.record(kDramBytesPerRead, d->second / static_cast<double>(n_reads), at);
                out.record(kDramOverSectorModel, d->second / p.predicted["sector_bytes"], at);
            }
            series.points.push_back(std::move(p));
        }
        if (!series.points.empty()) out.series.push_back(std::move(series));
    }
}

// The sizes and the state found in the summary, and the notes on what was
// measured, how and what was not.
void summarise_cache_hints(Result &out, const ReuseModel &model, std::size_t reused_bytes, std::size_t stream_bytes,
                           std::size_t strided_bytes, double l2, std::size_t set_aside_found,
                           const FetchGranularityRestore &fetch, bool cc80, const std::vector<std::string> &skipped) {
    out.record(kReusedBytes, static_cast<double>(reused_bytes));
    out.record(kStreamBytes, static_cast<double>(stream_bytes));
    out.record(kReusedReads, model.reused_reads);
    out.record(kSetAsideFound, static_cast<double>(set_aside_found));
    if (fetch.supported()) out.record(kFetchGranularityFound, static_cast<double>(fetch.found()));

    char reads[32];
    std::snprintf(reads, sizeof reads, "%.2f", model.reused_reads);
    out.notes.push_back("Reused set " + mib_text(static_cast<double>(reused_bytes)) + " (reused_over_l2 of an L2 of " + mib_text(l2) +
                        ") read at vector i mod its size for every 16-byte vector i of a stream of " +
                        mib_text(static_cast<double>(stream_bytes)) + " read once, in one kernel: the reused set is read " + reads +
                        " times per launch, and between two reads of one of its lines as many stream bytes pass as the set "
                        "holds. L2 is flushed before every timed launch, so the first read of the reused set always misses.");
    out.notes.push_back("Counters: the stream is read once, so its sectors miss and the L2 read hits "
                        "(lts__t_sectors_srcunit_tex_op_read_lookup_hit) are the reused set's: reused_hit_share is them over the "
                        "reused set's sectors, against reused_hit_share_protected (every read but the first hits). "
                        "reused_from_dram_share is (DRAM bytes read - stream bytes) / the reused bytes read. Lines marked "
                        "evict_last or persisting may outlast the flush between timed launches (the flush writes normal lines), "
                        "which makes such a variant's later launches start warm; persisting lines are reset after each variant.");
    out.notes.push_back("Strided reads: 4-byte words `stride` bytes apart over " + mib_text(static_cast<double>(strided_bytes)) +
                        ". The model (predicted.dram_bytes_read) fetches every aligned unit a word falls in, whole: the 32-byte "
                        "sector (the guide's sector model, predicted.sector_bytes), or the fetch granularity limit in force, or "
                        "the prefetch size the load names. The limit is a hint the device may ignore, and DRAM itself moves "
                        "units larger than a sector; the counted dram__bytes_read says which unit was fetched. The limit found "
                        "(" + (fetch.supported() ? std::to_string(fetch.found()) + " bytes" : std::string("not offered")) +
                        ") is put back after every series and on every path out.");
    if (!skipped.empty()) {
        std::string list;
        for (const std::string &s : skipped) list += (list.empty() ? "" : ", ") + s;
        out.notes.push_back("Not measured here: " + list +
                            (cc80 ? "." : " (createpolicy, the L2::cache_hint and L2::256B qualifiers, the set-aside and access "
                                          "policy windows need compute capability 8.0)."));
    }
}

// What part 1 reads: the stream, the reused set, the blocks' sums, the sums
// and DRAM bytes the models expect, and the L2 state the run found.
struct ReuseSet {
    DeviceArray &stream_d, &reused_d, &partials;
    std::uint64_t n_stream, n_reused;
    unsigned blocks;
    ReuseSums sums;
    ReuseModel model;
    L2Limits limits;
    std::size_t set_aside_found;
};

// The variant's own set-aside and window, applied to the context's stream.
struct HintState {
    std::size_t granted = 0, window = 0;
    double hit_ratio = 0;
};

HintState apply_l2_setup(ContextState &ctx, const HintVariant &v, const ReuseSet &r) {
    HintState h;
    h.granted = r.set_aside_found;
    const std::size_t stream_bytes = r.n_stream * 16, reused_bytes = r.n_reused * 16;
    if (v.setup == L2Setup::SetAside || v.setup == L2Setup::WindowOverReused)
        h.granted = set_persisting_size(ctx, r.limits.persisting_max);
    if (v.setup == L2Setup::WindowOverStream) {
        h.window = std::min(stream_bytes, r.limits.max_window);
        h.hit_ratio = 1.0;
        set_window(ctx, r.stream_d.get(), h.window, h.hit_ratio, GM_ACCESS_STREAMING, GM_ACCESS_NORMAL);
    } else if (v.setup == L2Setup::WindowOverReused && h.granted > 0) {
        h.window = std::min(reused_bytes, r.limits.max_window);
        // As many lines asked to persist as the set-aside holds (the guide's tuned hit ratio).
        h.hit_ratio = std::min(1.0, static_cast<double>(h.granted) / static_cast<double>(h.window));
        set_window(ctx, r.reused_d.get(), h.window, h.hit_ratio, GM_ACCESS_PERSISTING, GM_ACCESS_NORMAL);
    }
    return h;
}

Series hint_series(const HintVariant &v, const ReuseSet &r, const HintState &h) {
    Series series = one_series(v.name, v.label, "reused set", "bytes");
    series.y_field = "median_ms";
    series.y_name = "time per launch";
    series.y_unit = "ms";
    // What the hints change is which lines L2 keeps: the bytes are served
    // by L2 and DRAM together, so no fraction of DRAM's peak is claimed.
    series.quantity = Quantity::L2Bandwidth;
    series.attributes = {{"stream_bytes", r.n_stream * 16}, {"reused_bytes", r.n_reused * 16}, {"set_aside_bytes", h.granted},
                         {"window_bytes", h.window}, {"hit_ratio", h.hit_ratio}};
    return series;
}

// One point of part 1: the point protocol (sums checked, timed, counted)
// under the state the variant set up.
Point measure_reuse_point(ContextState &ctx, const HintVariant &v, const ReuseSet &r, const HintState &h, Result &out) {
    const std::size_t stream_bytes = r.n_stream * 16;
    auto launch = [&](cudaStream_t s) {
        return kernels::launch_reuse_stream(v.stream, v.reused, r.stream_d.as<std::uint32_t>(), static_cast<std::uint32_t>(r.n_stream),
                                            r.reused_d.as<std::uint32_t>(), static_cast<std::uint32_t>(r.n_reused), r.blocks,
                                            r.partials.as<unsigned long long>(), s);
    };
    Point p;
    p.x = static_cast<double>(r.n_reused * 16);
    // Bytes: the stream's, which every variant reads from DRAM once. The
    // reused set's reads are what the hints make cheaper, so its bytes
    // would count hits as traffic.
    p.bytes = static_cast<double>(stream_bytes);
    p.values["stream_bytes"] = static_cast<double>(stream_bytes);
    p.values["reused_reads"] = r.model.reused_reads;
    p.values["set_aside_bytes"] = static_cast<double>(h.granted);
    p.values["window_bytes"] = static_cast<double>(h.window);
    p.values["hit_ratio"] = h.hit_ratio;
    p.predicted["dram_bytes_protected"] = static_cast<double>(r.model.dram_protected);
    p.predicted["dram_bytes_unprotected"] = static_cast<double>(r.model.dram_unprotected);
    p.predicted["reused_hit_share_protected"] = r.model.reused_hit_share_protected;
    // Counters: the stream's sectors miss (each is read once after the
    // flush), so the L2 read hits are the reused set's.
    CounterSet set = counter_sets::dram() + counter_sets::l2_read_hits();
    set.derived.push_back({"reused_hit_share", "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", "",
                           static_cast<double>(r.model.reused_read_bytes) / kSectorBytes});
    measure_checked(ctx,
                    checked_sums(launch, r.partials, r.blocks, 2, {r.sums.stream, r.sums.reused},
                                 std::string("cache_hints ") + v.label, out),
                    p, out, &set);
    if (auto d = p.counters.find("dram__bytes_read.sum"); d != p.counters.end())
        p.counters["reused_from_dram_share"] =
            std::clamp((d->second - static_cast<double>(stream_bytes)) / static_cast<double>(r.model.reused_read_bytes), 0.0, 1.0);
    return p;
}

// One hint variant of part 1: its L2 state set up, its point measured and
// recorded, the state put back. Returns its time per launch, or 0 where the
// variant could not run here (said in `skipped`).
double measure_hint(ContextState &ctx, const HintVariant &v, const ReuseSet &r, std::vector<std::string> &skipped,
                    Result &out) {
    // The variant's own set-aside and window, put back when it ends.
    std::optional<L2Restore> scoped;
    if (v.setup != L2Setup::None) scoped.emplace(ctx);
    HintState h;
    try {
        h = apply_l2_setup(ctx, v, r);
    } catch (const Error &e) {
        // Under MIG or MPS the set-aside cannot be changed: a property of the setup, said in the notes.
        if (e.sticky()) throw;
        skipped.push_back(std::string(v.label) + " (" + e.what() + ")");
        return 0;
    }
    if ((v.setup == L2Setup::SetAside || v.setup == L2Setup::WindowOverReused) && h.granted == 0) {
        skipped.push_back(std::string(v.label) + " (the device granted no set-aside)");
        return 0;
    }
    Series series = hint_series(v, r, h);
    Point p = measure_reuse_point(ctx, v, r, h, out);
    const double ms = p.time_ms.median;
    const FigureAt at = {{"hint", v.label}};
    if (auto hit = p.counters.find("reused_hit_share"); hit != p.counters.end()) out.record(kReusedHitShare, hit->second, at);
    if (auto d = p.counters.find("reused_from_dram_share"); d != p.counters.end()) out.record(kReusedFromDramShare, d->second, at);
    series.points.push_back(std::move(p));
    out.series.push_back(std::move(series));
    out.record(kHintMs, ms, at);
    // Lines left marked evict_last or persisting would favour whatever runs next.
    scoped.reset();
    if (v.reused == LoadHint::EvictLast || v.setup == L2Setup::WindowOverReused) GM_CUDA(cudaCtxResetPersistingL2Cache());
    return ms;
}

void run_cache_hints(ContextState &ctx, const Params &params, Result &out) {
    const DeviceInfo &dev = ctx.info();
    cudaStream_t st = ctx.stream();
    const bool cc80 = dev.cc_major >= 8;
    const L2Limits limits = l2_limits(dev);
    const double l2 = static_cast<double>(std::max<std::size_t>(dev.l2_bytes, 1 << 20));
    const std::uint64_t n_reused = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(params.number("reused_over_l2") * l2) / 16);
    const std::uint64_t n_stream = static_cast<std::uint64_t>(params.number("stream_over_l2") * l2) / 16;
    if (n_stream < n_reused)
        invalid("stream_over_l2 (" + std::to_string(params.number("stream_over_l2")) + ") must be at least reused_over_l2 (" +
                std::to_string(params.number("reused_over_l2")) + "): the stream is read beside the reused set once over");
    if (n_stream >= (1ull << 31)) invalid("stream_over_l2 x L2 must stay below 32 GiB");
    const std::size_t stream_bytes = n_stream * 16, reused_bytes = n_reused * 16;
    const std::size_t strided_bytes = params.size("strided_bytes") / 4 * 4;
    std::vector<std::uint64_t> strides;
    for (long long s : params.integers("strides")) {
        if (s % 4 != 0) invalid("strides must be multiples of 4 bytes (4-byte words), got " + std::to_string(s));
        strides.push_back(static_cast<std::uint64_t>(s));
    }
    const std::vector<std::string> hints = params.texts("hints"), prefetch = params.texts("prefetch");

    const unsigned sms = static_cast<unsigned>(std::max(1, dev.multiprocessors));
    const unsigned reuse_blocks = 4 * sms, strided_blocks = 2 * sms;
    const std::size_t partial_bytes = 2 * std::max(reuse_blocks, strided_blocks) * sizeof(std::uint64_t);
    require_memory(ctx, stream_bytes + reused_bytes + partial_bytes,
                   "cache_hints (stream " + std::to_string(stream_bytes) + " and reused set " + std::to_string(reused_bytes) +
                       " bytes)");
    // Device-wide state as it was on every path out: the stream's window, the
    // set-aside and persisting lines (CC >= 8.0), the fetch granularity limit.
    std::optional<L2Restore> l2_restore;
    if (cc80) l2_restore.emplace(ctx);
    FetchGranularityRestore fetch(ctx);

    DeviceArray stream_d(ctx, stream_bytes), reused_d(ctx, reused_bytes), partials(ctx, partial_bytes);
    GM_CUDA(kernels::launch_fill_pattern(stream_d.as<std::uint32_t>(), stream_bytes / 4, kStreamSeed, st));
    GM_CUDA(kernels::launch_fill_pattern(reused_d.as<std::uint32_t>(), reused_bytes / 4, kReusedSeed, st));
    const ReuseSums sums = reuse_sums(n_stream, n_reused, kStreamSeed, kReusedSeed);
    const ReuseModel model = reuse_model(n_stream, n_reused);
    const std::size_t set_aside_found = cc80 ? persisting_size(ctx) : 0;

    // Part 1: the reused set beside the stream.
    std::vector<std::string> skipped;
    ReuseSet reuse{stream_d, reused_d, partials, n_stream, n_reused, reuse_blocks, sums, model, limits, set_aside_found};
    double default_ms = 0;
    for (const HintVariant &v : kHints) {
        if (!wanted(hints, v.label)) continue;
        if (v.needs_cc80 && !cc80) {
            skipped.push_back(v.label);
            continue;
        }
        const double ms = measure_hint(ctx, v, reuse, skipped, out);
        if (std::string(v.label) == "default" && ms > 0) default_ms = ms;
    }
    if (default_ms > 0)
        for (const Series &s : out.series)
            if (s.variant != "default")
                out.record(kHintSpeedup, default_ms / s.points[0].time_ms.median, {{"hint", s.variant}});

    // Part 2: strided reads, the fetch granularity limit and prefetching, on
    // a region of its own (planned here, beside what part 1 holds).
    measure_strided_reads(ctx, strided_bytes, strides, prefetch, cc80, partials, strided_blocks, fetch, skipped, out);
    fetch.restore();

    if (out.series.empty()) {
        out.not_applicable("cache_hints: none of the variants asked for can run on this device (compute capability " +
                           std::to_string(dev.cc_major) + "." + std::to_string(dev.cc_minor) + "): " + std::to_string(skipped.size()) +
                           " need compute capability 8.0 or a fetch granularity limit the device takes.");
        return;
    }
    summarise_cache_hints(out, model, reused_bytes, stream_bytes, strided_bytes, l2, set_aside_found, fetch, cc80, skipped);
}

// How reports draw it: one bar per hint variant; the strided reads are in the tables.
Chart cache_hints_chart() {
    Chart c;
    c.kind = "bar";
    c.leave_out = {"plain",       "granularity_0",    "granularity_32",    "granularity_64",   "granularity_128",
                   "prefetch_l2", "prefetch_size_64", "prefetch_size_128", "prefetch_size_256"};
    c.explanation = "A reused set that fits in L2 read beside a stream of twice L2 read once: with default loads the "
                    "stream evicts it, evict_first on the stream or evict_last (or a persisting window) on the reused set "
                    "keep it, and the launch is shorter by the DRAM reads saved. The strided reads under the fetch "
                    "granularity limit and the prefetch qualifiers are in the tables, their DRAM bytes beside the sector model.";
    return c;
}

}  // namespace

void add_cache_hints_experiments(std::vector<Experiment> &out) {
    Experiment e;
    e.name = "cache_hints";
    e.guide_section = "Programming Guide: L2 cache control (access policy windows, persisting set-aside), PTX cache eviction "
                      "priorities and prefetch; Best Practices Guide: L2 Cache";
    e.summary = "A reused set that fits in L2 read beside a stream of twice L2 read once: default, streaming (__ldcs), "
                "evict_first / evict_last policies, L1::no_allocate and access policy windows, timed with the reused set's L2 "
                "hits counted; and strided reads under the L2 fetch granularity limit (0, 32, 64, 128), prefetch.global.L2 and "
                "the L2::64B/128B/256B qualifiers, DRAM bytes against the sector model.";
    // Default run, H100 (50 MiB L2): 9 variants of a 100 MiB stream beside a
    // 25 MiB reused set (about 60 us a launch, 100 timed launches and their
    // flushes: about 15 ms each) and 9 x 2 strided points over 64 MiB (about
    // 10 ms each): about 0.35 s of GPU time, counters aside.
    e.params = {
        double_param("reused_over_l2", 0.5, 0.01, 4.0, "reused set, as a share of L2"),
        double_param("stream_over_l2", 2.0, 0.1, 16.0, "stream read once, as a multiple of L2 (at least reused_over_l2)"),
        enum_list_param("hints", labels_of_hints(), labels_of_hints(), "which hints and controls to time beside the stream"),
        enum_list_param("prefetch", labels_of_prefetch(), labels_of_prefetch(), "which fetch limits and prefetches to time on strided reads"),
        int_list_param("strides", {64, 256}, 4, 4096, "bytes between the words of the strided reads (multiples of 4)", "bytes"),
        size_param("strided_bytes", 64LL << 20, 1LL << 20, 4LL << 30, "region the strided reads cover"),
    };
    // The strided reads: a series per prefetch variant (in the table's order), along the strides.
    e.axes = {{"prefetch"}, "strides"};
    e.run = run_cache_hints;
    e.quick = {{"stream_over_l2", 1.0}, {"strided_bytes", 16 * kMiB}, {"strides", {256}}};
    e.figures = {kHintMs,        kHintSpeedup,          kReusedHitShare, kReusedFromDramShare,
                 kTimeOverPlain, kDramBytesPerRead,     kDramOverSectorModel, kReusedBytes,
                 kStreamBytes,   kReusedReads,          kSetAsideFound,  kFetchGranularityFound};
    e.chart = cache_hints_chart();
    e.compared = {
        {"evict_first_last_speedup", "evict_first stream + evict_last reused set / default loads"},
        {"stream_cs_speedup", "streaming (__ldcs) stream / default loads"},
        {"window_persisting_speedup", "persisting window on the reused set / default loads"},
        {"granularity_32_s256_dram_bytes_per_read", "DRAM bytes per 4-byte read, stride 256, fetch limit 32"},
    };
    out.push_back(std::move(e));
}

}  // namespace gmlab
