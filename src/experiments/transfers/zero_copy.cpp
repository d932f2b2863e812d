// Experiment family "zero copy": a kernel that reads and writes mapped
// page-locked host memory directly, coalesced and strided, against explicit
// copies to the device, the kernel there, and a copy back.
#include <cstring>
#include <string>
#include <vector>

#include "core/device/host_memory.hpp"
#include "core/error.hpp"
#include "core/experiment/point_protocol.hpp"
#include "core/experiment/registry.hpp"
#include "core/measurement/harness.hpp"
#include "core/measurement/verify.hpp"
#include "core/units.hpp"
#include "experiments/common/point_checks.hpp"
#include "experiments/common/transfer_common.hpp"
#include "experiments/transfers/transfers.cuh"
#include "shared_kernels/pattern.hpp"

namespace gmlab {

namespace {

constexpr std::uint32_t kSeed = 0x2e40;

// The headline figures.
const Figure kCoalescedGbs{"{mode}_coalesced_gbs", "GB/s", Better::Higher,
                           "host-link bandwidth, both directions' bytes, of the coalesced kernel on mapped host memory "
                           "(mode mapped) or of explicit copies around it (mode explicit)"};
const Figure kExplicitOverMapped{"explicit_over_mapped_{pattern}", "ratio", Better::Neither,
                                 "time of explicit copies around the kernel over the time of the kernel on mapped host "
                                 "memory, {pattern} accesses: above 1, mapped memory was faster"};
const Figure kIntegrated{"integrated", "count", Better::Neither,
                         "1 where the device is integrated (shares physical memory with the host), else 0"};

// zero_copy's arrays: mapped pinned input and output on the host (and their
// device pointers), and device copies of both for the explicit path.
struct ZeroCopyArrays {
    std::size_t n, bytes;
    PinnedHostBuffer &in, &out;
    DeviceArray &din, &dout;
    std::uint32_t *map_in, *map_out;
};

// The kernel on the mapped memory, or copies in, the kernel on the device and
// a copy out.
Launch zero_copy_launch(const ZeroCopyArrays &a, std::size_t s_words, bool mapped) {
    return [&a, s_words, mapped](cudaStream_t s) -> cudaError_t {
        if (mapped) return kernels::launch_scale_permuted(a.map_in, a.map_out, a.n, s_words, s);
        if (cudaError_t e = cudaMemcpyAsync(a.din.get(), a.in.get(), a.bytes, cudaMemcpyHostToDevice, s); e != cudaSuccess)
            return e;
        if (cudaError_t e = kernels::launch_scale_permuted(a.din.as<std::uint32_t>(), a.dout.as<std::uint32_t>(), a.n, s_words, s);
            e != cudaSuccess)
            return e;
        return cudaMemcpyAsync(a.out.get(), a.dout.get(), a.bytes, cudaMemcpyDeviceToHost, s);
    };
}

// One variant's series of one point: checked, timed, then counted (sectors
// per request of the mapped, or device, accesses). Returns the median time.
double measure_zero_copy(ContextState &ctx, const ZeroCopyArrays &a, const std::string &pattern, std::size_t s_words,
                         bool mapped, const CounterSet &sectors, Result &out) {
    const std::string mode = mapped ? "mapped" : "explicit", variant = mode + "_" + pattern;
    const std::size_t n = a.n;
    const std::uint32_t *hin = a.in.as<std::uint32_t>(), *hout = a.out.as<std::uint32_t>();
    CheckedLaunch c;
    c.launch = zero_copy_launch(a, s_words, mapped);
    c.poison = {{a.dout.get(), a.bytes}};
    c.check = [&, variant] {
        verify_equal(hout, n, [&](std::uint64_t j) { return 3u * hin[j] + 1u; }, "zero_copy " + variant,
                     "every output word in host memory compared with 3 x input + 1", out);
    };
    std::memset(a.out.get(), 0, a.bytes);  // the output the check reads is host memory: poisoned here
    const std::string name = std::string(mapped ? "mapped host memory" : "explicit copies + kernel") + ", " +
                             (s_words == 1 ? std::string("coalesced") : "stride " + std::to_string(s_words) + " words");
    Series sr = declared_series(name, variant, "array", "bytes", Quantity::LinkBandwidth,
                                nlohmann::json{{"stride_words", s_words}, {"mapped", mapped}, {"elements", n}});
    Point p;
    p.x = static_cast<double>(a.bytes);
    p.bytes = 2.0 * static_cast<double>(a.bytes);  // each word read from and written to host memory once
    measure_checked(ctx, c, p, out, &sectors);
    const double ms = p.time_ms.median;
    // Both directions over the link in one time: shown beside the pinned copies of other experiments.
    if (pattern == "coalesced") out.record(kCoalescedGbs, bandwidth_gbs(p.bytes, ms), {{"mode", mode}});
    sr.points.push_back(std::move(p));
    out.series.push_back(std::move(sr));
    return ms;
}

void run_zero_copy(ContextState &ctx, const Params &params, Result &out) {
    const DeviceInfo &dev = ctx.info();
    use_host_link_reference(dev, 2, out);
    int can_map = 0;
    GM_CUDA(cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, ctx.device()));
    if (!can_map) fail(GM_ERROR_NOT_SUPPORTED, "zero_copy: device " + std::to_string(ctx.device()) + " cannot map host memory");
    const std::size_t stride = static_cast<std::size_t>(params.integer("stride"));
    const std::vector<std::string> patterns = params.texts("patterns");
    std::size_t n = params.size("bytes") / 4;
    n = n / stride * stride;
    if (n == 0)
        invalid("bytes must hold at least stride (" + std::to_string(stride) + ") 4-byte words, got " +
                std::to_string(params.size("bytes")));
    const std::size_t bytes = n * 4;
    require_memory(ctx, 2 * bytes, "zero_copy (device input and output for the explicit copies)");
    require_host_memory(2 * bytes, ctx.settings.memory_fraction, "zero_copy (mapped pinned input and output)");
    PinnedHostBuffer in(bytes, cudaHostAllocMapped, "zero_copy input");
    PinnedHostBuffer outh(bytes, cudaHostAllocMapped, "zero_copy output");
    DeviceArray din(ctx, bytes), dout(ctx, bytes);
    std::uint32_t *map_in = nullptr, *map_out = nullptr;
    GM_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void **>(&map_in), in.get(), 0));
    GM_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void **>(&map_out), outh.get(), 0));
    fill_pattern_host(in.get(), bytes, kSeed);
    const ZeroCopyArrays arrays{n, bytes, in, outh, din, dout, map_in, map_out};
    const CounterSet sectors = counter_sets::global_sectors();
    for (const std::string &pattern : patterns) {
        const std::size_t s_words = pattern == "coalesced" ? 1 : stride;
        const double mapped_ms = measure_zero_copy(ctx, arrays, pattern, s_words, true, sectors, out);
        const double explicit_ms = measure_zero_copy(ctx, arrays, pattern, s_words, false, sectors, out);
        out.record(kExplicitOverMapped, explicit_ms / mapped_ms, {{"pattern", pattern}});
    }
    out.record(kIntegrated, dev.integrated ? 1 : 0);
    out.notes.push_back("The kernel computes out[j] = 3 in[j] + 1 over every word, threads visiting the words as a permutation "
                        "in which neighbouring threads are `stride` words apart (1 for coalesced). mapped: in and out are "
                        "page-locked host memory allocated with cudaHostAllocMapped, the kernel reaches them through "
                        "cudaHostGetDevicePointer. explicit: the same buffers copied to the device, the kernel there, and the "
                        "result copied back, all in the timed interval. summary explicit_over_mapped_* above 1 means mapped "
                        "memory was faster.");
    out.notes.push_back(std::string("This device reports integrated = ") + (dev.integrated ? "true" : "false") + ". " +
                        (dev.integrated
                             ? "It shares physical memory with the host: the guide advises mapped pinned memory here, "
                               "because explicit copies only duplicate data that is already in the same DRAM."
                             : "It is a discrete GPU: every access to mapped memory crosses the host link, so the guide "
                               "advises it only for data read or written once, with coalesced accesses. On integrated GPUs "
                               "(integrated = true), mapped pinned memory is the recommended path, because device and host "
                               "share physical memory and copies would be superfluous."));
    out.notes.push_back("Strided access to mapped memory turns each 4-byte access into its own transaction over the link, so "
                        "the strided mapped series shows what uncoalesced zero-copy costs.");
}

