// Experiment family "compressible": device memory allocated with generic
// compression (cuMemCreate, CU_MEM_ALLOCATION_COMP_GENERIC) against plain
// memory from the same API, streaming data that compresses (zeros, a short
// block repeated) and data that does not (the random pattern): read and write
// bandwidth, and the DRAM bytes the counters see for each.
#include <algorithm>
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
#include "experiments/compressible/compressible.cuh"
#include "experiments/compressible/compressible_data.hpp"
#include "experiments/compressible/compressible_memory.hpp"
#include "shared_kernels/read_sum.cuh"

namespace gmlab {

namespace {

constexpr std::uint32_t kSeed = 0xc0de;
constexpr const char *kVerifiedHow =
    "every word written compared with the data on the device; every read summed and compared with the host's sum";

DataKind data_kind(const std::string &name) {
    if (name == "zeros") return DataKind::Zeros;
    if (name == "repeated") return DataKind::Repeated;
    return DataKind::Random;
}

// The headline figures, per data kind ({data}: zeros, repeated, random) and
// operation ({operation}: read, write). The DRAM bytes' ratio comes first:
// its name is also an instance of the bandwidth ratio's pattern, and a key is
// the first declared figure it matches.
const Figure kDramBytesCompressibleOverPlain{
    "{data}_{operation}_dram_bytes_compressible_over_plain", "ratio", Better::Lower,
    "DRAM bytes the counters see for one pass ({operation}, {data}) over compressible memory over the same pass over plain "
    "memory: below 1, compression saved bytes"};
const Figure kCompressibleOverPlain{"{data}_{operation}_compressible_over_plain", "ratio", Better::Higher,
                                    "DRAM bandwidth of one pass ({operation}, {data}) over compressible memory over the same "
                                    "pass over plain memory: above 1, compression helped"};
const Figure kCompressibleGbs{"{data}_{operation}_compressible_gbs", "GB/s", Better::Higher,
                              "DRAM bandwidth of one pass ({operation}, {data}) over memory allocated with generic compression"};
const Figure kPlainGbs{"{data}_{operation}_plain_gbs", "GB/s", Better::Higher,
                       "DRAM bandwidth of one pass ({operation}, {data}) over plain memory from the same API"};
const Figure kSupported{"generic_compression_supported", "count", Better::Neither,
                        "1 where the device reports CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED, else 0"};
const Figure kGranted{"compression_granted", "count", Better::Neither,
                      "1 where cuMemCreate granted the compressible allocation its compression, else 0"};
const Figure kBytes{"bytes", "bytes", Better::Neither, "size of each array measured, whole allocation granules"};
const Figure kGranularity{"granularity_bytes", "bytes", Better::Neither,
                          "the allocation granularity both compressible and plain memory are rounded to (the larger "
                          "of the two) on this device"};

// A series per memory, data kind and operation, each one point (the array).
// The memory axis is walked compressible first whatever the order given
// (where compression is not granted nothing is measured), so the run sweeps
// the passes over each allocation, kPassAxes, inside its own memory loop.
const SweepAxes kAxes{{"memory", "data", "operations"}, ""};
const SweepAxes kPassAxes{{"data", "operations"}, ""};

// Measures one allocation with every data kind and operation asked for.
class StreamRunner {
public:
    StreamRunner(ContextState &ctx, Result &out) : ctx_(ctx), out_(out), scratch_(ctx, sizeof(unsigned long long)) {}

    void run(const VmmAllocation &mem, const std::string &memory, const Sweep &passes) {
        for (const Combination &c : passes.combinations()) {
            const std::string &d = c.text("data"), &op = c.text("operations");
            Series s;
            s.name = (memory == "compressible" ? "compressible memory, " : "plain memory, ") + d + ", " + op;
            s.variant = memory + "_" + d + "_" + op;
            s.x_name = "array";
            s.x_unit = "bytes";
            s.quantity = Quantity::DramBandwidth;
            s.attributes = {{"memory", memory}, {"data", d}, {"operation", op},
                            {"compression_granted", mem.compression_granted()}};
            s.points.push_back(op == "read" ? read(mem, data_kind(d), s.variant, memory == "plain")
                                            : write(mem, data_kind(d), s.variant));
            out_.series.push_back(std::move(s));
        }
    }

private:
    int sms() const { return ctx_.info().multiprocessors; }
    unsigned long long *scratch() const { return scratch_.as<unsigned long long>(); }

