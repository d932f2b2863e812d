// Experiment family "allocation": what allocating costs, timed on the host
// around synchronous calls. Device memory from cudaMalloc against the
// stream-ordered allocator (the default pool, and a pool of our own with a
// release threshold), cudaMemset, and host memory: pinned (cudaMallocHost),
// page-locked afterwards (cudaHostRegister) and ordinary pages on first touch.
// Every allocation is checked usable by a kernel before its times count.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/device/host_memory.hpp"
#include "core/error.hpp"
#include "core/experiment/point_protocol.hpp"
#include "core/experiment/registry.hpp"
#include "core/measurement/harness.hpp"
#include "core/units.hpp"
#include "experiments/allocation/allocation.cuh"
#include "experiments/allocation/allocation_model.hpp"
#include "experiments/allocation/pool_guards.hpp"
#include "experiments/common/transfer_common.hpp"

namespace gmlab {

namespace {

constexpr std::uint32_t kSeed = 0xa110;
constexpr int kMemsetValue = 0x5a;
constexpr const char *kVerifiedHow =
    "every byte of each allocation written and read back (device and mapped host memory by a kernel, fresh pages "
    "by the host); every byte after a memset compared with its value";

// The measured series, in the order they run: device memory, then host memory.
struct SeriesSpec {
    const char *name, *label;
    bool host;
};
const SeriesSpec kSeries[] = {
    {"malloc", "cudaMalloc + cudaFree", false},
    {"pool_default", "cudaMallocAsync + cudaFreeAsync, default pool (release threshold 0)", false},
    {"pool_threshold", "cudaMallocFromPoolAsync + cudaFreeAsync, own pool with a release threshold", false},
    {"memset", "cudaMemsetAsync + synchronize", false},
    {"malloc_host", "cudaMallocHost + cudaFreeHost (pinned)", true},
    {"host_register", "cudaHostRegister + cudaHostUnregister of touched malloc memory", true},
    {"first_touch", "fresh pages (mmap, as malloc gets large blocks) + first touch + munmap", true},
};

// The headline figures: every series' time per call at the ends of its
// sweep, the models' costs, and the ratios of the allocators.
const Figure kUsSmallest{"{series}_us_smallest", "us", Better::Lower,
                         "time of one call pair of a series (allocate + free, or memset + synchronize), at its smallest size"};
const Figure kUsLargest{"{series}_us_largest", "us", Better::Lower,
                        "time of one call pair of a series (allocate + free, or memset + synchronize), at its largest size"};
const Figure kPoolThresholdUs{"pool_threshold_us", "us", Better::Lower,
                              "time of one cudaMallocFromPoolAsync + cudaFreeAsync from a pool with a release threshold: "
                              "the one cost the model fits over every size"};
const Figure kPoolThresholdMaxOverMin{"pool_threshold_max_over_min", "ratio", Better::Neither,
                                      "the pool with a release threshold: its slowest size's time per call over its fastest's"};
const Figure kMsPerGib{"{series}_ms_per_gib", "ms", Better::Lower,
                       "milliseconds per GiB allocated of a host series (malloc_host, host_register, first_touch): the "
                       "fitted cost that grows with the pages"};
const Figure kFixedUs{"{series}_fixed_us", "us", Better::Lower,
                      "the fixed time per call of a host series (malloc_host, host_register, first_touch), fitted"};
const Figure kMemsetGbs{"memset_gbs_largest", "GB/s", Better::Higher,
                        "bytes set per second by cudaMemsetAsync + synchronize at the largest size (device memory written)"};
const Figure kMallocOverPool{"malloc_over_pool_threshold_largest", "ratio", Better::Neither,
                             "time of cudaMalloc + cudaFree over a pooled allocation with a release threshold, largest size"};
const Figure kDefaultOverPool{"pool_default_over_pool_threshold_largest", "ratio", Better::Neither,
                              "time of an allocation from the default pool (threshold 0) over one from a pool with a "
                              "release threshold, largest size"};
const Figure kPoolReleaseThreshold{"pool_release_threshold_bytes", "bytes", Better::Neither,
                                   "the release threshold of the experiment's own pool: bytes it keeps across synchronisations"};

std::size_t page_bytes() {
    const long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? static_cast<std::size_t>(p) : 4096;
}

// Fresh anonymous pages from the kernel, unmapped on every path.
class FreshPages {
public:
    FreshPages(std::size_t bytes, const std::string &what) : bytes_(bytes) {
        void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            fail(GM_ERROR_OUT_OF_MEMORY, "cannot map " + std::to_string(bytes) + " bytes of host memory for " + what);
        p_ = static_cast<unsigned char *>(p);
    }
    ~FreshPages() { munmap(p_, bytes_); }
    FreshPages(const FreshPages &) = delete;
    FreshPages &operator=(const FreshPages &) = delete;

