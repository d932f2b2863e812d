// Experiment family "managed memory": a kernel reading (and one writing)
// cudaMallocManaged memory first touched on the host, with the driver
// migrating pages on demand, after a prefetch, with read duplication, and
// mapped remotely; against an explicit copy and mapped pinned memory; and a
// host/device ping-pong. The unified-memory counters say what each point cost
// in faults and migrated bytes, and a fitted model splits the on-demand time
// into the two.
#include <algorithm>
#include <cstring>
#include <map>
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
#include "experiments/managed_memory/fault_model.hpp"
#include "experiments/managed_memory/managed_common.hpp"
#include "experiments/managed_memory/managed_memory.cuh"
#include "experiments/managed_memory/ping_pong.hpp"
#include "shared_kernels/pattern.hpp"
#include "shared_kernels/read_sum.cuh"

namespace gmlab {

namespace {

constexpr std::uint32_t kSeed = 0x3a11, kWriteSeed = 0x3a12;
constexpr const char *kVerifiedHow =
    "every word written compared on the host; every read summed and compared with the host's sum";

// How a variant gets its array to the kernel.
enum class Path { OnDemandRead, OnDemandWrite, PrefetchRead, ReadMostlyRead, AccessedByRead, ExplicitCopyRead, MappedRead };

struct Variant {
    Path path;
    const char *name, *label;
    bool managed;
    // What a point's bytes / time is: the host link for every path that
    // moves the pages across it while timed, DRAM for read-mostly, whose
    // timed reads find the duplicated pages already on the device.
    Quantity quantity;
};

// The measured ways to get an array to a kernel, in the order they are run.
const Variant kVariants[] = {
    {Path::OnDemandRead, "on_demand_read", "on demand: read host-resident pages (GPU faults migrate them)", true,
     Quantity::LinkBandwidth},
    {Path::OnDemandWrite, "on_demand_write", "on demand: write host-resident pages", true, Quantity::LinkBandwidth},
    {Path::PrefetchRead, "prefetch_read", "cudaMemPrefetchAsync to the device, then the read", true, Quantity::LinkBandwidth},
    {Path::ReadMostlyRead, "read_mostly_read", "read-mostly: read duplicated pages the host also reads", true,
     Quantity::DramBandwidth},
    {Path::AccessedByRead, "accessed_by_read", "preferred location host + accessed by the device: read over the link", true,
     Quantity::LinkBandwidth},
    {Path::ExplicitCopyRead, "explicit_copy_read", "cudaMemcpy from pinned memory into cudaMalloc memory, then the read",
     false, Quantity::LinkBandwidth},
    {Path::MappedRead, "mapped_read", "mapped pinned host memory read directly", false, Quantity::LinkBandwidth},
};

// The headline figures: the device attributes that decide the paths, each
// path's bandwidth and the time ratios between paths at the largest size,
// and the fitted fault + link model.
const Figure kManagedMemory{"managed_memory", "flag", Better::Neither, "the device attribute managedMemory (1: supported)"};
const Figure kConcurrentAccess{"concurrent_managed_access", "flag", Better::Neither,
                               "the device attribute concurrentManagedAccess (1: the GPU faults on managed pages)"};
const Figure kPageableAccess{"pageable_memory_access", "flag", Better::Neither,
                             "the device attribute pageableMemoryAccess (1: the GPU reaches ordinary malloc memory)"};
const Figure kDirectFromHost{"direct_managed_mem_access_from_host", "flag", Better::Neither,
                             "the device attribute directManagedMemAccessFromHost (1: the host reads device-resident "
                             "managed memory in place)"};
const Figure kHostPageTables{"pageable_memory_access_uses_host_page_tables", "flag", Better::Neither,
                             "the device attribute pageableMemoryAccessUsesHostPageTables (1: the GPU walks the host's "
                             "page tables, ATS)"};
const Figure kCountersAvailable{"um_counters_available", "flag", Better::Neither,
                                "1 where the unified-memory counters were read for this run"};
const Figure kFitUsPerFaultGroup{"fit_us_per_fault_group", "us", Better::Lower,
                                 "the fitted cost of one GPU page-fault group, from the counted on-demand points"};
const Figure kFitLinkGbs{"fit_link_gbs", "GB/s", Better::Higher,
                         "the fitted bandwidth of the driver's migrations over the host link, from the counted "
                         "on-demand points"};
const Figure kFitPoints{"fit_points", "count", Better::Neither, "the counted on-demand points the model was fitted to"};
const Figure kBytesPerFaultGroup{"on_demand_read_bytes_per_fault_group", "bytes", Better::Neither,
                                 "counted bytes migrated per GPU fault group of the on-demand read, largest size"};
const Figure kTimeRatio{"{path}_over_{baseline}_time", "ratio", Better::Neither,
                        "time of one way to get the array to the kernel over another's, largest size"};
const Figure kPathGbs{"{path}_gbs", "GB/s", Better::Higher,
                      "the array's bytes over the time to get it to a kernel and read (or write) it one way, largest "
                      "size: over the host link, but for read_mostly_read's duplicated pages (device memory)"};

// What the driver and device allow, which decides the paths above.
struct ManagedAttributes {
    int managed = 0, concurrent = 0, pageable = 0, direct_from_host = 0, host_page_tables = 0, can_map = 0;
};

ManagedAttributes query_attributes(int device) {
    ManagedAttributes a;
    GM_CUDA(cudaDeviceGetAttribute(&a.managed, cudaDevAttrManagedMemory, device));
    GM_CUDA(cudaDeviceGetAttribute(&a.concurrent, cudaDevAttrConcurrentManagedAccess, device));
    GM_CUDA(cudaDeviceGetAttribute(&a.pageable, cudaDevAttrPageableMemoryAccess, device));
    GM_CUDA(cudaDeviceGetAttribute(&a.direct_from_host, cudaDevAttrDirectManagedMemAccessFromHost, device));
    GM_CUDA(cudaDeviceGetAttribute(&a.host_page_tables, cudaDevAttrPageableMemoryAccessUsesHostPageTables, device));
    GM_CUDA(cudaDeviceGetAttribute(&a.can_map, cudaDevAttrCanMapHostMemory, device));
    return a;
}

void report_attributes(const ManagedAttributes &a, Result &out) {
    out.record(kManagedMemory, a.managed);
    out.record(kConcurrentAccess, a.concurrent);
    out.record(kPageableAccess, a.pageable);
    out.record(kDirectFromHost, a.direct_from_host);
    out.record(kHostPageTables, a.host_page_tables);
    auto yes = [](int v) { return std::string(v ? "1" : "0"); };
    out.notes.push_back(
        "Device attributes that decide these paths: concurrentManagedAccess = " + yes(a.concurrent) +
        " (1: the GPU faults on managed pages and the driver migrates them on demand, host and device may touch them "
        "concurrently, prefetching and advice apply); pageableMemoryAccess = " + yes(a.pageable) +
        " (1: the GPU can also reach ordinary malloc memory, through HMM or ATS; 0: only managed and pinned memory); "
        "directManagedMemAccessFromHost = " + yes(a.direct_from_host) +
        " (1: the host reads device-resident managed memory in place, as on coherent NVLink-C2C systems; 0: a host "
        "access migrates the page back); pageableMemoryAccessUsesHostPageTables = " + yes(a.host_page_tables) +
        " (1: the GPU walks the host's page tables (ATS); read duplication and accessed-by advice do not apply).");
}

// Every word of the array is the pattern the write kernel writes.
void check_written(const std::uint32_t *w, std::size_t words, const std::string &what, Result &out) {
    verify_equal(w, words, [](std::uint64_t i) { return pattern_word(i, kWriteSeed); }, what, kVerifiedHow, out);
}

class SweepRunner {
public:
    SweepRunner(ContextState &ctx, const UnifiedMemoryCounting &counting, Result &out)
        : ctx_(ctx), counting_(counting), out_(out), sum_(ctx, sizeof(unsigned long long)) {}