    // A point of one pass over the array, with the uncompressed model beside it.
    static Point point(const VmmAllocation &mem) {
        Point p;
        p.x = static_cast<double>(mem.bytes());
        p.bytes = static_cast<double>(mem.bytes());
        // The uncompressed model: one pass moves the array once through DRAM.
        p.predicted["dram_bytes"] = static_cast<double>(mem.bytes());
        return p;
    }

    // The write over the poisoned array, checked on the device: the words that
    // differ from the data written are counted into the scratch word.
    Point write(const VmmAllocation &mem, DataKind kind, const std::string &what) {
        void *p = mem.get();
        const std::size_t n16 = mem.bytes() / 16;
        const int sm = sms();
        unsigned long long *bad = scratch(), *wrong = &host_count_;
        CheckedLaunch c;
        c.launch = [p, n16, kind, sm](cudaStream_t s) { return kernels::launch_write_data(p, n16, kind, kSeed, sm, s); };
        c.poison = {{p, mem.bytes()}};
        c.download = [p, n16, kind, sm, bad, wrong](cudaStream_t s) {
            GM_CUDA(cudaMemsetAsync(bad, 0, sizeof *bad, s));
            GM_CUDA(kernels::launch_count_bad_words(p, n16, kind, kSeed, bad, sm, s));
            GM_CUDA(cudaMemcpyAsync(wrong, bad, sizeof *wrong, cudaMemcpyDeviceToHost, s));
        };
        c.check = [this, &mem, what] {
            if (host_count_ != 0)
                verification_failed("compressible " + what + " (words that differ from the data written)", 0, "0",
                                    std::to_string(host_count_));
            out_.verified(mem.bytes() / 4, kVerifiedHow);
        };
        Point pt = point(mem);
        const CounterSet set = counter_sets::dram();
        measure_checked(ctx_, c, pt, out_, &set);
        return pt;
    }

    // The read of data written first, checked by its sum: the kernel adds
    // every word into the scratch word, zeroed before.
    Point read(const VmmAllocation &mem, DataKind kind, const std::string &what, bool plain) {
        void *p = mem.get();
        const std::size_t n16 = mem.bytes() / 16;
        const int sm = sms();
        unsigned long long *sum = scratch();
        GM_CUDA(kernels::launch_write_data(p, n16, kind, kSeed, sm, ctx_.stream()));
        GM_CUDA(cudaMemsetAsync(sum, 0, sizeof *sum, ctx_.stream()));
        CheckedLaunch c;
        c.launch = [p, n16, sum](cudaStream_t s) { return kernels::launch_read_sum(p, n16, sum, s); };
        c.download = download_to(&host_count_, sum, sizeof host_count_);
        c.reads_only = true;  // timed from a clean L2, as read_write's read: no flush write-back to pay for
        c.check = [this, &mem, kind, what] {
            const std::uint64_t want =
                parallel_sum(mem.bytes() / 4, [kind](std::uint64_t i) -> std::uint64_t { return data_word(kind, i, kSeed); });
            if (host_count_ != want)
                verification_failed("compressible " + what + " (the sum of every word read)", 0, std::to_string(want),
                                    std::to_string(host_count_));
            out_.verified(mem.bytes() / 4, kVerifiedHow);
        };
        // Plain memory reads the array once from DRAM: the counters must say so.
        const CounterSet set = plain ? counter_sets::dram().agree("dram__bytes_read.sum", "dram_bytes", 0.05) : counter_sets::dram();
        Point pt = point(mem);
        measure_checked(ctx_, c, pt, out_, &set);
        return pt;
    }

