// Experiment family "alignment": 8-, 12- and 16-byte records copied one per
// thread as plain structs of floats, with __align__, with explicit float2 /
// float4 accesses, and from a deliberately misaligned base with narrower words.
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/experiment/point_protocol.hpp"
#include "core/experiment/registry.hpp"
#include "core/measurement/harness.hpp"
#include "core/measurement/verify.hpp"
#include "core/units.hpp"
#include "experiments/alignment/alignment.cuh"
#include "experiments/common/point_checks.hpp"
#include "shared_kernels/fill_pattern.cuh"
#include "shared_kernels/pattern.hpp"

namespace gmlab {

namespace {

using kernels::AlignmentKernel;
using kernels::kAlignmentKernels;
constexpr std::uint32_t kSeed = 0xa11;
constexpr std::size_t kMaxStride = 16, kMaxOffset = 15;

// Byte b of the input buffer (filled with pattern words, little-endian).
std::uint8_t input_byte(std::uint64_t b) { return static_cast<std::uint8_t>(pattern_word(b / 4, kSeed) >> (8 * (b % 4))); }

// The widest access that is legal at a base `offset` bytes past an aligned
// address: the largest power of two dividing the offset, at most the record.
int word_for_offset(int offset, int record) {
    int w = 1;
    while (w < record && offset % (2 * w) == 0) w *= 2;
    return w;
}

struct Case {
    int kernel;     // index in kAlignmentKernels
    int offset;     // bytes past the aligned base (misaligned variant only)
};

const Figure kLayoutOverPacked{"{layout}_over_packed_r{size}", "ratio", Better::Higher,
                               "bandwidth of aligned or vector records of a size over packed ones"};
const Figure kMisalignedOverAligned{"{case}_over_aligned", "ratio", Better::Higher,
                                    "bandwidth of loads misaligned by an offset over aligned ones (misaligned<size>_o<offset>)"};

// Every data byte of every record of the copy equals the input's; padding is
// not compared.
void check_records(const AlignmentKernel &k, int offset, std::size_t n, const std::vector<std::uint8_t> &host, Result &out) {
    const std::uint64_t checked = n * static_cast<std::uint64_t>(k.data);
    const std::uint64_t bad = first_mismatch(checked, [&](std::uint64_t j) {
        const std::uint64_t at = (j / k.data) * k.stride + j % k.data;
        return host[at] == input_byte(at + offset);
    });
    if (bad < checked) {
        const std::uint64_t at = (bad / k.data) * k.stride + bad % k.data;
        verification_failed(std::string("alignment ") + k.kernel, at, std::to_string(input_byte(at + offset)), std::to_string(host[at]));
    }
    out.verified(checked, "every data byte of every record compared with the input");
}

// The declared sweep: a one-point series per record size and layout (its x
// is the record size). The misaligned copies are a second sweep of the same
// run, a series per record size along the base offsets.
const SweepAxes kRecordAxes{{"record_sizes", "variants"}, ""};
const SweepAxes kMisalignedAxes{{"misaligned_sizes"}, "offsets"};

// One copy through the core's point protocol: the whole output poisoned, one
// launch checked record by record, then timed and counted.
Point measure(ContextState &ctx, const Case &c, const DeviceArray &in, const DeviceArray &outbuf, std::size_t n, int block,
              std::vector<std::uint8_t> &host, Result &out) {
    const AlignmentKernel &k = kAlignmentKernels[c.kernel];
    const char *src = in.as<char>() + c.offset;
    char *dst = outbuf.as<char>() + c.offset;
    const int kernel = c.kernel;
    const std::size_t span = n * static_cast<std::size_t>(k.stride);
    const CheckedLaunch point{[=](cudaStream_t s) { return kernels::launch_alignment_copy(kernel, src, dst, n, block, s); },
                              {{outbuf.get(), outbuf.bytes()}},
                              download_to(host.data(), dst, span),
                              [&] { check_records(k, c.offset, n, host, out); }};
    Point p;
    p.bytes = 2.0 * static_cast<double>(n * static_cast<std::uint64_t>(k.data));  // useful bytes read + written
    p.values["loads_per_record"] = k.loads_per_record;
    p.values["stores_per_record"] = k.stores_per_record;
    p.values["load_bytes"] = k.load_bytes;
    p.values["stride_bytes"] = k.stride;
    p.values["offset_bytes"] = c.offset;
    p.predicted["instructions_per_record"] = k.loads_per_record + k.stores_per_record;
    p.predicted["loads_per_record"] = k.loads_per_record;
    // Counters: global load instructions per record (one record per thread,
    // so warp instructions x 32 / records) and the sectors they touch.
    CounterSet counters = counter_sets::global_sectors() + counter_sets::global_load_instructions();
    counters.derived.push_back({"global_loads_per_record", "smsp__inst_executed_op_global_ld.sum", "", static_cast<double>(n) / 32.0});
    counters = counters.agree("global_loads_per_record", "loads_per_record", 0.01);
    measure_checked(ctx, point, p, out, &counters);
    return p;
}

void run_alignment(ContextState &ctx, const Params &params, Result &out) {
    const int block = static_cast<int>(params.integer("block_size"));
    const std::size_t n = params.is_auto("records") ? default_working_set(ctx.info()) / kMaxStride : params.size("records");
    const std::size_t bytes = n * kMaxStride + kMaxOffset + 1;
    require_memory(ctx, 2 * bytes, "alignment (" + std::to_string(n) + " records of up to 16 bytes, two arrays)");
    DeviceArray in(ctx, bytes), outbuf(ctx, bytes);
    GM_CUDA(kernels::launch_fill_pattern(in.as<std::uint32_t>(), bytes / 4, kSeed, ctx.stream()));
    std::vector<std::uint8_t> host(n * kMaxStride);
    std::map<std::string, double> bw;
    for (const Combination &c : Sweep(params, kRecordAxes).combinations()) {
        const int size = static_cast<int>(c.integer("record_sizes"));
        const std::string &v = c.text("variants");
        const int idx = kernels::alignment_kernel_index(v.c_str(), size, 0);
        if (idx < 0) fail(GM_ERROR_INTERNAL, "no " + v + " kernel for " + std::to_string(size) + "-byte records");
        const AlignmentKernel &k = kAlignmentKernels[idx];
        Series s = declared_series(std::to_string(size) + "-byte records, " + v + " (" + std::to_string(k.loads_per_record) +
                                       " x " + std::to_string(k.load_bytes) + "-byte load per record)",
                                   v, "record", "bytes", Quantity::DramBandwidth,
                                   {{"record_bytes", size}, {"kernel", k.kernel}, {"records", n}, {"block_size", block}});
        Point p = measure(ctx, {idx, 0}, in, outbuf, n, block, host, out);
        p.x = size;
        bw[v + std::to_string(size)] = bandwidth_gbs(p.bytes, p.time_ms.median);
        s.points.push_back(std::move(p));
        out.series.push_back(std::move(s));
    }
    const Sweep misaligned(params, kMisalignedAxes);
    for (const Combination &c : misaligned.combinations()) {
        const int size = static_cast<int>(c.integer("misaligned_sizes"));
        Series s = declared_series(std::to_string(size) + "-byte records at a misaligned base (widest legal word)", "misaligned",
                                   "base offset", "bytes", Quantity::DramBandwidth,
                                   {{"record_bytes", size}, {"records", n}, {"block_size", block}});
        for (long long off_ll : misaligned.xs()) {
            const int off = static_cast<int>(off_ll);
            const int idx = kernels::alignment_kernel_index("misaligned", size, word_for_offset(off, size));
            if (idx < 0) fail(GM_ERROR_INTERNAL, "no misaligned kernel for offset " + std::to_string(off));
            Point p = measure(ctx, {idx, off}, in, outbuf, n, block, host, out);
            p.x = off;
            bw["misaligned" + std::to_string(size) + "_o" + std::to_string(off)] = bandwidth_gbs(p.bytes, p.time_ms.median);
            s.points.push_back(std::move(p));
        }
        out.series.push_back(std::move(s));
    }
    for (int size : {8, 12, 16}) {
        const std::string z = std::to_string(size);
        record_ratio_if_measured(out, kLayoutOverPacked, bw, "aligned" + z, "packed" + z, {{"layout", "aligned"}, {"size", z}});
        record_ratio_if_measured(out, kLayoutOverPacked, bw, "vector" + z, "packed" + z, {{"layout", "vector"}, {"size", z}});
        for (const auto &[key, value] : bw)
            if (key.rfind("misaligned" + z + "_o", 0) == 0 && bw.count("aligned" + z))
                out.record(kMisalignedOverAligned, value / bw["aligned" + z], {{"case", key}});
    }
    out.notes.push_back("A struct of floats is aligned to 4 bytes, so the compiler copies it with one 4-byte load and store "
                        "per member. __align__(8) / __align__(16) allow one 8- or 16-byte access per record; the 12-byte "
                        "record then occupies 16 bytes (4 of padding), and its struct copy moves all 16. vector: explicit "
                        "float2 / float4 accesses, legal only because the records are 8- or 16-byte aligned.");
    out.notes.push_back("Misaligned: the records start `offset` bytes past an aligned address. An access of N bytes must be "
                        "N-byte aligned (a misaligned one faults), so these kernels use the widest word the offset allows: "
                        "1-byte loads at odd offsets, 2 at offsets 2 mod 4, 4 at 4 mod 8, 8 at 8 mod 16. The bytes moved are "
                        "the same; the instructions per record are not.");
    out.notes.push_back("loads_per_record and stores_per_record are the LDG and STG instructions per record in the sm_90 code "
                        "(a table in src/experiments/alignment/alignment.cuh, checked against the build by tests/experiments/alignment/check_load_table.py). "
                        "Bandwidth counts the record's data bytes read and written, not the padding.");
}

// How reports draw alignment's result and what they say it shows.
Chart alignment_chart() {
    Chart c;
    c.kind = "bar";
    c.leave_out = {"misaligned"};
    c.explanation = "Naturally aligned 1-, 2-, 4-, 8- and 16-byte accesses are one instruction; a struct of floats is only "
                    "4-byte aligned, so it is copied member by member. __align__ (or float2/float4) makes it one wide access; "
                    "the 12-byte record pays 4 bytes of padding for it. The misaligned series, listed below, copy records "
                    "from a base that only allows narrower words.";
    return c;
}

}  // namespace

void add_alignment_experiments(std::vector<Experiment> &out) {
    Experiment e;
    e.name = "alignment";
    e.guide_section = "Programming Guide: Device Memory Accesses (size and alignment requirement)";
    e.summary = "8-, 12- and 16-byte records copied as plain structs, with __align__, with float2/float4, and from a "
                "misaligned base with narrower words: instructions per record and bandwidth.";
    ParamSpec sizes = int_list_param("record_sizes", {8, 12, 16}, 8, 16, "record sizes", "bytes");
    sizes.allowed = {8, 12, 16};
    ParamSpec mis = int_list_param("misaligned_sizes", {8, 16}, 8, 16, "record sizes copied from a misaligned base", "bytes");
    mis.allowed = {8, 16};
    ParamSpec block = int_param("block_size", 256, 32, 1024, "threads per block", "threads");
    block.multiple_of = 32;
    e.params = {std::move(sizes),
                enum_list_param("variants", {"packed", "aligned", "vector"}, {"packed", "aligned", "vector"},
                                "packed (plain struct), aligned (__align__), vector (float2/float4)"),
                std::move(mis),
                int_list_param("offsets", {1, 2, 4, 8}, 1, 15, "misaligned base offsets", "bytes"),
                size_param("records", 0, 0, 1LL << 32, "records per copy; 0: max(4 x L2, 64 MiB) / 16 of them"),
                std::move(block)};
    e.axes = kRecordAxes;
    e.run = run_alignment;
    e.quick = {{"records", kMiB}};
    e.figures = {kLayoutOverPacked, kMisalignedOverAligned};
    e.compared = {
        {"misaligned8_o1_over_aligned", "8-byte loads 1 byte off / aligned"},
        {"aligned_over_packed_r12", "aligned / packed, 12-byte records"},
    };
    e.chart = alignment_chart();
    out.push_back(std::move(e));
}

}  // namespace gmlab