    Point measure(const Variant &v, std::size_t bytes) {
        return v.managed ? managed(v, bytes) : unmanaged(v, bytes);
    }

private:
    // The point protocol's check of a read, from the launch's prepared state:
    // the sum zeroed (the kernel adds every word to it, so it is not poisoned),
    // one launch, the sum downloaded and compared with the host's.
    void check_read(const Launch &launch, const Prepare &prepare, std::size_t bytes, const std::string &what) {
        GM_CUDA(cudaStreamSynchronize(ctx_.stream()));
        if (prepare) prepare();
        unsigned long long *s = sum();
        unsigned long long got = 0;
        auto zeroed_then_launch = [&launch, s](cudaStream_t stream) -> cudaError_t {
            if (cudaError_t e = cudaMemsetAsync(s, 0, sizeof *s, stream); e != cudaSuccess) return e;
            return launch(stream);
        };
        auto check = [&] {
            const std::uint64_t want =
                parallel_sum(bytes / 4, [](std::uint64_t i) -> std::uint64_t { return pattern_word(i, kSeed); });
            if (got != want)
                verification_failed(what + " (the sum of every word read)", 0, std::to_string(want), std::to_string(got));
            out_.verified(bytes / 4, kVerifiedHow);
        };
        run_checked(ctx_, {zeroed_then_launch, {}, download_to(&got, s, sizeof got), check});
    }

