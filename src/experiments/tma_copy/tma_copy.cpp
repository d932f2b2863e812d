// Experiment family "TMA copy": global -> shared -> global through the Tensor
// Memory Accelerator (1D bulk copies and 2D tiles through a tensor map)
// against cp.async and plain register copies of the same bytes, over bulk /
// tile sizes and pipeline stages; the best TMA copy of the whole array against
// our stream copy kernel and cudaMemcpy in the same run; instructions issued
// per byte copied, the reason the copy engine exists.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/experiment/point_protocol.hpp"
#include "core/experiment/registry.hpp"
#include "core/measurement/harness.hpp"
#include "core/measurement/verify.hpp"
#include "core/units.hpp"
#include "experiments/common/compute_capability.hpp"
#include "experiments/common/reference_copy.hpp"
#include "experiments/tma_copy/tma_copy.cuh"
#include "experiments/tma_copy/tma_plan.hpp"
#include "shared_kernels/fill_pattern.cuh"
#include "shared_kernels/pattern.hpp"

namespace gmlab {

namespace {

constexpr std::uint32_t kSeed = 0x746D61;  // "tma"
constexpr long long kDefaultArray = 1LL << 30;
// Each verification also reads this many words at each end of the output on
// the host, against the host's own pattern_word: a check of the device-side
// compare as well as of the copy.
constexpr std::size_t kHostWindowWords = 64 * 1024;

std::vector<long long> default_sizes() {
    std::vector<long long> sizes;
    for (long long k = 1; k <= 64; k *= 2) sizes.push_back(k * static_cast<long long>(kKiB));
    return sizes;
}
std::vector<long long> default_stages() { return {1, 2, 3, 4}; }
const std::vector<std::string> kPaths = {"bulk", "tensor", "cp_async", "registers"};

// The headline figures. Bandwidths count bytes read plus written of an array
// far larger than L2: DRAM bandwidth. Plain names come before the patterns
// with a {path} axis, so that a key both could name ("tma_over_stream_copy")
// is the plain figure's.
const Figure kStreamCopyGbs{"stream_copy_gbs", "GB/s", Better::Higher,
                            "DRAM bandwidth of our stream copy kernel on the same array, bytes read plus written"};
const Figure kMemcpyGbs{"memcpy_gbs", "GB/s", Better::Higher,
                        "DRAM bandwidth of cudaMemcpy device-to-device on the same array, bytes read plus written"};
const Figure kArrayBytes{"array_bytes", "bytes", Better::Neither, "size of the array every path copies"};
const Figure kTmaGbs{"tma_gbs", "GB/s", Better::Higher,
                     "DRAM bandwidth of the best TMA copy (bulk or tensor, best bulk / tile size and stages), bytes read plus written"};
const Figure kTmaBestSizeKib{"tma_best_size_kib", "KiB", Better::Neither, "bulk / tile size of the best TMA copy"};
const Figure kTmaBestStages{"tma_best_stages", "count", Better::Neither, "pipeline stages of the best TMA copy"};
const Figure kTmaBestIsTensor{"tma_best_is_tensor", "count", Better::Neither,
                              "1 where the best TMA copy is the tensor path (2D tiles), 0 where it is the bulk path (1D)"};
const Figure kTmaOverMemcpy{"tma_over_memcpy", "ratio", Better::Neither,
                            "bandwidth of the best TMA copy over cudaMemcpy's on the same bytes"};
const Figure kTmaOverStreamCopy{"tma_over_stream_copy", "ratio", Better::Neither,
                                "bandwidth of the best TMA copy over our stream copy kernel's on the same bytes"};
const Figure kTmaOverCpAsyncInstFloor{"tma_over_cp_async_inst_floor", "ratio", Better::Neither,
                                      "the instruction floors' ratio (model): TMA over cp.async warp instructions per byte, "
                                      "at the best TMA copy's size"};
const Figure kTmaOverCpAsyncInst{"tma_over_cp_async_inst", "ratio", Better::Neither,
                                 "counted warp instructions per byte of a TMA copy over cp.async's at the same size and stages"};
const Figure kTmaOverCpAsyncInstSizeKib{"tma_over_cp_async_inst_size_kib", "KiB", Better::Neither,
                                        "bulk / tile size at which tma_over_cp_async_inst was counted"};
const Figure kTmaInstTargetMet{"tma_inst_target_met", "count", Better::Neither,
                               "1 where tma_over_cp_async_inst is at most the target of 1/8, else 0"};
const Figure kPathBestGbs{"{path}_best_gbs", "GB/s", Better::Higher,
                          "DRAM bandwidth of one path (bulk, tensor, cp_async, registers) at its best size and stages, bytes "
                          "read plus written"};
const Figure kPathBestSizeKib{"{path}_best_size_kib", "KiB", Better::Neither, "bulk / tile / chunk size of one path's best copy"};
const Figure kPathBestStages{"{path}_best_stages", "count", Better::Neither, "pipeline stages of one path's best copy"};
const Figure kPathOverStreamCopy{"{path}_over_stream_copy", "ratio", Better::Neither,
                                 "bandwidth of one thread-driven path's best copy (cp_async, registers) over our stream copy "
                                 "kernel's on the same bytes"};
const Figure kPathInstPerByte{"{path}_inst_per_byte", "instructions/byte", Better::Lower,
                              "warp instructions issued per byte copied (counted) at one path's best copy"};

kernels::TmaKernel kernel_of(CopyPath p) { return static_cast<kernels::TmaKernel>(static_cast<int>(p)); }

std::string series_label(CopyPath p, int stages) {
    const char *what = p == CopyPath::Bulk        ? "bulk (TMA, 1D)"
                       : p == CopyPath::Tensor    ? "tensor (TMA, 2D tiles)"
                       : p == CopyPath::CpAsync   ? "cp.async"
                                                  : "registers";
    return std::string(what) + ", " + std::to_string(stages) + (stages == 1 ? " stage" : " stages");
}

// Checks a copy of the pattern: every word on the device (a compare kernel
// counting the words that differ from pattern_word and the first of them),
// and the first and last kHostWindowWords on the host.
class PatternCheck {
public:
    PatternCheck(ContextState &ctx) : ctx_(ctx), result_(ctx, 2 * sizeof(unsigned long long)), window_(kHostWindowWords) {}