    // Writes one byte of every page: the kernel finds and zeroes a page for each.
    void touch(std::size_t page) {
        volatile unsigned char *c = p_;
        for (std::size_t i = 0; i < bytes_; i += page) c[i] = static_cast<unsigned char>(1 + (i / page) % 255);
    }
    const unsigned char *get() const { return p_; }

private:
    unsigned char *p_ = nullptr;
    std::size_t bytes_ = 0;
};

// Checks on the device that memory just allocated holds what was written to it.
class UsableCheck {
public:
    UsableCheck(ContextState &ctx, Result &out) : ctx_(ctx), out_(out), bad_(ctx, sizeof(unsigned long long)) {}

    // Device memory: the kernel writes the pattern and reads it back.
    void device(void *p, std::size_t bytes, const std::string &what) {
        GM_CUDA(kernels::launch_write_byte_pattern(p, bytes, kSeed, sms(), ctx_.stream()));
        expect_none(p, bytes, -1, what);
    }
    // Host memory (pinned or registered): written on the host, read by the device.
    void host(void *p, std::size_t bytes, const std::string &what) {
        fill_pattern_host(p, bytes, kSeed);
        void *mapped = nullptr;
        GM_CUDA(cudaHostGetDevicePointer(&mapped, p, 0));
        expect_none(mapped, bytes, -1, what);
    }
    // A memset over the pattern left `value` in every byte.
    void memset(void *p, std::size_t bytes, const std::string &what) {
        GM_CUDA(kernels::launch_write_byte_pattern(p, bytes, kSeed, sms(), ctx_.stream()));
        GM_CUDA(cudaMemsetAsync(p, kMemsetValue, bytes, ctx_.stream()));
        expect_none(p, bytes, kMemsetValue, what);
    }

private:
    int sms() const { return ctx_.info().multiprocessors; }

    // Through the point protocol's check: the count zeroed (the kernel adds
    // to it, so it is not poisoned), the counting kernel run once, the count
    // downloaded and required to be 0.
    void expect_none(const void *p, std::size_t bytes, int value, const std::string &what) {
        auto *bad = bad_.as<unsigned long long>();
        const int sms = this->sms();
        auto count = [p, bytes, value, bad, sms](cudaStream_t st) -> cudaError_t {
            if (cudaError_t e = cudaMemsetAsync(bad, 0, sizeof *bad, st); e != cudaSuccess) return e;
            return kernels::launch_count_bad_bytes(p, bytes, kSeed, value, bad, sms, st);
        };
        unsigned long long got = 0;
        auto check = [&] {
            if (got != 0)
                fail(GM_ERROR_VERIFICATION_FAILED, "verification failed: " + what + ": " + std::to_string(got) + " of " +
                                                       std::to_string(bytes) + " bytes read back differ from what was written");
            out_.verified(bytes, kVerifiedHow);
        };
        run_checked(ctx_, {count, {}, download_to(&got, bad, sizeof got), check});
    }