    // The point protocol's check of the write, from the launch's prepared
    // state: one launch, then every word compared on the host. Managed pages
    // are not poisoned on the device (that would migrate them): the host's
    // first touch left bytes no write of the pattern leaves.
    void check_write(const Launch &launch, const Prepare &prepare, const ManagedBuffer &m, const std::string &what) {
        prepare();
        run_checked(ctx_, {launch, {}, {}, [&] { check_written(m.as<std::uint32_t>(), m.bytes() / 4, what, out_); }});
    }

    Point timed(const Launch &launch, const Prepare &prepare, std::size_t bytes) {
        Point p;
        p.x = static_cast<double>(bytes);
        p.bytes = static_cast<double>(bytes);
        p.time_ms = time_launch(ctx_, launch, prepare);
        return p;
    }

    Point managed(const Variant &v, std::size_t bytes) {
        const std::string name = v.name, what = "managed_memory " + name + " of " + size_text(bytes);
        const bool writes = v.path == Path::OnDemandWrite;
        const int device = ctx_.device(), sms = ctx_.info().multiprocessors;
        const std::size_t n16 = bytes / 16;
        cudaStream_t st = ctx_.stream();
        ManagedBuffer m(ctx_, bytes, what);
        // First touch on the host: every page is populated in host memory.
        if (writes)
            std::memset(m.get(), 0xA5, bytes);
        else
            fill_pattern_host(m.get(), bytes, kSeed);
        if (v.path == Path::ReadMostlyRead) m.advise(cudaMemAdviseSetReadMostly, device_location(device));
        if (v.path == Path::AccessedByRead) {
            m.advise(cudaMemAdviseSetPreferredLocation, host_location());
            m.advise(cudaMemAdviseSetAccessedBy, device_location(device));
        }
        // The state each launch starts from: every page on the host only; for
        // read-mostly, the host has just read every page (as a program that
        // reads the array on both sides would), which keeps the device's copy.
        Prepare prepare;
        if (v.path == Path::ReadMostlyRead) {
            prepare = [&m] { host_read_pages(m.get(), m.bytes()); };
        } else {
            prepare = [&m, st] {
                GM_CUDA(m.prefetch(host_location(), st));
                GM_CUDA(cudaStreamSynchronize(st));
            };
        }
        unsigned long long *s = sum();
        const bool prefetch = v.path == Path::PrefetchRead;
        Launch launch = [&m, writes, prefetch, n16, device, sms, s](cudaStream_t stream) -> cudaError_t {
            if (writes) return kernels::launch_managed_write_pattern(m.get(), n16, kWriteSeed, sms, stream);
            if (prefetch)
                if (cudaError_t e = m.prefetch(device_location(device), stream); e != cudaSuccess) return e;
            return kernels::launch_read_sum(m.get(), n16, s, stream);
        };
        if (v.path == Path::ReadMostlyRead) {
            // The variant is about reading duplicated pages: the device makes
            // its read-only copy once, before anything is counted or timed.
            GM_CUDA(launch(st));
            GM_CUDA(cudaStreamSynchronize(st));
        }
        // Counted first, from the state every first touch leaves: by the end of
        // the timed repetitions the driver's heuristics may have pinned or
        // remotely mapped pages that bounced, and a count then would show a
        // path the first kernel did not take.
        Point p;
        p.x = p.bytes = static_cast<double>(bytes);
        count_unified_memory_point(
            ctx_, counting_, prepare,
            [&] {
                GM_CUDA(launch(st));
                GM_CUDA(cudaStreamSynchronize(st));
            },
            p, out_);
        if (writes)
            check_write(launch, prepare, m, what);
        else
            check_read(launch, prepare, bytes, what);
        p.time_ms = time_launch(ctx_, launch, prepare);
        return p;
    }