    // Mismatching words of p[0..n) and the first of them (n if none), on the device.
    std::pair<unsigned long long, std::uint64_t> device_mismatches(const std::uint32_t *p, std::size_t n) {
        cudaStream_t st = ctx_.stream();
        auto *r = result_.as<unsigned long long>();
        GM_CUDA(cudaMemsetAsync(r, 0, sizeof(unsigned long long), st));
        GM_CUDA(cudaMemsetAsync(r + 1, 0xFF, sizeof(unsigned long long), st));
        GM_CUDA(kernels::launch_count_mismatches(p, n, kSeed, r, st));
        unsigned long long host[2] = {0, 0};
        GM_CUDA(cudaMemcpyAsync(host, r, sizeof host, cudaMemcpyDeviceToHost, st));
        GM_CUDA(cudaStreamSynchronize(st));
        return {host[0], host[0] ? host[1] : n};
    }

    void check(const std::uint32_t *p, std::size_t n, const std::string &what, Result &out) {
        const auto [bad, first] = device_mismatches(p, n);
        if (bad) {
            std::uint32_t got = 0;
            GM_CUDA(cudaMemcpy(&got, p + first, 4, cudaMemcpyDeviceToHost));
            verification_failed(what + " (" + std::to_string(bad) + " words differ)", first,
                                std::to_string(pattern_word(first, kSeed)), std::to_string(got));
        }
        const std::size_t w = std::min(n, kHostWindowWords);
        for (std::size_t start : {std::size_t{0}, n - w}) {
            GM_CUDA(cudaMemcpy(window_.data(), p + start, w * 4, cudaMemcpyDeviceToHost));
            const std::uint64_t b = first_mismatch(w, [&](std::uint64_t i) { return window_[i] == pattern_word(start + i, kSeed); });
            if (b < w)
                verification_failed(what + " (host check; the device compare found none)", start + b,
                                    std::to_string(pattern_word(start + b, kSeed)), std::to_string(window_[b]));
        }
        out.verified(n, "every 4-byte word of the output compared on the device with pattern_word, the generator the host "
                        "computes identically (a compare kernel counting mismatches), and the first and last 256 KiB on the host");
    }