    ContextState &ctx_;
    Result &out_;
    DeviceArray scratch_;
    unsigned long long host_count_ = 0;  // the scratch word, downloaded for a check
};

// Bandwidth and DRAM-byte ratios of compressible over plain memory, per data kind and operation.
void summarize(Result &out) {
    std::map<std::string, const Point *> by;
    for (const Series &s : out.series) by[s.variant] = &s.points.front();
    for (const auto &[variant, p] : by) {
        if (variant.rfind("compressible_", 0) != 0) continue;
        const std::string rest = variant.substr(std::string("compressible_").size());
        const std::size_t cut = rest.find('_');
        const FigureAt at = {{"data", rest.substr(0, cut)}, {"operation", rest.substr(cut + 1)}};
        out.record(kCompressibleGbs, bandwidth_gbs(p->bytes, p->time_ms.median), at);
        auto plain = by.find("plain_" + rest);
        if (plain == by.end()) continue;
        const Point &q = *plain->second;
        out.record(kPlainGbs, bandwidth_gbs(q.bytes, q.time_ms.median), at);
        out.record(kCompressibleOverPlain, q.time_ms.median / p->time_ms.median, at);
        const char *metric = rest.size() > 5 && rest.compare(rest.size() - 5, 5, "_read") == 0 ? "dram__bytes_read.sum"
                                                                                                : "dram__bytes_write.sum";
        auto a = p->counters.find(metric), b = q.counters.find(metric);
        if (a != p->counters.end() && b != q.counters.end() && b->second > 0)
            out.record(kDramBytesCompressibleOverPlain, a->second / b->second, at);
    }
}

void run_compressible(ContextState &ctx, const Params &params, Result &out) {
    std::size_t bytes = params.is_auto("bytes") ? default_working_set(ctx.info()) : params.size("bytes");
    const std::vector<std::string> memory = params.texts("memory");
    const CompressionSupport support = query_compression_support(ctx.device());
    out.record(kSupported, support.compression ? 1 : 0);
    if (!support.vmm) {
        out.not_applicable("compressible: device " + std::to_string(ctx.device()) +
                           " does not support the virtual memory management API "
                           "(CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 0) that allocates compressible "
                           "memory. Not applicable, not a failure.");
        return;
    }
    if (!support.compression) {
        out.not_applicable("compressible: device " + std::to_string(ctx.device()) +
                           " reports CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED = 0: it cannot allocate "
                           "compressible memory (compute data compression is an Ampere-and-later feature of some "
                           "data-centre GPUs). Not applicable, not a failure.");
        return;
    }
    // Whole allocation granules, and whole 16-byte vectors for the kernels.
    bytes = (bytes + support.granularity - 1) / support.granularity * support.granularity;
    require_memory(ctx, bytes, "compressible (one array at a time, rounded up to the " +
                                   std::to_string(support.granularity) + "-byte allocation granularity)");
    out.record(kBytes, static_cast<double>(bytes));
    out.record(kGranularity, static_cast<double>(support.granularity));
    StreamRunner runner(ctx, out);
    // Compressible first: where the driver does not grant compression,
    // nothing is measured.
    std::vector<std::string> order;
    for (const char *m : {"compressible", "plain"})
        if (std::find(memory.begin(), memory.end(), m) != memory.end()) order.push_back(m);
    for (const std::string &m : order) {
        VmmAllocation mem(ctx.device(), bytes, m == "compressible", "compressible (" + m + " memory)");
        ctx.note_alloc(bytes);
        struct Noted {
            ContextState &c;
            std::size_t b;
            ~Noted() { c.note_free(b); }
        } noted{ctx, bytes};
        if (m == "compressible") {
            out.record(kGranted, mem.compression_granted() ? 1 : 0);
            if (!mem.compression_granted()) {
                out.not_applicable("compressible: the device reports generic compression, but cuMemCreate did not "
                                   "grant it (the allocation's properties say compressionType "
                                   "CU_MEM_ALLOCATION_COMP_NONE; the driver may have run out of compression resources, "
                                   "or this configuration, e.g. a virtual GPU or MIG instance, does not allow it). Not "
                                   "applicable, not a failure.");
                return;
            }
        }
        runner.run(mem, m, Sweep(params, kPassAxes));
    }
    summarize(out);
    out.notes.push_back(
        "Memory from cuMemCreate (the driver's virtual memory management API, reached through "
        "cudaGetDriverEntryPointByVersion), mapped read-write for this device: compressible with "
        "allocFlags.compressionType = CU_MEM_ALLOCATION_COMP_GENERIC, checked granted on the handle with "
        "cuMemGetAllocationPropertiesFromHandle, and plain without it, the same size (summary bytes, a whole number of "
        "granules). write: a kernel writes the whole array with 16-byte stores; read: a kernel reads and sums it. "
        "Every write is checked word by word on the device and every read's sum against the host's.");
    out.notes.push_back(
        "Data: zeros, a 32-byte block repeated, and the random pattern. With generic compression the memory "
        "system stores compressible blocks in fewer DRAM bytes, so zeros and the repeated block should move fewer "
        "DRAM bytes (counters dram__bytes_read.sum / dram__bytes_write.sum against predicted.dram_bytes, the "
        "uncompressed model: the array once) and may stream faster; random data does not compress and should "
        "gain nothing. Summary <data>_<operation>_compressible_over_plain is the bandwidth ratio (above 1: "
        "compression helped) and _dram_bytes_compressible_over_plain the DRAM bytes' ratio (below 1: fewer "
        "bytes). Plain memory's reads must count the array once in DRAM (agreement within 5%); the writes' counts "
        "are shown only, since dirty lines still in L2 when the kernel ends are written later.");
}

Chart compressible_chart() {
    Chart c;
    c.kind = "bar";
    c.explanation = "Memory allocated with generic compression against plain memory, streaming zeros, a repeated 32-byte "
                    "block and random data. Data that compresses can move fewer DRAM bytes (counters in the table) and "
                    "stream faster; random data cannot compress and should gain nothing. Not applicable where the "
                    "device does not grant compressible memory.";
    return c;
}

}  // namespace

void add_compressible_experiments(std::vector<Experiment> &out) {
    Experiment e;
    e.name = "compressible";
    e.guide_section = "CUDA Driver API: Virtual Memory Management, compressible memory (CU_MEM_ALLOCATION_COMP_GENERIC)";
    e.summary = "Memory with generic compression against plain memory, streaming zeros, a repeated block and "
                "random data: read and write bandwidth and DRAM bytes; not applicable where the device does not "
                "grant compression.";
    // Default, H100 estimate: 2 kinds of memory x 3 data x 2 operations, each
    // point a ~0.1 ms pass over max(4 x L2, 64 MiB) repeated up to 100 times
    // behind an L2 flush (~25 ms), plus the checks: about 0.3-0.4 s.
    e.params = {
        size_param("bytes", 0, 0, 1LL << 40, "array size (0: max(4 x L2, 64 MiB)), rounded up to the allocation granularity"),
        enum_list_param("memory", {"compressible", "plain"}, {"compressible", "plain"}, "memory with and without generic compression"),
        enum_list_param("data", {"zeros", "repeated", "random"}, {"zeros", "repeated", "random"},
                        "data streamed: zeros and a repeated 32-byte block compress, random does not"),
        enum_list_param("operations", {"read", "write"}, {"read", "write"}, "what the kernel does with the array"),
    };
    e.axes = kAxes;
    e.run = run_compressible;
    e.quick = {{"bytes", 16 * kMiB}};
    e.figures = {kDramBytesCompressibleOverPlain, kCompressibleOverPlain, kCompressibleGbs, kPlainGbs,
                 kSupported,                      kGranted,               kBytes,           kGranularity};
    e.compared = {
        {"zeros_read_compressible_over_plain", "compressible / plain memory, reading zeros"},
        {"random_read_compressible_over_plain", "compressible / plain memory, reading random data"},
        {"zeros_read_dram_bytes_compressible_over_plain", "DRAM bytes read, compressible / plain, zeros"},
    };
    e.chart = compressible_chart();
    e.consistency = {
        gmvocab::shown_beside("dram_copy_bandwidth", "random_read_plain_gbs", "plain memory read, random data",
                              "reads only: a read stream and a copy (reads and writes sharing the bus) reach different rates"),
    };
    out.push_back(std::move(e));
}

}  // namespace gmlab