    Point unmanaged(const Variant &v, std::size_t bytes) {
        const std::string name = v.name, what = "managed_memory " + name + " of " + size_text(bytes);
        const std::size_t n16 = bytes / 16;
        unsigned long long *s = sum();
        if (v.path == Path::MappedRead) {
            PinnedHostBuffer h(bytes, cudaHostAllocMapped, what);
            fill_pattern_host(h.get(), bytes, kSeed);
            void *mapped = nullptr;
            GM_CUDA(cudaHostGetDevicePointer(&mapped, h.get(), 0));
            Launch launch = [mapped, n16, s](cudaStream_t stream) {
                return kernels::launch_read_sum(mapped, n16, s, stream);
            };
            check_read(launch, {}, bytes, what);
            return timed(launch, {}, bytes);
        }
        PinnedHostBuffer src(bytes, cudaHostAllocDefault, what + " (source)");
        fill_pattern_host(src.get(), bytes, kSeed);
        DeviceArray d(ctx_, bytes);
        const void *host = src.get();
        void *dev = d.get();
        Launch launch = [host, dev, bytes, n16, s](cudaStream_t stream) -> cudaError_t {
            if (cudaError_t e = cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, stream); e != cudaSuccess) return e;
            return kernels::launch_read_sum(dev, n16, s, stream);
        };
        check_read(launch, {}, bytes, what);
        return timed(launch, {}, bytes);
    }

    unsigned long long *sum() const { return sum_.as<unsigned long long>(); }

