// Experiment family "read_write": DRAM bandwidth of reads alone and of writes
// alone, which the guide's effective bandwidth (bytes read plus written over
// the time) adds together. A copy's bandwidth lies between the two; DRAM
// turns the bus around between reads and writes, so neither half is the
// copy's figure.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/experiment/point_protocol.hpp"
#include "core/experiment/registry.hpp"
#include "core/measurement/harness.hpp"
#include "core/measurement/verify.hpp"
#include "core/units.hpp"
#include "experiments/common/point_checks.hpp"
#include "experiments/read_write/read_write.cuh"
#include "shared_kernels/fill_pattern.cuh"
#include "shared_kernels/pattern.hpp"
#include "shared_kernels/read_sum.cuh"

namespace gmlab {

namespace {

constexpr std::uint32_t kReadSeed = 0x5eed, kWriteSeed = 0x77;
constexpr std::uint8_t kMemsetByte = 0x5a;

const Figure kDirectionGbs{"{direction}_gbs", "GB/s", Better::Higher,
                           "DRAM bandwidth of one direction alone: bytes read by the read kernel, bytes written by the "
                           "store kernel or by cudaMemsetAsync, over the launch's time"};
const Figure kWriteOverRead{"write_over_read", "ratio", Better::Neither,
                            "the store kernel's DRAM write bandwidth over the read kernel's DRAM read bandwidth"};

// Every direction's series has one point: the DRAM bandwidth at the array's size.
Series direction_series(const std::string &name, const std::string &variant, std::size_t bytes) {
    return declared_series(name, variant, "array size", "bytes", Quantity::DramBandwidth,
                           nlohmann::json{{"array_bytes", bytes}});
}

// The read is the shared read_sum: it sums every 32-bit word it reads, one
// partial sum per block; the host adds the partials and compares them with
// its own sum of the same pattern. The partials (8 bytes per block of
// block x loads x 16 bytes read) are the only bytes it writes.
Series measure_read(ContextState &ctx, DeviceArray &data, const kernels::ReadShape &shape, const std::string &name,
                    Result &out) {
    const std::size_t bytes = data.bytes(), words = bytes / 4, n16 = bytes / 16;
    const std::size_t blocks = kernels::read_sum_blocks(n16, shape);
    DeviceArray partials(ctx, blocks * sizeof(unsigned long long));
    auto *partial = partials.as<unsigned long long>();
    GM_CUDA(kernels::launch_fill_pattern(data.as<std::uint32_t>(), words, kReadSeed, ctx.stream()));
    const Launch read = [&](cudaStream_t s) { return kernels::launch_read_partials(data.get(), n16, partial, shape, s); };
    std::vector<unsigned long long> got(blocks);
    Point p;
    p.x = p.bytes = static_cast<double>(bytes);
    p.predicted["dram_bytes"] = static_cast<double>(bytes);
    const CounterSet dram = counter_sets::dram().agree("dram__bytes_read.sum", "dram_bytes", 0.05);
    CheckedLaunch point{read, {{partial, partials.bytes()}}, download_to(got.data(), partial, partials.bytes()), [&] {
                            std::uint64_t sum = 0;
                            for (unsigned long long g : got) sum += g;
                            const std::uint64_t want = parallel_sum(
                                words, [](std::uint64_t i) -> std::uint64_t { return pattern_word(i, kReadSeed); });
                            if (sum != want)
                                verification_failed("read_write read (the sum of every word read)", 0, std::to_string(want),
                                                    std::to_string(sum));
                            out.verified(words, "every word read summed on the device and compared with the host's sum");
                        }};
    // Timed from a clean L2: a read leaves nothing to write back, and would
    // otherwise pay for the flush's dirty lines (the writes below, which
    // leave their own last lines in L2, are timed after the plain flush).
    point.reads_only = true;
    measure_checked(ctx, point, p, out, &dram);
    const std::string hint = shape.hint == kernels::ReadHint::L2Fetch256 ? "ld.global.nc.L2::256B" : "ld.global";
    Series s = direction_series(name, "read_sum (16-byte loads only, " + std::to_string(shape.loads) +
                                            " in flight per thread, " + hint + ", one partial sum per block)",
                                bytes);
    s.attributes["loads"] = shape.loads;
    s.attributes["load_hint"] = hint;
    s.attributes["block_size"] = shape.block;
    s.points.push_back(std::move(p));
    return s;
}

// A store-only launch (the kernel or cudaMemsetAsync), poisoned, run once,
// every word compared with `expected`, then timed and counted.
Series measure_write(ContextState &ctx, DeviceArray &data, const Launch &launch, Series s,
                     const std::function<std::uint32_t(std::uint64_t)> &expected, const std::string &what, Result &out) {
    const std::size_t bytes = data.bytes(), words = bytes / 4;
    std::vector<std::uint32_t> host(words);
    Point p;
    p.x = p.bytes = static_cast<double>(bytes);
    const CounterSet dram = counter_sets::dram();
    measure_checked(ctx,
                    {launch, {{data.get(), bytes}}, download_to(host.data(), data.get(), bytes),
                     [&] {
                         verify_equal(host.data(), words, expected, what,
                                      "every word written compared with a host reference", out);
                     }},
                    p, out, &dram);
    s.points.push_back(std::move(p));
    return s;
}

std::string gbs_text(double gbs) { return std::to_string(static_cast<long long>(std::llround(gbs))); }

// Where reads alone stay more than 5 % below writes alone (the store kernel
// or cudaMemsetAsync, whichever is faster), the reason in this run's own
// figures, as a note starting "DRAM ordering:" (the report's consistency
// section reads it as the stated reason): the read's DRAM counter (no bytes
// but the array's) and the read at each number of loads in flight (whether
// more requests in flight would raise it).
void add_ordering_note(Result &out, const std::map<std::string, double> &gbs, int loads) {
    const double read = gbs.count("read") ? gbs.at("read") : 0;
    const double write = std::max(gbs.count("write") ? gbs.at("write") : 0.0, gbs.count("memset") ? gbs.at("memset") : 0.0);
    if (read <= 0 || write <= 0 || read >= 0.95 * write) return;
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.3f", read / write);
    std::string note = "DRAM ordering: reads alone reached " + gbs_text(read) + " GB/s, " + ratio + " of writes alone (" +
                       gbs_text(write) + " GB/s) on the same array";
    for (const Series &s : out.series)
        if (s.name == "read" && s.points[0].counters.count("dram__bytes_read.sum"))
            note += "; the read's DRAM counter counted " +
                    std::to_string(static_cast<long long>(s.points[0].counters.at("dram__bytes_read.sum"))) + " bytes for the " +
                    std::to_string(static_cast<long long>(s.points[0].bytes)) + " it reads";
    double most = read;
    std::string by_loads;
    for (int l : {4, 8, 16}) {
        const std::string name = l == loads ? "read" : "read_loads" + std::to_string(l);
        if (!gbs.count(name)) continue;
        most = std::max(most, gbs.at(name));
        by_loads += (by_loads.empty() ? "" : ", ") + std::to_string(l) + ": " + gbs_text(gbs.at(name));
    }
    if (!by_loads.empty()) {
        note += "; with 16-byte loads in flight per thread " + by_loads + " GB/s";
        note += most <= 1.03 * read ? ", so more requests in flight do not raise it: the card reads slower than it writes, "
                                      "and a copy, half reads and half writes, lies between the two"
                                    : ", so the read's default shape is not at the card's read limit here";
    }
    out.notes.push_back(note + ".");
}

// Whether a block of the read with this shape can be launched (its registers).
bool read_shape_fits(const kernels::ReadShape &shape) {
    int most = 0;
    GM_CUDA(kernels::read_shape_max_block(shape.loads, shape.hint, &most));
    return shape.block <= most;
}

std::size_t array_size(ContextState &ctx, const Params &params, Result &out) {
    std::size_t bytes = params.size("array_bytes");
    if (bytes == 0) {
        bytes = std::max<std::size_t>(default_working_set(ctx.info()), 256 * kMiB);
        const std::size_t budget = ctx.memory_budget() / 16 * 16;
        if (bytes > budget) {
            bytes = budget;
            out.notes.push_back("array size reduced to fit the memory budget");
        }
    }
    bytes = bytes / 16 * 16;
    if (bytes < 16) invalid("array_bytes must be at least 16, got " + std::to_string(params.size("array_bytes")));
    return bytes;
}

void run_read_write(ContextState &ctx, const Params &params, Result &out) {
    const std::size_t bytes = array_size(ctx, params, out);
    const int block = static_cast<int>(params.integer("block_size"));
    kernels::ReadShape shape;
    shape.block = block;
    shape.loads = static_cast<int>(params.integer("loads"));
    shape.hint = params.text("load_hint") == "l2_256b" ? kernels::ReadHint::L2Fetch256 : kernels::ReadHint::Plain;
    kernels::ReadShape most_blocks = shape;  // the read with the fewest loads per thread has the most partials
    most_blocks.loads = 4;
    const std::size_t partial_bytes = kernels::read_sum_blocks(bytes / 16, most_blocks) * sizeof(unsigned long long);
    if (!read_shape_fits(shape))
        invalid("block_size " + std::to_string(shape.block) + " with loads " + std::to_string(shape.loads) +
                ": the read kernel holds the loads in registers, and a block of that many threads would need more than a "
                "block may have here; use fewer loads or a smaller block");
    require_memory(ctx, bytes + partial_bytes, "read_write (one array of " + std::to_string(bytes) + " bytes)");
    DeviceArray data(ctx, bytes);

    out.series.push_back(measure_read(ctx, data, shape, "read", out));
    const Launch store = [&](cudaStream_t s) { return kernels::launch_store_words(data.get(), bytes / 16, kWriteSeed, block, s); };
    out.series.push_back(measure_write(ctx, data, store, direction_series("write", "store_words (16-byte stores only)", bytes),
                                       [](std::uint64_t i) { return kernels::stored_word(i, kWriteSeed); },
                                       "read_write store kernel", out));
    const Launch memset = [&](cudaStream_t s) { return cudaMemsetAsync(data.get(), kMemsetByte, bytes, s); };
    constexpr std::uint32_t kMemsetWord = 0x5a5a5a5au;
    out.series.push_back(measure_write(ctx, data, memset, direction_series("memset", "cudaMemsetAsync", bytes),
                                       [](std::uint64_t) { return kMemsetWord; }, "read_write cudaMemsetAsync", out));

    // The read again with the other numbers of loads in flight: whether more
    // requests in flight would raise it (the ordering note below).
    if (params.flag("read_loads_sweep"))
        for (int loads : {4, 8, 16}) {
            if (loads == shape.loads) continue;
            kernels::ReadShape other = shape;
            other.loads = loads;
            if (!read_shape_fits(other)) {
                out.notes.push_back("read_loads" + std::to_string(loads) + " left out: a block of " +
                                    std::to_string(other.block) + " threads with " + std::to_string(loads) +
                                    " loads in flight needs more registers than a block may have here");
                continue;
            }
            out.series.push_back(measure_read(ctx, data, other, "read_loads" + std::to_string(loads), out));
        }

    std::map<std::string, double> gbs;
    for (const Series &s : out.series) {
        gbs[s.name] = bandwidth_gbs(s.points[0].bytes, s.points[0].time_ms.median);
        out.record(kDirectionGbs, gbs[s.name], {{"direction", s.name}});
    }
    if (gbs["read"] > 0) out.record(kWriteOverRead, gbs["write"] / gbs["read"]);
    out.notes.push_back("Each figure counts the bytes of one direction only (read, or written), where stream counts "
                        "bytes read plus written: a copy's figure lies between the two.");
    add_ordering_note(out, gbs, shape.loads);
}

Chart read_write_chart() {
    Chart c;
    c.kind = "bar";
    c.explanation = "DRAM read alone (a kernel that loads and sums every word), write alone (a kernel that only stores, "
                    "and cudaMemsetAsync) on the same array. The guide's effective bandwidth adds reads and writes; this "
                    "shows each direction's own rate, which stream's copy, reading and writing at once, is read against.";
    return c;
}

}  // namespace

void add_read_write_experiments(std::vector<Experiment> &out) {
    Experiment e;
    e.name = "read_write";
    e.guide_section = "Best Practices Guide: Performance Metrics, Effective Bandwidth Calculation";
    e.summary = "DRAM bandwidth of reads alone and of writes alone (a store kernel and cudaMemsetAsync) on one array: "
                "the two halves of the guide's bytes-read-plus-written figure.";
    e.params = {
        size_param("array_bytes", 0, 0, 1LL << 40, "bytes of the array; 0 chooses max(4 x L2, 256 MiB) within the memory budget"),
        with_multiple_of(int_param("block_size", 256, 32, 1024, "threads per block of the load and store kernels", "threads"), 32),
        with_allowed(int_param("loads", 8, 4, 16, "16-byte vectors each thread of the read requests before it adds any"), {4, 8, 16}),
        enum_param("load_hint", "default", {"default", "l2_256b"},
                   "the read's loads: plain ld.global, or ld.global.nc.L1::no_allocate.L2::256B (256-byte L2 fetches)"),
        bool_param("read_loads_sweep", true,
                   "also time the read with the other numbers of loads in flight (4, 8, 16): series read_loads<n>"),
    };
    e.quick = {{"array_bytes", 64 * kMiB}};
    e.figures = {kDirectionGbs, kWriteOverRead};
    e.compared = {
        {"read_gbs", "DRAM read only"},
        {"write_gbs", "DRAM write only (store kernel)"},
    };
    e.chart = read_write_chart();
    e.run = run_read_write;
    out.push_back(std::move(e));
}

}  // namespace gmlab