    ContextState &ctx_;
    Result &out_;
    DeviceArray bad_;
};

// The empty series of a spec: sizes against the time of one call pair.
Series series_of(const SeriesSpec &spec) {
    Series s;
    s.name = spec.label;
    s.variant = spec.name;
    s.x_name = "size";
    s.x_unit = "bytes";
    s.y_field = "us_per_call";
    s.y_name = std::string(spec.name) == "memset" ? "one cudaMemsetAsync + synchronize" : "one allocation + release";
    s.y_unit = "us";
    // A call's cost: nothing moves at size / time, so no bandwidth.
    s.quantity = Quantity::Time;
    s.attributes = {{"memory", spec.host ? "host" : "device"}, {"timed_on", "host"}};
    return s;
}

// One point: the check once, then the call timed on the host.
Point host_timed_point(ContextState &ctx, std::size_t bytes, const std::function<void()> &call) {
    Point p;
    p.x = static_cast<double>(bytes);
    p.bytes = static_cast<double>(bytes);
    p.time_ms = time_host(ctx, call);
    p.values["us_per_call"] = p.time_ms.median * 1e3;
    return p;
}

// The device-memory series: allocate and free (or memset) each size.
class DeviceSeries {
public:
    DeviceSeries(ContextState &ctx, UsableCheck &check, std::uint64_t threshold)
        : ctx_(ctx), check_(check), threshold_(threshold) {}

    Series run(const SeriesSpec &spec, const std::vector<std::size_t> &sizes) {
        Series s = series_of(spec);
        const std::string name = spec.name;
        cudaStream_t st = ctx_.stream();
        if (name == "malloc") {
            for (std::size_t n : sizes) {
                checked(n, spec, [&] { return device_malloc(n); }, [](void *p) { GM_CUDA(cudaFree(p)); });
                s.points.push_back(host_timed_point(ctx_, n, [n] { GM_CUDA(cudaFree(device_malloc(n))); }));
            }
        } else if (name == "pool_default" || name == "pool_threshold") {
            // The default pool's threshold is 0 while it is measured; the own
            // pool exists only while it is measured. Both as found afterwards.
            std::unique_ptr<DefaultPoolThreshold> by_default;
            std::unique_ptr<OwnedPool> own;
            cudaMemPool_t pool = nullptr;
            if (name == "pool_default") {
                by_default = std::make_unique<DefaultPoolThreshold>(ctx_.device());
                pool = by_default->get();
            } else {
                own = std::make_unique<OwnedPool>(ctx_.device(), threshold_);
                pool = own->get();
            }
            auto alloc = [pool, st](std::size_t n) {
                void *p = nullptr;
                GM_CUDA(cudaMallocFromPoolAsync(&p, n, pool, st));
                return p;
            };
            auto release = [st](void *p) {
                GM_CUDA(cudaFreeAsync(p, st));
                GM_CUDA(cudaStreamSynchronize(st));
            };
            for (std::size_t n : sizes) {
                checked(n, spec, [&] { return alloc(n); }, release);
                s.points.push_back(host_timed_point(ctx_, n, [&, n] { release(alloc(n)); }));
            }
            GM_CUDA(cudaStreamSynchronize(st));
        } else {
            DeviceArray buf(ctx_, sizes.back());
            for (std::size_t n : sizes) {
                check_.memset(buf.get(), n, std::string("allocation memset of ") + size_text(n));
                void *p = buf.get();
                s.points.push_back(host_timed_point(ctx_, n, [p, n, st] {
                    GM_CUDA(cudaMemsetAsync(p, kMemsetValue, n, st));
                    GM_CUDA(cudaStreamSynchronize(st));
                }));
            }
        }
        return s;
    }

private:
    // Allocates once, checks the memory usable, frees it; counted in the peak.
    void checked(std::size_t n, const SeriesSpec &spec, const std::function<void *()> &alloc,
                 const std::function<void(void *)> &release) {
        void *p = alloc();
        ctx_.note_alloc(n);
        try {
            check_.device(p, n, std::string("allocation ") + spec.name + " of " + size_text(n));
        } catch (...) {
            release(p);
            ctx_.note_free(n);
            throw;
        }
        release(p);
        ctx_.note_free(n);
    }