    ContextState &ctx_;
    const UnifiedMemoryCounting &counting_;
    Result &out_;
    DeviceArray sum_;
};

double last_median(const Series &s) { return s.points.back().time_ms.median; }

// Whether a counted on-demand point's records are all there: every page was
// on the host and the kernel touches every page, so at least the array must
// have migrated, and CUPTI must not have dropped records. (On an H100 a read
// of 1 GiB reported 136 MB migrated: records the driver did not deliver.)
bool counts_complete(const Point &p) {
    auto d = p.counters.find("um_dropped_records");
    return p.counters.at("um_bytes_htod") >= p.bytes && (d == p.counters.end() || d->second == 0);
}

// The model over the on-demand points that were counted completely; predictions on each.
void fit_and_predict(std::vector<Series> &made, const UnifiedMemoryCounting &counting, Result &out) {
    std::vector<FaultModelPoint> pts;
    std::string incomplete;
    for (Series &s : made) {
        if (s.variant != "on_demand_read" && s.variant != "on_demand_write") continue;
        for (const Point &p : s.points) {
            auto g = p.counters.find("um_gpu_fault_groups");
            if (g == p.counters.end()) continue;
            if (!counts_complete(p)) {
                auto d = p.counters.find("um_dropped_records");
                incomplete += std::string(incomplete.empty() ? "" : "; ") + s.variant + " of " +
                              size_text(static_cast<std::size_t>(p.bytes)) + " (" +
                              size_text(static_cast<std::size_t>(p.counters.at("um_bytes_htod"))) +
                              " migrated reported, " + std::to_string(static_cast<long long>(d == p.counters.end() ? 0 : d->second)) +
                              " records dropped)";
                continue;
            }
            pts.push_back({g->second, p.counters.at("um_bytes_htod") + p.counters.at("um_bytes_dtoh"), p.time_ms.median});
        }
    }
    if (!incomplete.empty())
        out.notes.push_back("The counts of these points are incomplete, lower bounds, and left out of the model: " +
                            incomplete + ". Every page was on the host and the kernel touches each one, so at least "
                            "the array migrated; the driver reported less.");
    const FaultModel m = fit_fault_model(pts);
    if (!m.fitted) {
        const std::string why = counting.on ? m.why_not
                                            : "it needs the counted faults and bytes, and the unified-memory counters "
                                              "were not read (" + counting.reason + ")";
        out.notes.push_back("No model fitted: " + why + ".");
        return;
    }
    for (Series &s : made) {
        if (s.variant != "on_demand_read" && s.variant != "on_demand_write") continue;
        for (Point &p : s.points) {
            auto g = p.counters.find("um_gpu_fault_groups");
            if (g == p.counters.end()) continue;
            const double ms = m.predict_ms(g->second, p.counters.at("um_bytes_htod") + p.counters.at("um_bytes_dtoh"));
            p.predicted["fault_model_ms"] = ms;
            if (ms > 0) p.predicted["fault_model_gbs"] = bandwidth_gbs(p.bytes, ms);
        }
    }
    out.record(kFitUsPerFaultGroup, m.us_per_fault_group());
    out.record(kFitLinkGbs, m.link_gbs());
    out.record(kFitPoints, static_cast<double>(m.points));
}

// Bandwidth of each variant at the largest size, and the time ratios the
// notes talk about.
void summarize(const std::vector<Series> &made, Result &out) {
    std::map<std::string, const Series *> by;
    for (const Series &s : made) by[s.variant] = &s;
    for (const Series &s : made) {
        const Point &p = s.points.back();
        out.record(kPathGbs, bandwidth_gbs(p.bytes, p.time_ms.median), {{"path", s.variant}});
    }
    // Each ratio names its two ways in the summary key as the notes do.
    auto ratio = [&](const char *a, const char *b, const char *path, const char *baseline) {
        if (by.count(a) && by.count(b))
            out.record(kTimeRatio, last_median(*by[a]) / last_median(*by[b]), {{"path", path}, {"baseline", baseline}});
    };
    ratio("on_demand_read", "prefetch_read", "on_demand", "prefetch");
    ratio("on_demand_read", "explicit_copy_read", "on_demand", "explicit_copy");
    ratio("read_mostly_read", "on_demand_read", "read_mostly", "on_demand");
    ratio("accessed_by_read", "on_demand_read", "accessed_by", "on_demand");
    ratio("mapped_read", "on_demand_read", "mapped", "on_demand");
    if (by.count("on_demand_read")) {
        const Point &p = by["on_demand_read"]->points.back();
        auto it = p.counters.find("um_bytes_per_fault_group");
        if (it != p.counters.end()) out.record(kBytesPerFaultGroup, it->second);
    }
}

// What each point did, the model and the counters, in the notes.
void add_managed_notes(const UnifiedMemoryCounting &counting, Result &out) {
    out.notes.push_back(
        "Each point reads (or writes) the whole array once, with a grid of at most 8 blocks per multiprocessor "
        "walking 16-byte vectors; the read sums every word and the sum is compared with the host's, the write is "
        "compared word by word on the host. Managed arrays are first touched on the host. Before every launch, "
        "outside the timed interval, the pages go back to the host (cudaMemPrefetchAsync to the host), so each "
        "repetition starts from host-resident pages: on_demand_* pay the GPU's page faults and the migration; "
        "prefetch_read times cudaMemPrefetchAsync to the device and the read together; read_mostly_read sets "
        "cudaMemAdviseSetReadMostly and has the host read every page before each launch, which keeps the device's "
        "read-only copy (read duplication: after the first launch nothing migrates); accessed_by_read sets the "
        "preferred location to the host and accessed-by to the device, so the pages stay on the host and the GPU "
        "reads them over the link without faults. explicit_copy_read times a cudaMemcpyAsync from pinned memory "
        "into cudaMalloc memory and the read; mapped_read reads mapped pinned host memory directly.");
    out.notes.push_back(
        "Model (on_demand_* points): time = fault groups x cost per fault group + migrated bytes / link bandwidth, "
        "both constants fitted by least squares over the counted points (summary fit_us_per_fault_group and "
        "fit_link_gbs; predicted.fault_model_ms per point). Compare fit_link_gbs with the transfer experiment's "
        "pinned_h2d_peak_gbs (pinned host-to-device cudaMemcpy on the same link): the driver's migrations use the "
        "copy engines too, so the fitted bandwidth should approach it, and the rest of the on-demand time is the "
        "faults' handling.");
    out.notes.push_back(
        "Unified-memory counters (CUPTI activity API, one more launch per managed point, before the timed ones, "
        "from the state the first touch leaves): um_bytes_htod / um_bytes_dtoh (bytes migrated), "
        "um_gpu_page_faults (faulting pages), um_gpu_fault_groups (the fault groups the driver served), "
        "um_cpu_page_faults, um_dropped_records (records CUPTI could not deliver), and where the driver "
        "reports them um_thrashing, um_throttling and um_remote_map_bytes. " +
        (counting.on ? std::string("They were read for this run.")
                     : "They were not read for this run: " + counting.reason + "."));
}

void run_managed_memory(ContextState &ctx, const Params &params, Result &out) {
    const ManagedAttributes attrs = query_attributes(ctx.device());
    report_attributes(attrs, out);
    use_host_link_reference(ctx.info(), 1, out);
    if (!attrs.managed) {
        out.not_applicable("managed_memory: device " + std::to_string(ctx.device()) +
                           " does not support managed memory (managedMemory = 0). Not applicable, not a failure.");
        return;
    }
    if (!attrs.concurrent) {
        out.not_applicable(
            "managed_memory: device " + std::to_string(ctx.device()) +
            " has concurrentManagedAccess = 0 (before Pascal, on Windows, or under some virtualisation): its GPU "
            "does not fault on managed pages, the driver migrates whole allocations at each launch, and "
            "prefetching and the advice measured here are not supported. Not applicable, not a failure.");
        return;
    }
    const std::vector<std::size_t> sizes =
        managed_sweep(params.size("min_size"), params.size("max_size"), params.number("points_per_octave"));
    const std::vector<std::string> asked = params.texts("variants");
    const std::vector<long long> pages = params.integers("pingpong_pages");
    auto wants = [&](const std::string &v) { return std::find(asked.begin(), asked.end(), v) != asked.end(); };
    // Everything is checked before the first allocation: one array at a time,
    // on the device once migrated and in host memory (managed, pinned or mapped).
    std::size_t largest = 0;
    for (const Variant &v : kVariants)
        if (wants(v.name)) largest = sizes.back();
    if (wants("ping_pong")) largest = std::max(largest, static_cast<std::size_t>(*std::max_element(pages.begin(), pages.end())) * 4096);
    require_memory(ctx, largest, "managed_memory (the largest array, on the device once migrated)");
    require_host_memory(largest, ctx.settings.memory_fraction, "managed_memory (the largest array in host memory)");
    const UnifiedMemoryCounting counting = unified_memory_counting(ctx);
    out.record(kCountersAvailable, counting.on ? 1 : 0);
    if (!counting.on && ctx.settings.counters == CounterMode::On)
        out.counter_errors.push_back("unified-memory counters were asked for (counters = on) but are not available: " +
                                     counting.reason);

    SweepRunner runner(ctx, counting, out);
    std::vector<Series> made;
    for (const Variant &v : kVariants) {
        if (!wants(v.name)) continue;
        if (v.path == Path::MappedRead && !attrs.can_map) {
            out.notes.push_back("mapped_read was left out: this device cannot map host memory (canMapHostMemory = 0).");
            continue;
        }
        Series s;
        s.name = v.label;
        s.variant = v.name;
        s.x_name = "array";
        s.x_unit = "bytes";
        s.quantity = v.quantity;
        s.attributes = {{"managed", v.managed}};
        for (std::size_t bytes : sizes) s.points.push_back(runner.measure(v, bytes));
        made.push_back(std::move(s));
    }
    fit_and_predict(made, counting, out);
    summarize(made, out);
    for (Series &s : made) out.series.push_back(std::move(s));
    if (wants("ping_pong")) out.series.push_back(measure_ping_pong(ctx, pages, counting, out));
    if (out.series.empty()) {
        out.not_applicable("managed_memory: none of the variants asked for can run on this device (see the notes).");
        return;
    }

    add_managed_notes(counting, out);
}

// How reports draw it: bandwidth against the array, log-log, per path, with
// the fitted model dashed; the ping-pong (times) in the tables.
Chart managed_memory_chart() {
    Chart c;
    c.kind = "line";
    c.x_title = "array (MiB)";
    c.x_log = true;
    c.y_log = true;
    c.leave_out = {"ping_pong"};  // microseconds per round trip, not GB/s: in the table only
    c.prediction = "predicted.fault_model_gbs";
    c.prediction_relative = false;
    c.prediction_label = "model: fault groups x cost + bytes / link";
    c.explanation = "Getting an array from host memory to a kernel, per path. On demand, the GPU faults on each group of "
                    "host-resident managed pages and the driver migrates them: slow for small arrays, approaching the link "
                    "as the driver migrates larger blocks. A prefetch migrates in bulk first; an explicit cudaMemcpy from "
                    "pinned memory is the link's best; read-mostly keeps a device copy that the host's reads leave in "
                    "place; accessed-by and mapped pinned memory read over the link without migrating. The dashed line "
                    "is the fitted fault + link model; the counters (table) give each point's faults and migrated bytes.";
    return c;
}

}  // namespace