    // The compare kernel must find one word planted wrong in a good copy.
    void self_test(const void *in, void *scratch, std::size_t n) {
        cudaStream_t st = ctx_.stream();
        GM_CUDA(cudaMemcpyAsync(scratch, in, n * 4, cudaMemcpyDeviceToDevice, st));
        const std::size_t k = n / 2 + 1;
        const std::uint32_t wrong = ~pattern_word(k, kSeed);
        GM_CUDA(cudaMemcpyAsync(static_cast<std::uint32_t *>(scratch) + k, &wrong, 4, cudaMemcpyHostToDevice, st));
        const auto [bad, first] = device_mismatches(static_cast<const std::uint32_t *>(scratch), n);
        if (bad != 1 || first != k)
            verification_failed("tma_copy's device-side compare on a copy with one word planted wrong", k, "1 mismatch at " + std::to_string(k),
                                std::to_string(bad) + " mismatches, first at " + std::to_string(first));
    }

private:
    ContextState &ctx_;
    DeviceArray result_;
    std::vector<std::uint32_t> window_;
};

// A series per path and number of stages, along the bulk / tile sizes. The
// run measures size by size (stages, then the paths in their fixed order,
// innermost), so that the paths of one configuration run one after the
// other: kRingAxes, the rings planned in that order.
const SweepAxes kAxes{{"paths", "stages"}, "sizes"};
const SweepAxes kRingAxes{{"sizes", "stages"}, ""};

struct Combo {
    std::size_t size;
    int stages;
};

// Sizes x stages: the default sweep is cut to what fits this device's
// shared memory; a combination asked for explicitly that does not fit is an error.
std::vector<Combo> plan_combos(const Params &params, std::size_t smem_limit, Result &out) {
    const std::vector<long long> sizes = params.integers("sizes"), stage_list = params.integers("stages");
    const bool default_sweep = sizes == default_sizes() && stage_list == default_stages();
    std::vector<Combo> combos;
    std::vector<std::string> dropped;
    for (const Combination &c : Sweep(params, kRingAxes).combinations()) {
        const std::size_t size = static_cast<std::size_t>(c.integer("sizes"));
        const int st = static_cast<int>(c.integer("stages"));
        if (ring_fits(size, st, smem_limit)) {
            combos.push_back({size, st});
        } else if (default_sweep) {
            dropped.push_back(std::to_string(st) + " x " + kib_text(size));
        } else {
            check_ring(size, st, smem_limit);
        }
    }
    if (combos.empty()) invalid("no combination of sizes and stages fits this device's " + std::to_string(smem_limit) + " bytes of shared memory per block");
    if (!dropped.empty()) {
        std::string list;
        for (const auto &d : dropped) list += (list.empty() ? "" : ", ") + d;
        out.notes.push_back("Left out of the default sweep, beyond the " + std::to_string(smem_limit) +
                            " bytes of shared memory a block may use: stages x size " + list + ".");
    }
    return combos;
}

// The tensor path's tiles for each size, or the path dropped (with a note)
// where the driver offers no tensor-map encoder.
std::map<std::size_t, TilePlan> plan_tensor_path(std::vector<CopyPath> &paths, const std::vector<Combo> &combos,
                                                 std::size_t array_bytes, std::size_t matrix_cols, std::size_t tile_cols,
                                                 Result &out) {
    std::map<std::size_t, TilePlan> tiles;
    if (std::find(paths.begin(), paths.end(), CopyPath::Tensor) != paths.end()) {
        const char *why = nullptr;
        if (kernels::tensor_maps_available(&why) != cudaSuccess) {
            paths.erase(std::find(paths.begin(), paths.end(), CopyPath::Tensor));
            out.notes.push_back(std::string("The tensor path is not applicable here: ") + (why ? why : "no tensor-map encoder") +
                                "; the other paths ran.");
        } else {
            for (const Combo &c : combos)
                if (!tiles.count(c.size)) tiles[c.size] = plan_tiles(array_bytes, c.size, matrix_cols, tile_cols);
        }
    }
    return tiles;
}

// A series of one point at the array's size: a copy of the whole array that
// the sweep's paths are read against.
void as_array_series(Series &s) {
    s.x_name = "array size";
    s.x_unit = "bytes";
}

// The copy ceiling in the same run: our stream copy kernel and cudaMemcpy
// on the same arrays, checked, as series kept apart in refs.
struct References {
    double stream_gbs = 0, memcpy_gbs = 0;
};

References measure_references(ContextState &ctx, DeviceArray &in, DeviceArray &outbuf, std::size_t array_bytes,
                              PatternCheck &checker, std::vector<Series> &refs, Result &out) {
    const std::size_t words = array_bytes / 4;
    Series copy = reference_copy_series(ctx, in.get(), outbuf.get(), array_bytes, static_cast<double>(array_bytes), out, "tma_copy");
    as_array_series(copy);
    const double stream_gbs = bandwidth_gbs(copy.points[0].bytes, copy.points[0].time_ms.median);
    refs.push_back(std::move(copy));

    auto launch = [&](cudaStream_t s) { return cudaMemcpyAsync(outbuf.get(), in.get(), array_bytes, cudaMemcpyDeviceToDevice, s); };
    Series m;
    m.name = "cudaMemcpy";
    m.variant = "cudaMemcpy";
    as_array_series(m);
    m.quantity = Quantity::DramBandwidth;
    Point pt;
    pt.x = static_cast<double>(array_bytes);
    pt.bytes = 2.0 * static_cast<double>(array_bytes);
    measure_checked(ctx, {launch, {{outbuf.get(), array_bytes}}, {}, [&] { checker.check(outbuf.as<std::uint32_t>(), words, "tma_copy cudaMemcpy", out); }},
                    pt, out);
    const double memcpy_gbs = bandwidth_gbs(pt.bytes, pt.time_ms.median);
    m.points.push_back(std::move(pt));
    refs.push_back(std::move(m));
    out.record(kStreamCopyGbs, stream_gbs);
    out.record(kMemcpyGbs, memcpy_gbs);
    return {stream_gbs, memcpy_gbs};
}

// The best point of one path: its bandwidth, size (bytes) and stages.
struct Best {
    double gbs = 0, size = 0;
    int stages = 0;
    const Point *point = nullptr;
};

std::map<CopyPath, Best> best_of_each_path(const Result &out) {
    std::map<CopyPath, Best> best;
    for (const Series &s : out.series) {
        const CopyPath p = path_from_name(s.variant);
        for (const Point &pt : s.points) {
            const double g = bandwidth_gbs(pt.bytes, pt.time_ms.median);
            if (g > best[p].gbs) best[p] = {g, pt.values.at("size_bytes"), s.attributes["stages"].get<int>(), &pt};
        }
    }
    return best;
}

// The better of the two TMA paths' best points (tma.point null where neither ran).
std::pair<Best, CopyPath> best_tma(std::map<CopyPath, Best> &best) {
    Best tma;
    CopyPath tma_path = CopyPath::Bulk;
    for (CopyPath p : {CopyPath::Bulk, CopyPath::Tensor})
        if (best.count(p) && best[p].gbs > tma.gbs) {
            tma = best[p];
            tma_path = p;
        }
    return {tma, tma_path};
}

void record_bandwidths(Result &out, std::map<CopyPath, Best> &best, const Best &tma, CopyPath tma_path, std::size_t array_bytes,
                       const References &ceiling) {
    for (const auto &[p, b] : best) {
        const FigureAt at = {{"path", path_name(p)}};
        out.record(kPathBestGbs, b.gbs, at);
        out.record(kPathBestSizeKib, b.size / 1024.0, at);
        out.record(kPathBestStages, b.stages, at);
    }
    out.record(kArrayBytes, static_cast<double>(array_bytes));
    if (tma.point) {
        out.record(kTmaGbs, tma.gbs);
        out.record(kTmaBestSizeKib, tma.size / 1024.0);
        out.record(kTmaBestStages, tma.stages);
        out.record(kTmaBestIsTensor, tma_path == CopyPath::Tensor ? 1.0 : 0.0);
        if (ceiling.memcpy_gbs > 0) out.record(kTmaOverMemcpy, tma.gbs / ceiling.memcpy_gbs);
        if (ceiling.stream_gbs > 0) out.record(kTmaOverStreamCopy, tma.gbs / ceiling.stream_gbs);
    }
    for (CopyPath p : {CopyPath::CpAsync, CopyPath::Registers})
        if (best.count(p) && ceiling.stream_gbs > 0)
            out.record(kPathOverStreamCopy, best[p].gbs / ceiling.stream_gbs, {{"path", path_name(p)}});
}

// Instructions per byte: each TMA point against the cp.async point of the
// same size and stages, counted and by the floor model.
void compare_with_cp_async(Result &out) {
    std::map<std::pair<double, int>, const Point *> cp_async_at;
    for (const Series &s : out.series)
        if (s.variant == "cp_async")
            for (const Point &pt : s.points) cp_async_at[{pt.x, s.attributes["stages"].get<int>()}] = &pt;
    for (Series &s : out.series) {
        if (s.variant != "bulk" && s.variant != "tensor") continue;
        for (Point &pt : s.points) {
            auto it = cp_async_at.find({pt.x, s.attributes["stages"].get<int>()});
            if (it == cp_async_at.end()) continue;
            pt.predicted["inst_over_cp_async_floor"] =
                pt.predicted.at("inst_per_byte_floor") / it->second->predicted.at("inst_per_byte_floor");
            const auto mine = pt.counters.find("inst_per_byte");
            const auto theirs = it->second->counters.find("inst_per_byte");
            if (mine != pt.counters.end() && theirs != it->second->counters.end() && theirs->second > 0)
                pt.values["inst_over_cp_async"] = mine->second / theirs->second;
        }
    }
}

// The instruction figures: each path's count at its best point, and TMA
// against cp.async at the best TMA point's configuration.
void record_instructions(Result &out, const std::map<CopyPath, Best> &best, const Best &tma, CopyPath tma_path) {
    for (const auto &[p, b] : best)
        if (b.point && b.point->counters.count("inst_per_byte"))
            out.record(kPathInstPerByte, b.point->counters.at("inst_per_byte"), {{"path", path_name(p)}});
    if (!tma.point) return;
    out.record(kTmaOverCpAsyncInstFloor, tma.point->predicted.count("inst_over_cp_async_floor")
                                             ? tma.point->predicted.at("inst_over_cp_async_floor")
                                             : inst_per_byte_floor(tma_path, static_cast<std::size_t>(tma.size)) /
                                                   inst_per_byte_floor(CopyPath::CpAsync, static_cast<std::size_t>(tma.size)));
    // Counted at the best TMA point where it was counted (and its cp.async
    // twin); else at the largest TMA point that was (counters = auto counts a
    // share of the points, on counts them all).
    const Point *counted_at = tma.point->values.count("inst_over_cp_async") ? tma.point : nullptr;
    const Point *largest = nullptr;
    for (const Series &s : out.series)
        if (s.variant == "bulk" || s.variant == "tensor")
            for (const Point &pt : s.points)
                if (pt.values.count("inst_over_cp_async") && (!largest || pt.x > largest->x)) largest = &pt;
    if (!counted_at) counted_at = largest;
    if (counted_at) {
        const double r = counted_at->values.at("inst_over_cp_async");
        out.record(kTmaOverCpAsyncInst, r);
        out.record(kTmaOverCpAsyncInstSizeKib, counted_at->x);
        out.record(kTmaInstTargetMet, r <= kTmaInstructionTarget ? 1.0 : 0.0);
    }
}

void add_tma_notes(Result &out, std::size_t array_bytes, const Best &tma, CopyPath tma_path, double stream_gbs) {
    out.notes.push_back(
        "Every path copies the whole " + std::to_string(array_bytes) + "-byte array global -> shared -> global with a "
        "persistent grid (as many blocks as fit, block b taking chunks b, b + grid, ...), unless grid = one_pass, where "
        "each TMA block copies `stages` consecutive chunks once. bulk: one lane per block drives "
        "cp.async.bulk in and out through a ring of stages, one mbarrier per stage (expect_tx, complete_tx), the copy out "
        "committed as a bulk group and waited for (.read) before its buffer is refilled. tensor: the same ring with "
        "cp.async.bulk.tensor.2d tiles of tile_cols x size / (4 tile_cols) elements through two tensor maps "
        "(cuTensorMapEncodeTiled, passed as __grid_constant__ CUtensorMap). cp_async: the async_copy family's path, "
        "16 bytes a lane, a commit group per stage; registers: loads and stores through a register, one buffer. "
        "Bandwidth counts bytes read plus written.");
    out.notes.push_back("Instructions: inst_per_byte is smsp__inst_executed.sum (warp instructions) over the bytes copied "
                        "(the array, not read + written); inst_per_byte_floor is what each path's loop needs at least (TMA: 6 "
                        "warp instructions per chunk; cp.async: 3 per 512 bytes; registers: 4 per 512 bytes). The target for "
                        "TMA is at most 1/8 of cp.async's instructions per byte at the same size and stages.");
    if (!tma.point || stream_gbs <= 0) return;
    const double r = tma.gbs / stream_gbs;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", r);
    const std::string head = std::string(tma_path == CopyPath::Tensor ? "tensor" : "bulk") + ", " +
                             kib_text(static_cast<std::size_t>(tma.size)) + ", " + std::to_string(tma.stages) + " stages";
    if (r > 1.0)
        out.notes.push_back("The TMA copy (" + head + ") BEAT our stream copy kernel on the same " + std::to_string(array_bytes) +
                            " bytes: " + std::to_string(static_cast<long long>(std::llround(tma.gbs))) + " against " +
                            std::to_string(static_cast<long long>(std::llround(stream_gbs))) + " GB/s (tma_over_stream_copy " + buf +
                            "); a candidate for a stream variant, which the lead decides.");
    else
        out.notes.push_back("The best TMA copy (" + head + ") reached " + std::string(buf) +
                            " of our stream copy kernel on the same bytes (tma_over_stream_copy): it did not beat it.");
}

std::string gbs_text(double gbs) { return std::to_string(static_cast<long long>(std::llround(gbs))); }

// Where the best TMA copy stays below 0.98 of cudaMemcpy, what limits it, in
// figures measured in this run: the other copies staged through shared
// memory (cp.async, registers) against it, the direct copies (stream kernel,
// cudaMemcpy) above them, and the DRAM bytes the TMA copy read per byte.
void add_limit_note(Result &out, std::map<CopyPath, Best> &best, const Best &tma, const References &ceiling) {
    if (!tma.point || ceiling.memcpy_gbs <= 0 || tma.gbs >= 0.98 * ceiling.memcpy_gbs) return;
    char r[32];
    std::snprintf(r, sizeof r, "%.3f", tma.gbs / ceiling.memcpy_gbs);
    std::string note = "What limits the TMA copy at " + std::string(r) + " of cudaMemcpy (" + gbs_text(tma.gbs) + " against " +
                       gbs_text(ceiling.memcpy_gbs) + " GB/s), measured in this run:";
    double staged = 0;
    for (CopyPath p : {CopyPath::CpAsync, CopyPath::Registers})
        if (best.count(p) && best[p].gbs > 0) {
            note += std::string(" ") + path_name(p) + " through shared memory reached " + gbs_text(best[p].gbs) + " GB/s;";
            staged = std::max(staged, best[p].gbs);
        }
    if (ceiling.stream_gbs > 0) note += " the stream copy kernel, loads and stores through registers only, " + gbs_text(ceiling.stream_gbs) + " GB/s;";
    const auto read = tma.point->counters.find("dram_read_per_byte");
    if (read != tma.point->counters.end()) {
        char d[32];
        std::snprintf(d, sizeof d, "%.3f", read->second);
        note += std::string(" the TMA copy read ") + d + " DRAM bytes per byte copied (no extra traffic);";
    }
    if (staged > 0 && std::abs(staged / tma.gbs - 1.0) <= 0.02)
        note += " every copy staged through shared memory ends within 2 % of the TMA copy, whichever unit issues it: the "
                "limit is the staging (each chunk read, then written, as two bursts), not TMA's issue rate.";
    else
        note += " the copies staged through shared memory do not end at one rate here, so the staging alone does not explain it.";
    note += " bench/tma_variants_probe.cu varies the grid, the store path, the L2 policy and prefetching.";
    out.notes.push_back(note);
}

// The figures of the sweep: each path's best point, TMA against the ceiling
// and against cp.async's instructions, the reference series and the notes.
void summarise_tma(Result &out, std::vector<Series> refs, std::size_t array_bytes, const References &ceiling) {
    std::map<CopyPath, Best> best = best_of_each_path(out);
    const auto [tma, tma_path] = best_tma(best);
    record_bandwidths(out, best, tma, tma_path, array_bytes, ceiling);
    compare_with_cp_async(out);
    record_instructions(out, best, tma, tma_path);
    for (Series &r : refs) out.series.push_back(std::move(r));
    add_tma_notes(out, array_bytes, tma, tma_path, ceiling.stream_gbs);
    add_limit_note(out, best, tma, ceiling);
}

// The array: 1 GiB by default, made smaller (whole tensor-map row bands)
// only when the default does not fit the memory budget.
std::size_t plan_array_bytes(ContextState &ctx, const Params &params, std::size_t matrix_cols, Result &out) {
    std::size_t array_bytes = params.size("array_bytes");
    if (params.json()["array_bytes"] == kDefaultArray && 2 * array_bytes > ctx.memory_budget()) {
        const std::size_t unit = matrix_cols * 4 * kMaxBoxDim;
        array_bytes = std::max(unit, ctx.memory_budget() / 2 / unit * unit);
        out.notes.push_back("array_bytes reduced from 1 GiB to " + std::to_string(array_bytes) + " to fit the memory budget");
    }
    require_memory(ctx, 2 * array_bytes + 64, "tma_copy (2 arrays of " + std::to_string(array_bytes) + " bytes)");
    return array_bytes;
}

// The counters of every point: instructions and DRAM bytes per byte copied.
CounterSet tma_counters(std::size_t array_bytes) {
    CounterSet counted;
    counted.metrics = {"smsp__inst_executed.sum", "dram__bytes_read.sum", "dram__bytes_write.sum"};
    counted.derived = {{"inst_per_byte", "smsp__inst_executed.sum", "", static_cast<double>(array_bytes)},
                       {"dram_read_per_byte", "dram__bytes_read.sum", "", static_cast<double>(array_bytes)},
                       {"dram_write_per_byte", "dram__bytes_write.sum", "", static_cast<double>(array_bytes)}};
    // Every byte is read from DRAM once: the counted launch runs after an L2
    // flush and clean. Writes may stay in L2 when the kernel ends, so they
    // are shown, not checked.
    return counted.agree("dram_read_per_byte", "dram_read_per_byte", 0.03);
}

// What the sweep shares: the arrays, their size and layout, the check and
// the counters; and the tensor maps, encoded once per tile size.
struct TmaSweep {
    ContextState &ctx;
    DeviceArray &in, &outbuf;
    std::size_t array_bytes, matrix_cols, tile_cols;
    PatternCheck &checker;
    CounterSet counted;
    const std::map<std::size_t, TilePlan> &tiles;
    kernels::TensorMapBytes in_map{}, out_map{};
    std::size_t encoded_for = 0;
    std::map<std::pair<int, int>, Series> series;  // by path and stages
    bool one_pass = false;                          // grid = one_pass: the TMA paths' blocks copy once
};

// One series per path and stage count (the register path has one buffer).
Series &series_for(TmaSweep &w, CopyPath p, int stages) {
    auto key = std::make_pair(static_cast<int>(p), stages);
    auto it = w.series.find(key);
    if (it != w.series.end()) return it->second;
    Series &s = w.series[key];
    s.name = series_label(p, stages);
    s.variant = path_name(p);
    s.x_name = is_tma(p) ? "bulk / tile size" : "chunk size";
    s.x_unit = "KiB";
    s.quantity = Quantity::DramBandwidth;  // the array is far larger than L2
    cudaFuncAttributes attr{};
    GM_CUDA(kernels::tma_kernel_attributes(kernel_of(p), stages, &attr));
    s.attributes = {{"path", path_name(p)},
                    {"stages", stages},
                    {"threads_per_block", is_tma(p) ? kernels::kTmaBlock : kernels::kThreadCopyBlock},
                    {"registers", attr.numRegs},
                    {"array_bytes", w.array_bytes},
                    {"grid", w.one_pass && is_tma(p) ? "one_pass" : "persistent"}};
    if (p == CopyPath::Tensor)
        s.attributes["matrix"] = {{"rows", w.array_bytes / (w.matrix_cols * 4)}, {"cols", w.matrix_cols}, {"tile_cols", w.tile_cols}};
    return s;
}

// The tensor maps of the tiles of this size, encoded where the last ones
// were for another size.
void encode_maps_for(TmaSweep &w, std::size_t size, const TilePlan &tp) {
    if (w.encoded_for == size) return;
    int driver_status = 0;
    const cudaError_t err = kernels::encode_tensor_maps(w.in.get(), w.outbuf.get(), tp.rows, tp.cols, tp.box_cols, tp.box_rows,
                                                        &w.in_map, &w.out_map, &driver_status);
    if (err != cudaSuccess)
        invalid("cuTensorMapEncodeTiled refused a " + std::to_string(tp.rows) + " x " + std::to_string(tp.cols) +
                " matrix with a " + std::to_string(tp.box_cols) + " x " + std::to_string(tp.box_rows) + " box (CUresult " +
                std::to_string(driver_status) + ")");
    w.encoded_for = size;
}

// One point: the path at this size and stages over the whole array, checked,
// timed and counted.
void measure_tma_point(TmaSweep &w, CopyPath p, const Combo &c, Result &out) {
    const DeviceInfo &dev = w.ctx.info();
    const std::size_t shared = ring_shared_bytes(c.size, c.stages);
    int per_sm = 0;
    GM_CUDA(kernels::tma_resident_blocks(kernel_of(p), c.stages, shared, &per_sm));
    if (per_sm < 1)
        fail(GM_ERROR_INTERNAL, "tma_copy: no block of " + series_label(p, c.stages) + " with " + std::to_string(shared) +
                                    " bytes of shared memory fits a multiprocessor");
    int blocks = per_sm * dev.multiprocessors;
    TilePlan tp;
    if (p == CopyPath::Tensor) {
        tp = w.tiles.at(c.size);
        encode_maps_for(w, c.size, tp);
    }
    const std::size_t array_bytes = w.array_bytes;
    // One pass: each block copies `stages` consecutive chunks once, and the grid covers the array.
    const int per_block = w.one_pass && is_tma(p) ? c.stages : 0;
    if (per_block > 0) {
        const std::size_t chunks = p == CopyPath::Tensor ? tp.tiles_x * tp.tiles_y : (array_bytes + c.size - 1) / c.size;
        const std::size_t needed = (chunks + per_block - 1) / per_block;
        if (needed > 0x7fffffffu) invalid("tma_copy: a one-pass grid of " + std::to_string(needed) + " blocks is too large");
        blocks = static_cast<int>(needed);
    }
    void *in = w.in.get(), *outp = w.outbuf.get();
    const kernels::TensorMapBytes in_map = w.in_map, out_map = w.out_map;
    auto launch = [=](cudaStream_t s) -> cudaError_t {
        switch (p) {
        case CopyPath::Bulk:
            return kernels::launch_bulk_copy(in, outp, array_bytes, c.size, c.stages, blocks, per_block, shared, s);
        case CopyPath::Tensor:
            return kernels::launch_tensor_copy(in_map, out_map, static_cast<std::uint32_t>(tp.tiles_x),
                                               static_cast<std::uint32_t>(tp.tiles_y), tp.box_cols, tp.box_rows, c.stages,
                                               blocks, per_block, shared, s);
        case CopyPath::CpAsync:
            return kernels::launch_thread_copy(true, in, outp, array_bytes, c.size, c.stages, blocks, shared, s);
        case CopyPath::Registers:
            return kernels::launch_thread_copy(false, in, outp, array_bytes, c.size, 1, blocks, shared, s);
        }
        return cudaErrorInvalidValue;
    };
    const std::string what = "tma_copy " + series_label(p, c.stages) + ", " + kib_text(c.size);
    Point pt;
    pt.x = static_cast<double>(c.size) / 1024.0;
    pt.bytes = 2.0 * static_cast<double>(array_bytes);  // read + written
    pt.values["size_bytes"] = static_cast<double>(c.size);
    pt.values["blocks"] = blocks;
    pt.values["blocks_per_sm"] = per_sm;
    pt.values["shared_bytes_per_block"] = static_cast<double>(shared);
    pt.values["bytes_in_flight_per_sm"] = static_cast<double>(per_sm) * c.stages * static_cast<double>(c.size);
    pt.predicted["inst_per_byte_floor"] = inst_per_byte_floor(p, c.size);
    pt.predicted["dram_read_per_byte"] = 1.0;
    measure_checked(w.ctx,
                    {launch, {{outp, array_bytes}}, {}, [&] { w.checker.check(w.outbuf.as<std::uint32_t>(), array_bytes / 4, what, out); }},
                    pt, out, &w.counted);
    series_for(w, p, c.stages).points.push_back(std::move(pt));
}

void run_tma_copy(ContextState &ctx, const Params &params, Result &out) {
    const DeviceInfo &dev = ctx.info();
    if (!has_compute_capability(dev, 9, 0, "tma_copy",
                                "the Tensor Memory Accelerator (cp.async.bulk, cp.async.bulk.tensor) and the mbarrier's "
                                "transaction count arrived with Hopper (sm_90)",
                                out))
        return;
    const std::size_t smem_limit = dev.shared_per_block_optin;
    const auto matrix_cols = static_cast<std::size_t>(params.integer("matrix_cols"));
    const auto tile_cols = static_cast<std::size_t>(params.integer("tile_cols"));
    const std::size_t array_bytes = plan_array_bytes(ctx, params, matrix_cols, out);
    const std::size_t words = array_bytes / 4;

    std::vector<CopyPath> paths;
    for (const std::string &name : params.texts("paths")) paths.push_back(path_from_name(name));
    std::sort(paths.begin(), paths.end());

    const std::vector<Combo> combos = plan_combos(params, smem_limit, out);

    // The tensor path: the driver's encoder, and tiles that divide the array.
    const std::map<std::size_t, TilePlan> tiles = plan_tensor_path(paths, combos, array_bytes, matrix_cols, tile_cols, out);
    if (paths.empty()) invalid("no copy path left to run (paths)");

    GM_CUDA(kernels::allow_tma_shared(smem_limit));
    DeviceArray in(ctx, array_bytes), outbuf(ctx, array_bytes);
    GM_CUDA(kernels::launch_fill_pattern(in.as<std::uint32_t>(), words, kSeed, ctx.stream()));
    PatternCheck checker(ctx);
    checker.self_test(in.get(), outbuf.get(), words);
    checker.check(in.as<std::uint32_t>(), words, "tma_copy input fill", out);

    // Sizes in the outer loops and the paths innermost, so that the paths of
    // one configuration are measured one after the other.
    TmaSweep sweep{ctx, in, outbuf, array_bytes, matrix_cols, tile_cols, checker, tma_counters(array_bytes), tiles, {}, {}, 0, {}};
    sweep.one_pass = params.text("grid") == "one_pass";
    for (const Combo &c : combos)
        for (CopyPath p : paths)
            if (p != CopyPath::Registers || c.stages == 1) measure_tma_point(sweep, p, c, out);
    for (auto &[key, s] : sweep.series) out.series.push_back(std::move(s));

    // The ceiling in the same run: our stream copy kernel and cudaMemcpy on the same arrays.
    // Kept apart until the sweep's figures are taken (they point into out.series).
    std::vector<Series> refs;
    const References ceiling =
        params.flag("include_references") ? measure_references(ctx, in, outbuf, array_bytes, checker, refs, out) : References{};
    summarise_tma(out, std::move(refs), array_bytes, ceiling);
}

// The sweep's lines per path and stages; the ceiling's two single points are
// in the table and the key figures.
Chart tma_copy_chart() {
    Chart c;
    c.x_title = "bulk / tile / chunk size (KiB)";
    c.x_log = true;
    c.leave_out = {"copy", "cudaMemcpy"};  // one point each, at the array's size: in the table and the key figures
    c.explanation = "The same bytes copied global -> shared -> global four ways, one line per path and number of stages: "
                    "the Tensor Memory Accelerator's 1D bulk copies and 2D tensor-map tiles, driven by one thread per block, "
                    "against cp.async and plain register copies by every thread. Small chunks leave too few bytes in flight; "
                    "more stages keep more in flight. The stream copy kernel and cudaMemcpy on the same array are the "
                    "ceiling (table; tma_over_stream_copy and tma_over_memcpy in the key figures), and the counters give "
                    "the instructions each path issues per byte, which is what TMA saves.";
    return c;
}

}  // namespace

void add_tma_copy_experiments(std::vector<Experiment> &out) {
    Experiment e;
    e.name = "tma_copy";
    e.guide_section = "CUDA C++ Programming Guide: Asynchronous Data Copies using the Tensor Memory Accelerator (TMA)";
    e.summary = "Global -> shared -> global through the Tensor Memory Accelerator (1D bulk copies and 2D tensor-map tiles) "
                "against cp.async and register copies, over bulk/tile size and pipeline stages; the best TMA copy of 1 GiB "
                "against our stream copy and cudaMemcpy, and instructions issued per byte.";
    e.params = {
        with_multiple_of(size_param("array_bytes", kDefaultArray, 1 << 20, 1LL << 40,
                   "bytes copied (two arrays of this size); the default 1 GiB shrinks to fit the memory budget"), 16),
        with_multiple_of(int_list_param("sizes", default_sizes(), 16, 256 * static_cast<long long>(kKiB),
                       "bytes per bulk copy / tile / chunk: a multiple of 16, and stages x size within the shared memory per block",
                       "bytes"), 16),
        int_list_param("stages", default_stages(), 1, kMaxStages, "shared buffers in the ring (one mbarrier each)"),
        enum_list_param("paths", kPaths, kPaths, "bulk and tensor (TMA), cp_async, registers"),
        with_multiple_of(int_param("tile_cols", 64, 4, kMaxBoxDim,
                  "tensor path: tile width in 4-byte elements (the box's inner dimension, at most 256); its rows are size / (4 tile_cols)",
                  "elements"), 4),
        with_multiple_of(int_param("matrix_cols", 8192, 4, 1 << 24, "tensor path: the array as rows of this many 4-byte elements", "elements"), 4),
        bool_param("include_references", true, "also time our stream copy kernel and cudaMemcpy on the same arrays"),
        enum_param("grid", "persistent", {"persistent", "one_pass"},
                   "the TMA paths' grid: persistent (as many blocks as fit, block b taking chunks b, b + grid, ...) or "
                   "one_pass (block b copies the `stages` consecutive chunks from b x stages once; the grid covers the array)"),
    };
    e.axes = kAxes;
    e.run = run_tma_copy;
    e.quick = {{"array_bytes", 64 * kMiB}, {"sizes", {1024, 16384}}, {"stages", {1, 3}}};
    e.figures = {kStreamCopyGbs,  kMemcpyGbs,          kArrayBytes,       kTmaGbs,
                 kTmaBestSizeKib, kTmaBestStages,      kTmaBestIsTensor,  kTmaOverMemcpy,
                 kTmaOverStreamCopy, kTmaOverCpAsyncInstFloor, kTmaOverCpAsyncInst, kTmaOverCpAsyncInstSizeKib,
                 kTmaInstTargetMet, kPathBestGbs,      kPathBestSizeKib,  kPathBestStages,
                 kPathOverStreamCopy, kPathInstPerByte};
    e.compared = {
        {kTmaGbs.name, "TMA copy, best bulk / tile size and stages"},
        {kTmaOverStreamCopy.name, "TMA copy / stream copy kernel, same bytes"},
        {kTmaOverMemcpy.name, "TMA copy / cudaMemcpy, same bytes"},
        {kTmaOverCpAsyncInst.name, "TMA / cp.async instructions per byte"},
    };
    e.chart = tma_copy_chart();
    e.consistency = {
        gmvocab::shown_beside("dram_copy_bandwidth", "stream_copy_gbs", "the same copy kernel on 1 GiB (tma_copy's reference)",
                              "four times stream's arrays: on an H200 2.2-2.7 % faster in each of three runs, where the "
                              "launch and the grid's last wave weigh less"),
    };
    out.push_back(std::move(e));
}

}  // namespace gmlab