Chart zero_copy_chart() {
    Chart c;
    c.kind = "bar";
    c.explanation = "A kernel working directly on mapped page-locked host memory against explicit copies around the same "
                    "kernel. On a discrete GPU mapped memory pays the host link on every access: it can win for data touched "
                    "once and coalesced, and loses badly when strided. On an integrated GPU (see the notes) host and device "
                    "share memory and the guide advises mapped memory, since copies are superfluous there.";
    return c;
}

}  // namespace

void add_zero_copy_experiments(std::vector<Experiment> &out) {
    Experiment e;
    e.name = "zero_copy";
    e.guide_section = "Best Practices Guide: Zero Copy";
    e.summary = "A kernel reading and writing mapped page-locked host memory, coalesced and strided, against explicit "
                "copies around the same kernel; the integrated property and its advice.";
    e.params = {
        size_param("bytes", 32LL << 20, 4, 1LL << 36, "bytes of input (and of output) in host memory"),
        int_param("stride", 32, 2, 4096, "words between neighbouring threads in the strided pattern", "words"),
        enum_list_param("patterns", {"coalesced", "strided"}, {"coalesced", "strided"}, "access patterns measured"),
    };
    e.axes = {{"patterns"}, ""};  // A series per access pattern.
    e.run = run_zero_copy;
    e.quick = {{"bytes", 4 * kMiB}};
    e.figures = {kCoalescedGbs, kExplicitOverMapped, kIntegrated, host_link_figure()};
    e.compared = {
        {"explicit_over_mapped_coalesced", "explicit copies / mapped, coalesced"},
    };
    e.chart = zero_copy_chart();
    e.consistency = {
        gmvocab::shown_beside("pinned_h2d_bandwidth", "explicit_coalesced_gbs", "copy in, kernel, copy out",
                              "both directions counted, and the kernel, in one time"),
        gmvocab::shown_beside("pinned_h2d_bandwidth", "mapped_coalesced_gbs", "kernel reading and writing mapped host memory",
                              "loads and stores over the link in both directions at once, both counted"),
    };
    out.push_back(std::move(e));
}

}  // namespace gmlab