void add_managed_memory_experiments(std::vector<Experiment> &out) {
    Experiment e;
    e.name = "managed_memory";
    e.guide_section = "Programming Guide: Unified Memory (demand paging, prefetching, memory advice)";
    e.summary = "A kernel reading and writing managed memory first touched on the host: on-demand migration, "
                "prefetch, read-mostly, accessed-by, against an explicit copy and mapped pinned memory, 64 KiB to "
                "16 MiB (up to 8 GiB and more by parameter); a host/device ping-pong; faults and migrated bytes "
                "counted, and a fitted fault + link model.";
    std::vector<std::string> variants;
    for (const Variant &v : kVariants) variants.push_back(v.name);
    variants.push_back("ping_pong");
    // Default sweep, H100 estimate: 3 sizes x 7 variants, each point about
    // 10-20 ms (the harness's 10 ms or 5 launches of at most ~3 ms at 16 MiB,
    // plus the untimed prefetch back to the host per launch), and 3 ping-pong
    // sizes of about 10 ms each: about 0.4 s in all.
    e.params = {
        size_param("min_size", 64LL << 10, 4096, 1LL << 40, "smallest array (a whole number of 4096-byte pages)"),
        size_param("max_size", 16LL << 20, 4096, 1LL << 40,
                   "largest array (whole pages); 8 GiB and more by parameter, checked against the device's and the "
                   "host's memory before anything is allocated"),
        double_param("points_per_octave", 0.25, 0.05, 8, "sizes per doubling: 0.25 gives every fourth power of two (x16)"),
        enum_list_param("variants", variants, variants, "ways to get the array to the kernel, and the ping-pong"),
        int_list_param("pingpong_pages", {1, 16, 256}, 1, 1 << 20, "sizes of the ping-pong array", "4096-byte pages"),
    };
    e.axes = {{"variants"}, ""};  // A series per variant, along sizes from its own range.
    e.run = run_managed_memory;
    e.quick = {{"max_size", kMiB}, {"pingpong_pages", {1, 16}}};
    // The literal figures first: fit_link_gbs and host_link_theoretical_gbs
    // are not instances of {path}_gbs.
    e.figures = {kManagedMemory,     kConcurrentAccess, kPageableAccess, kDirectFromHost,     kHostPageTables,
                 kCountersAvailable, host_link_figure(), kFitUsPerFaultGroup, kFitLinkGbs,     kFitPoints,
                 kBytesPerFaultGroup, kTimeRatio,       kPathGbs,        kPingPongUs};
    e.chart = managed_memory_chart();
    e.compared = {
        {"on_demand_read_gbs", "on-demand read of host-resident managed memory, 16 MiB"},
        {"on_demand_over_prefetch_time", "on demand / prefetch then read, time"},
        {"fit_us_per_fault_group", "cost of a GPU page-fault group (fit)"},
        {"fit_link_gbs", "migration bandwidth (fit)"},
        {"pingpong_us_64KiB", "host/device ping-pong round trip, 64 KiB"},
    };
    e.consistency = {
        gmvocab::shown_beside("pinned_h2d_bandwidth", "explicit_copy_read_gbs", "16 MiB copy from pinned memory, then the kernel's read",
                              "one time for a 16 MiB copy and the kernel that reads it, against transfer's best size"),
    };
    out.push_back(std::move(e));
}

}  // namespace gmlab