    ContextState &ctx_;
    UsableCheck &check_;
    std::uint64_t threshold_;
};

// The host-memory series: pinned, registered, and first touch.
Series run_host_series(ContextState &ctx, UsableCheck &check, const SeriesSpec &spec, const std::vector<std::size_t> &sizes,
                       Result &out) {
    Series s = series_of(spec);
    const std::string name = spec.name;
    const std::size_t page = page_bytes();
    for (std::size_t n : sizes) {
        const std::string what = "allocation " + name + " of " + size_text(n);
        if (name == "malloc_host") {
            {
                // cudaHostAlloc with the default flags is cudaMallocHost.
                PinnedHostBuffer once(n, cudaHostAllocDefault, what);
                check.host(once.get(), n, what);
            }
            s.points.push_back(host_timed_point(ctx, n, [n, &what] { PinnedHostBuffer b(n, cudaHostAllocDefault, what); }));
        } else if (name == "host_register") {
            PageableHostBuffer buf(n, what);  // allocated and touched once, outside the timing
            {
                HostRegistration once(buf.get(), n, cudaHostRegisterDefault, what);
                check.host(buf.get(), n, what);
            }
            void *p = buf.get();
            s.points.push_back(
                host_timed_point(ctx, n, [p, n, &what] { HostRegistration r(p, n, cudaHostRegisterDefault, what); }));
        } else {
            {
                FreshPages once(n, what);
                once.touch(page);
                for (std::size_t i = 0; i < n; ++i) {
                    const unsigned char want = i % page == 0 ? static_cast<unsigned char>(1 + (i / page) % 255) : 0;
                    if (once.get()[i] != want)
                        fail(GM_ERROR_VERIFICATION_FAILED, "verification failed: " + what + ": byte " + std::to_string(i) +
                                                               " reads " + std::to_string(once.get()[i]) + ", want " +
                                                               std::to_string(want));
                }
                out.verified(n, kVerifiedHow);
            }
            s.points.push_back(host_timed_point(ctx, n, [n, page, &what] {
                FreshPages fresh(n, what);
                fresh.touch(page);
            }));
        }
    }
    return s;
}

std::vector<std::size_t> checked_sweep(const Params &params, const char *lo_name, const char *hi_name) {
    const std::size_t lo = params.size(lo_name), hi = params.size(hi_name);
    if (lo > hi)
        invalid(std::string(lo_name) + " (" + std::to_string(lo) + ") must not exceed " + hi_name + " (" + std::to_string(hi) + ")");
    return size_sweep(lo, hi, params.number("points_per_octave"));
}

// The models beside the measurements of one series, and its key figures.
void model_series(Series &s, Result &out) {
    std::vector<double> bytes, ms, us;
    for (const Point &p : s.points) {
        bytes.push_back(p.bytes);
        ms.push_back(p.time_ms.median);
        us.push_back(p.time_ms.median * 1e3);
    }
    const std::string v = s.variant;
    const FigureAt at = {{"series", v}};
    out.record(kUsSmallest, us.front(), at);
    out.record(kUsLargest, us.back(), at);
    if (v == "pool_threshold") {
        const FlatCost f = flat_cost(us);
        for (Point &p : s.points) p.predicted["model_us"] = f.us;
        out.record(kPoolThresholdUs, f.us);
        out.record(kPoolThresholdMaxOverMin, f.max_over_min);
    } else if (s.attributes.value("memory", "") == "host") {
        const PageCost c = fit_page_cost(bytes, ms);
        if (!c.fitted) return;
        for (Point &p : s.points) p.predicted["model_us"] = c.predict_ms(p.bytes) * 1e3;
        out.record(kMsPerGib, c.ms_per_gib, at);
        out.record(kFixedUs, c.fixed_ms * 1e3, at);
    } else if (v == "memset") {
        const Point &p = s.points.back();
        out.record(kMemsetGbs, bandwidth_gbs(p.bytes, p.time_ms.median));
    }
}

// The models beside the measurements, and the key figures.
void model_and_summarize(std::vector<Series> &made, Result &out) {
    std::map<std::string, Series *> by;
    for (Series &s : made) by[s.variant] = &s;
    auto largest_us = [&](const char *v) { return by[v]->points.back().time_ms.median * 1e3; };
    for (Series &s : made) model_series(s, out);
    if (by.count("malloc") && by.count("pool_threshold"))
        out.record(kMallocOverPool, largest_us("malloc") / largest_us("pool_threshold"));
    if (by.count("pool_default") && by.count("pool_threshold"))
        out.record(kDefaultOverPool, largest_us("pool_default") / largest_us("pool_threshold"));
}

void run_allocation(ContextState &ctx, const Params &params, Result &out) {
    const std::vector<std::string> asked = params.texts("series");
    auto wants = [&](const char *n) { return std::find(asked.begin(), asked.end(), n) != asked.end(); };
    const std::vector<std::size_t> sizes = checked_sweep(params, "min_size", "max_size");
    const std::vector<std::size_t> host_sizes = checked_sweep(params, "host_min_size", "host_max_size");
    const std::uint64_t threshold =
        pool_release_threshold(params.size("pool_release_threshold"), sizes.back(), ctx.info().global_bytes);
    int pools = 0, can_register = 0;
    GM_CUDA(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, ctx.device()));
    GM_CUDA(cudaDeviceGetAttribute(&can_register, cudaDevAttrHostRegisterSupported, ctx.device()));
    bool device_side = false, host_side = false;
    for (const SeriesSpec &s : kSeries)
        if (wants(s.name)) (s.host ? host_side : device_side) = true;
    // Everything is checked before the first allocation: one allocation at a time.
    if (device_side) require_memory(ctx, sizes.back(), "allocation (one device allocation of max_size at a time)");
    if (host_side)
        require_host_memory(host_sizes.back(), ctx.settings.memory_fraction,
                            "allocation (one host allocation of host_max_size at a time)");

