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
#include "core/experiment/registry.hpp"
#include "core/measurement/harness.hpp"
#include "core/measurement/verify.hpp"
#include "core/units.hpp"
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
    for (long long size : sizes)
        for (long long st : stage_list) {
            if (ring_fits(static_cast<std::size_t>(size), static_cast<int>(st), smem_limit)) {
                combos.push_back({static_cast<std::size_t>(size), static_cast<int>(st)});
            } else if (default_sweep) {
                dropped.push_back(std::to_string(st) + " x " + kib_text(static_cast<std::size_t>(size)));
            } else {
                check_ring(static_cast<std::size_t>(size), static_cast<int>(st), smem_limit);
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

// The copy ceiling in the same run: our stream copy kernel and cudaMemcpy
// on the same arrays, checked, as series kept apart in refs.
struct References {
    double stream_gbs = 0, memcpy_gbs = 0;
};

References measure_references(ContextState &ctx, DeviceArray &in, DeviceArray &outbuf, std::size_t array_bytes,
                              PatternCheck &checker, std::vector<Series> &refs, Result &out) {
    cudaStream_t st = ctx.stream();
    const std::size_t words = array_bytes / 4;
    double stream_gbs = 0, memcpy_gbs = 0;
    Series copy = reference_copy_series(ctx, in.get(), outbuf.get(), array_bytes, static_cast<double>(array_bytes), out, "tma_copy");
    copy.x_name = "array size";
    copy.x_unit = "bytes";
    stream_gbs = bandwidth_gbs(copy.points[0].bytes, copy.points[0].time_ms.median);
    refs.push_back(std::move(copy));

    auto launch = [&](cudaStream_t s) { return cudaMemcpyAsync(outbuf.get(), in.get(), array_bytes, cudaMemcpyDeviceToDevice, s); };
    GM_CUDA(cudaMemsetAsync(outbuf.get(), 0xA5, array_bytes, st));
    GM_CUDA(launch(st));
    checker.check(outbuf.as<std::uint32_t>(), words, "tma_copy cudaMemcpy", out);
    Series m;
    m.name = "cudaMemcpy";
    m.variant = "cudaMemcpy";
    m.x_name = "array size";
    m.x_unit = "bytes";
    m.quantity = Quantity::DramBandwidth;
    Point pt;
    pt.x = static_cast<double>(array_bytes);
    pt.bytes = 2.0 * static_cast<double>(array_bytes);
    pt.time_ms = time_launch(ctx, launch);
    memcpy_gbs = bandwidth_gbs(pt.bytes, pt.time_ms.median);
    m.points.push_back(std::move(pt));
    refs.push_back(std::move(m));
    out.summary_values["stream_copy_gbs"] = stream_gbs;
    out.summary_values["memcpy_gbs"] = memcpy_gbs;
    return {stream_gbs, memcpy_gbs};
}

// The figures of the sweep: each path's best point, TMA against the ceiling
// and against cp.async's instructions, the reference series and the notes.
void summarise_tma(Result &out, std::vector<Series> refs, std::size_t array_bytes, const References &ceiling) {
    const double stream_gbs = ceiling.stream_gbs, memcpy_gbs = ceiling.memcpy_gbs;
    // The best point of each path.
    struct Best {
        double gbs = 0, size = 0;
        int stages = 0;
        const Point *point = nullptr;
    };
    std::map<CopyPath, Best> best;
    for (const Series &s : out.series) {
        const CopyPath p = path_from_name(s.variant);
        for (const Point &pt : s.points) {
            const double g = bandwidth_gbs(pt.bytes, pt.time_ms.median);
            if (g > best[p].gbs) best[p] = {g, pt.values.at("size_bytes"), s.attributes["stages"].get<int>(), &pt};
        }
    }
    for (const auto &[p, b] : best) {
        const std::string n = path_name(p);
        out.summary_values[n + "_best_gbs"] = b.gbs;
        out.summary_values[n + "_best_size_kib"] = b.size / 1024.0;
        out.summary_values[n + "_best_stages"] = b.stages;
    }
    Best tma;
    CopyPath tma_path = CopyPath::Bulk;
    for (CopyPath p : {CopyPath::Bulk, CopyPath::Tensor})
        if (best.count(p) && best[p].gbs > tma.gbs) {
            tma = best[p];
            tma_path = p;
        }

    out.summary_values["array_bytes"] = static_cast<double>(array_bytes);
    if (tma.point) {
        out.summary_values["tma_gbs"] = tma.gbs;
        out.summary_values["tma_best_size_kib"] = tma.size / 1024.0;
        out.summary_values["tma_best_stages"] = tma.stages;
        out.summary_values["tma_best_is_tensor"] = tma_path == CopyPath::Tensor ? 1.0 : 0.0;
        if (memcpy_gbs > 0) out.summary_values["tma_over_memcpy"] = tma.gbs / memcpy_gbs;
        if (stream_gbs > 0) out.summary_values["tma_over_stream_copy"] = tma.gbs / stream_gbs;
    }
    for (CopyPath p : {CopyPath::CpAsync, CopyPath::Registers})
        if (best.count(p) && stream_gbs > 0) out.summary_values[std::string(path_name(p)) + "_over_stream_copy"] = best[p].gbs / stream_gbs;

    // Instructions per byte: each TMA point against the cp.async point of the
    // same size and stages, counted and by the floor model; the summary takes
    // the best TMA point's configuration.
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
    for (const auto &[p, b] : best)
        if (b.point && b.point->counters.count("inst_per_byte"))
            out.summary_values[std::string(path_name(p)) + "_inst_per_byte"] = b.point->counters.at("inst_per_byte");
    if (tma.point) {
        out.summary_values["tma_over_cp_async_inst_floor"] = tma.point->predicted.count("inst_over_cp_async_floor")
                                                                  ? tma.point->predicted.at("inst_over_cp_async_floor")
                                                                  : inst_per_byte_floor(tma_path, static_cast<std::size_t>(tma.size)) /
                                                                        inst_per_byte_floor(CopyPath::CpAsync, static_cast<std::size_t>(tma.size));
        // Counted at the best TMA point where it was counted (and its
        // cp.async twin); else at the largest TMA point that was (counters =
        // auto counts a share of the points, on counts them all).
        const Point *counted_at = tma.point->values.count("inst_over_cp_async") ? tma.point : nullptr;
        const Point *largest = nullptr;
        for (const Series &s : out.series)
            if (s.variant == "bulk" || s.variant == "tensor")
                for (const Point &pt : s.points)
                    if (pt.values.count("inst_over_cp_async") && (!largest || pt.x > largest->x)) largest = &pt;
        if (!counted_at) counted_at = largest;
        if (counted_at) {
            const double r = counted_at->values.at("inst_over_cp_async");
            out.summary_values["tma_over_cp_async_inst"] = r;
            out.summary_values["tma_over_cp_async_inst_size_kib"] = counted_at->x;
            out.summary_values["tma_inst_target_met"] = r <= kTmaInstructionTarget ? 1.0 : 0.0;
        }
    }

    for (Series &r : refs) out.series.push_back(std::move(r));

    out.notes.push_back(
        "Every path copies the whole " + std::to_string(array_bytes) + "-byte array global -> shared -> global with a "
        "persistent grid (as many blocks as fit, block b taking chunks b, b + grid, ...). bulk: one lane per block drives "
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
    if (tma.point && stream_gbs > 0) {
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
}

void run_tma_copy(ContextState &ctx, const Params &params, Result &out) {
    const DeviceInfo &dev = ctx.info();
    if (dev.cc_major < 9) {
        out.not_applicable("tma_copy needs compute capability 9.0 or newer: the Tensor Memory Accelerator (cp.async.bulk, "
                           "cp.async.bulk.tensor) and the mbarrier's transaction count arrived with Hopper (sm_90); this device is " +
                           std::to_string(dev.cc_major) + "." + std::to_string(dev.cc_minor));
        return;
    }
    const std::size_t smem_limit = dev.shared_per_block_optin;
    const auto matrix_cols = static_cast<std::size_t>(params.integer("matrix_cols"));
    const auto tile_cols = static_cast<std::size_t>(params.integer("tile_cols"));

    // The array: 1 GiB by default, made smaller (whole tensor-map row bands)
    // only when the default does not fit the memory budget.
    std::size_t array_bytes = params.size("array_bytes");
    if (params.json()["array_bytes"] == kDefaultArray && 2 * array_bytes > ctx.memory_budget()) {
        const std::size_t unit = matrix_cols * 4 * kMaxBoxDim;
        array_bytes = std::max(unit, ctx.memory_budget() / 2 / unit * unit);
        out.notes.push_back("array_bytes reduced from 1 GiB to " + std::to_string(array_bytes) + " to fit the memory budget");
    }
    require_memory(ctx, 2 * array_bytes + 64, "tma_copy (2 arrays of " + std::to_string(array_bytes) + " bytes)");
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
    cudaStream_t st = ctx.stream();
    GM_CUDA(kernels::launch_fill_pattern(in.as<std::uint32_t>(), words, kSeed, st));
    PatternCheck checker(ctx);
    checker.self_test(in.get(), outbuf.get(), words);
    checker.check(in.as<std::uint32_t>(), words, "tma_copy input fill", out);

    // One series per path and stage count (the register path has one buffer).
    std::map<std::pair<int, int>, Series> series;
    auto series_for = [&](CopyPath p, int stages) -> Series & {
        auto key = std::make_pair(static_cast<int>(p), stages);
        auto it = series.find(key);
        if (it != series.end()) return it->second;
        Series &s = series[key];
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
                        {"array_bytes", array_bytes}};
        if (p == CopyPath::Tensor)
            s.attributes["matrix"] = {{"rows", array_bytes / (matrix_cols * 4)}, {"cols", matrix_cols}, {"tile_cols", tile_cols}};
        return s;
    };

    CounterSet counted;
    counted.metrics = {"smsp__inst_executed.sum", "dram__bytes_read.sum", "dram__bytes_write.sum"};
    counted.derived = {{"inst_per_byte", "smsp__inst_executed.sum", "", static_cast<double>(array_bytes)},
                       {"dram_read_per_byte", "dram__bytes_read.sum", "", static_cast<double>(array_bytes)},
                       {"dram_write_per_byte", "dram__bytes_write.sum", "", static_cast<double>(array_bytes)}};
    // Every byte is read from DRAM once: the counted launch runs after an L2
    // flush and clean. Writes may stay in L2 when the kernel ends, so they
    // are shown, not checked.
    counted = counted.agree("dram_read_per_byte", "dram_read_per_byte", 0.03);

    // Sizes in the outer loops and the paths innermost, so that the paths of
    // one configuration are measured one after the other.
    kernels::TensorMapBytes in_map{}, out_map{};
    std::size_t encoded_for = 0;
    for (const Combo &c : combos) {
        for (CopyPath p : paths) {
            if (p == CopyPath::Registers && c.stages != 1) continue;
            const std::size_t shared = ring_shared_bytes(c.size, c.stages);
            int per_sm = 0;
            GM_CUDA(kernels::tma_resident_blocks(kernel_of(p), c.stages, shared, &per_sm));
            if (per_sm < 1) fail(GM_ERROR_INTERNAL, "tma_copy: no block of " + series_label(p, c.stages) + " with " + std::to_string(shared) + " bytes of shared memory fits a multiprocessor");
            const int blocks = per_sm * dev.multiprocessors;
            TilePlan tp;
            if (p == CopyPath::Tensor) {
                tp = tiles.at(c.size);
                if (encoded_for != c.size) {
                    int driver_status = 0;
                    const cudaError_t err = kernels::encode_tensor_maps(in.get(), outbuf.get(), tp.rows, tp.cols, tp.box_cols,
                                                                        tp.box_rows, &in_map, &out_map, &driver_status);
                    if (err != cudaSuccess)
                        invalid("cuTensorMapEncodeTiled refused a " + std::to_string(tp.rows) + " x " + std::to_string(tp.cols) +
                                " matrix with a " + std::to_string(tp.box_cols) + " x " + std::to_string(tp.box_rows) +
                                " box (CUresult " + std::to_string(driver_status) + ")");
                    encoded_for = c.size;
                }
            }
            auto launch = [&, p, c, blocks, shared, tp](cudaStream_t s) -> cudaError_t {
                switch (p) {
                case CopyPath::Bulk:
                    return kernels::launch_bulk_copy(in.get(), outbuf.get(), array_bytes, c.size, c.stages, blocks, shared, s);
                case CopyPath::Tensor:
                    return kernels::launch_tensor_copy(in_map, out_map, static_cast<std::uint32_t>(tp.tiles_x),
                                                       static_cast<std::uint32_t>(tp.tiles_y), tp.box_cols, tp.box_rows,
                                                       c.stages, blocks, shared, s);
                case CopyPath::CpAsync:
                    return kernels::launch_thread_copy(true, in.get(), outbuf.get(), array_bytes, c.size, c.stages, blocks, shared, s);
                case CopyPath::Registers:
                    return kernels::launch_thread_copy(false, in.get(), outbuf.get(), array_bytes, c.size, 1, blocks, shared, s);
                }
                return cudaErrorInvalidValue;
            };
            const std::string what = "tma_copy " + series_label(p, c.stages) + ", " + kib_text(c.size);
            GM_CUDA(cudaMemsetAsync(outbuf.get(), 0xA5, array_bytes, st));
            GM_CUDA(launch(st));
            checker.check(outbuf.as<std::uint32_t>(), words, what, out);

            Point pt;
            pt.x = static_cast<double>(c.size) / 1024.0;
            pt.bytes = 2.0 * static_cast<double>(array_bytes);  // read + written
            pt.time_ms = time_launch(ctx, launch);
            pt.values["size_bytes"] = static_cast<double>(c.size);
            pt.values["blocks"] = blocks;
            pt.values["blocks_per_sm"] = per_sm;
            pt.values["shared_bytes_per_block"] = static_cast<double>(shared);
            pt.values["bytes_in_flight_per_sm"] = static_cast<double>(per_sm) * c.stages * static_cast<double>(c.size);
            pt.predicted["inst_per_byte_floor"] = inst_per_byte_floor(p, c.size);
            pt.predicted["dram_read_per_byte"] = 1.0;
            measure_counters(ctx, launch, counted, pt, out);
            series_for(p, c.stages).points.push_back(std::move(pt));
        }
    }
    for (auto &[key, s] : series) out.series.push_back(std::move(s));

    // The ceiling in the same run: our stream copy kernel and cudaMemcpy on the same arrays.
    // Kept apart until the sweep's figures are taken (they point into out.series).
    std::vector<Series> refs;
    const References ceiling =
        params.flag("include_references") ? measure_references(ctx, in, outbuf, array_bytes, checker, refs, out) : References{};
    summarise_tma(out, std::move(refs), array_bytes, ceiling);
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
        size_param("array_bytes", kDefaultArray, 1 << 20, 1LL << 40,
                   "bytes copied (two arrays of this size); the default 1 GiB shrinks to fit the memory budget"),
        int_list_param("sizes", default_sizes(), 16, 256 * static_cast<long long>(kKiB),
                       "bytes per bulk copy / tile / chunk: a multiple of 16, and stages x size within the shared memory per block",
                       "bytes"),
        int_list_param("stages", default_stages(), 1, kMaxStages, "shared buffers in the ring (one mbarrier each)"),
        enum_list_param("paths", kPaths, kPaths, "bulk and tensor (TMA), cp_async, registers"),
        int_param("tile_cols", 64, 4, kMaxBoxDim,
                  "tensor path: tile width in 4-byte elements (the box's inner dimension, at most 256); its rows are size / (4 tile_cols)",
                  "elements"),
        int_param("matrix_cols", 8192, 4, 1 << 24, "tensor path: the array as rows of this many 4-byte elements", "elements"),
        bool_param("include_references", true, "also time our stream copy kernel and cudaMemcpy on the same arrays"),
    };
    e.params[0].multiple_of = 16;
    e.params[1].multiple_of = 16;
    e.params[4].multiple_of = 4;
    e.params[5].multiple_of = 4;
    e.run = run_tma_copy;
    e.quick = {{"array_bytes", 64 * kMiB}, {"sizes", {1024, 16384}}, {"stages", {1, 3}}};
    e.figures = {
        {"tma_gbs", "GB/s", Better::Higher, "TMA copy, best bulk / tile size and stages"},
        {"tma_over_stream_copy", "ratio", Better::Neither, "TMA copy / stream copy kernel, same bytes"},
        {"tma_over_memcpy", "ratio", Better::Neither, "TMA copy / cudaMemcpy, same bytes"},
        {"tma_over_cp_async_inst", "ratio", Better::Neither, "TMA / cp.async instructions per byte"},
    };
    e.compared = {
        {"tma_gbs", "TMA copy, best bulk / tile size and stages"},
        {"tma_over_stream_copy", "TMA copy / stream copy kernel, same bytes"},
        {"tma_over_memcpy", "TMA copy / cudaMemcpy, same bytes"},
        {"tma_over_cp_async_inst", "TMA / cp.async instructions per byte"},
    };
    out.push_back(std::move(e));
}

}  // namespace gmlab