    UsableCheck check(ctx, out);
    DeviceSeries device(ctx, check, threshold);
    std::vector<Series> made;
    for (const SeriesSpec &spec : kSeries) {
        const std::string name = spec.name;
        if (!wants(spec.name)) continue;
        if ((name == "pool_default" || name == "pool_threshold") && !pools) {
            out.notes.push_back(name + " was left out: this device has no memory pools (memoryPoolsSupported = 0).");
            continue;
        }
        if (name == "host_register" && !can_register) {
            out.notes.push_back("host_register was left out: this device cannot register host memory (hostRegisterSupported = 0).");
            continue;
        }
        made.push_back(spec.host ? run_host_series(ctx, check, spec, host_sizes, out) : device.run(spec, sizes));
    }
    model_and_summarize(made, out);
    for (Series &s : made) out.series.push_back(std::move(s));
    if (out.series.empty()) {
        out.not_applicable("allocation: none of the series asked for can run on this device (see the notes).");
        return;
    }
    out.record(kPoolReleaseThreshold, static_cast<double>(threshold));
    out.notes.push_back(
        "Each point is the median time on the host's steady clock of one synchronous call pair: allocate and free "
        "(cudaMalloc + cudaFree; cudaMallocAsync + cudaFreeAsync + cudaStreamSynchronize), or cudaMemsetAsync + "
        "cudaStreamSynchronize. Every size was first allocated once and checked usable: a kernel wrote a pattern "
        "to it (the host did, for pinned and registered memory) and a kernel read every byte back (the host did, "
        "for fresh pages); the memset's every byte was compared with its value.");
    out.notes.push_back(
        "Device memory: cudaMalloc maps fresh memory and cudaFree waits for the device and unmaps it, so both cost "
        "more as sizes grow. The stream-ordered allocator hands out memory from a pool: the default pool (release "
        "threshold 0 here, as a program that never set it has it; restored afterwards) gives its memory back at "
        "every synchronisation and maps it again at the next allocation; a pool with a release threshold keeps up "
        "to that many bytes (pool_release_threshold_bytes; 0 asks for max_size) and hands them out again at about "
        "the same cost at every size (model: one cost, predicted.model_us; pool_threshold_max_over_min near 1). "
        "The pool is destroyed afterwards.");
    out.notes.push_back(
        "Host memory: cudaMallocHost allocates and page-locks, cudaHostRegister page-locks memory that is already "
        "allocated and touched (both pin every page and map it for the device), and first_touch takes fresh pages "
        "from the operating system (mmap, as malloc does for large blocks, so that no page is reused) and writes "
        "one byte of each. All three grow with the number of pages: the model is time = fixed + GiB x cost per "
        "GiB, fitted by least squares (summary <series>_ms_per_gib and _fixed_us, predicted.model_us).");
}

// How reports draw it: time per call against size, log-log, with the models dashed.
Chart allocation_chart() {
    Chart c;
    c.kind = "line";
    c.x_title = "size (MiB)";
    c.x_log = true;
    c.y_log = true;
    c.prediction = "predicted.model_us";
    c.prediction_relative = false;
    c.prediction_label = "model";
    c.explanation = "What one allocation and free costs the program, timed on the host. cudaMalloc and a pool that gives "
                    "its memory back at every synchronisation (the default pool) map memory each time and grow with the "
                    "size; a pool that keeps its memory (a release threshold) costs about the same at every size (dashed: "
                    "one cost). Pinning host memory (cudaMallocHost, cudaHostRegister) and touching fresh pages cost per "
                    "page (dashed: fixed + per GiB).";
    return c;
}

}  // namespace

void add_allocation_experiments(std::vector<Experiment> &out) {
    Experiment e;
    e.name = "allocation";
    e.guide_section = "Best Practices Guide: Memory Allocation; Programming Guide: Stream Ordered Memory Allocator";
    e.summary = "What allocating costs, timed on the host: cudaMalloc/cudaFree against cudaMallocAsync from the "
                "default pool and from a pool with a release threshold (256 B to 1 GiB), cudaMemset, and host "
                "memory: cudaMallocHost, cudaHostRegister and first touch, with the page-locking cost per GiB.";
    std::vector<std::string> names;
    for (const SeriesSpec &s : kSeries) names.push_back(s.name);
    // Default sweep, H100 estimate: 7 device sizes x 4 series, most calls tens
    // of microseconds (100 calls, ~1-3 ms a point), those of 256 MiB and 1 GiB
    // a few ms (5 + 2 calls, ~20-35 ms a point); 3 host sizes x 3 series, 16 MiB
    // pinned in ~3-5 ms: about 0.3-0.4 s in all.
    e.params = {
        size_param("min_size", 256, 1, 1LL << 40, "smallest device allocation"),
        size_param("max_size", 1LL << 30, 1, 1LL << 40, "largest device allocation (checked against the device's memory)"),
        size_param("host_min_size", 256LL << 10, 1, 1LL << 40, "smallest host allocation"),
        size_param("host_max_size", 16LL << 20, 1, 1LL << 40,
                   "largest host allocation (checked against the host's available memory)"),
        double_param("points_per_octave", 0.25, 0.05, 8, "sizes per doubling: 0.25 gives every fourth power of two (x16)"),
        size_param("pool_release_threshold", 0, 0, 1LL << 40,
                   "release threshold of the experiment's own pool: bytes it keeps across synchronisations; 0 "
                   "keeps max_size; at most the device's memory"),
        enum_list_param("series", names, names, "what is timed"),
    };
    e.axes = {{"series"}, ""};  // A series per allocator or host operation, along sizes from its own range.
    e.run = run_allocation;
    e.quick = {{"max_size", 16 * kMiB}, {"host_max_size", kMiB}};
    e.figures = {kUsSmallest, kUsLargest,  kPoolThresholdUs, kPoolThresholdMaxOverMin, kMsPerGib,
                 kFixedUs,    kMemsetGbs,  kMallocOverPool,  kDefaultOverPool,         kPoolReleaseThreshold};
    e.chart = allocation_chart();
    e.compared = {
        {"malloc_us_largest", "cudaMalloc + cudaFree, 1 GiB"},
        {"pool_threshold_us", "pooled cudaMallocAsync + cudaFreeAsync, any size"},
        {"malloc_over_pool_threshold_largest", "cudaMalloc / pooled allocation, 1 GiB"},
        {"malloc_host_ms_per_gib", "cudaMallocHost per GiB"},
        {"host_register_ms_per_gib", "cudaHostRegister per GiB"},
    };
    out.push_back(std::move(e));
}

}  // namespace gmlab
