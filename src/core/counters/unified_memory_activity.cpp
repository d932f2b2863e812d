// Unified-memory counters through CUPTI's activity API: one configuration per
// process, the records delivered to buffers that CUPTI asks for and hands
// back, and a count enabled only around the work it counts.
#include "core/counters/unified_memory_activity.hpp"

#include <cstdlib>
#include <cstring>
#include <mutex>

#include <cuda_runtime_api.h>

#include "core/counters/counters.hpp"
#include "core/counters/cupti_api.hpp"
#include "core/error.hpp"

namespace gmlab {

std::map<std::string, double> UnifiedMemoryCounts::as_counters() const {
    std::map<std::string, double> out = {{"um_bytes_htod", bytes_htod},
                                         {"um_bytes_dtoh", bytes_dtoh},
                                         {"um_gpu_page_faults", gpu_page_faults},
                                         {"um_gpu_fault_groups", gpu_fault_groups},
                                         {"um_cpu_page_faults", cpu_page_faults}};
    if (policies_counted) {
        out["um_thrashing"] = thrashing;
        out["um_throttling"] = throttling;
        out["um_remote_map_bytes"] = remote_map_bytes;
    }
    return out;
}

#if GM_HAVE_CUPTI_HEADERS

void add_unified_memory_record(const void *record, UnifiedMemoryCounts &c) {
    const auto *a = static_cast<const CUpti_Activity *>(record);
    if (a->kind != CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER) return;
    // kind, counterKind and value lead every version of this record (the
    // ...Counter2 of CUDA 12 as well as ...Counter3), so the records of an
    // older libcupti read the same.
    const auto *r = static_cast<const CUpti_ActivityUnifiedMemoryCounter3 *>(record);
    const double v = static_cast<double>(r->value);
    switch (r->counterKind) {
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD: c.bytes_htod += v; break;
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH: c.bytes_dtoh += v; break;
    // One record per fault; its value is the faulting instruction's address.
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT: c.cpu_page_faults += 1; break;
    // One record per faulting page; its value is the number of fault groups for it.
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT:
        c.gpu_page_faults += 1;
        c.gpu_fault_groups += v;
        break;
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THRASHING: c.thrashing += 1; break;
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THROTTLING: c.throttling += 1; break;
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_REMOTE_MAP: c.remote_map_bytes += v; break;
    default: c.other_records += 1; break;
    }
}

namespace {

// Records are about a hundred bytes; a buffer holds thousands.
constexpr std::size_t kBufferBytes = 1 << 20;

// Where delivered records go. Never destroyed: CUPTI may hand back a buffer
// from its own thread while the process exits.
struct Collector {
    std::mutex m;
    std::shared_ptr<const CuptiActivityApi> api;  // the table records are read with
    bool counting = false;                        // records outside a count are dropped
    UnifiedMemoryCounts counts;
};

Collector &collector() {
    static Collector *c = new Collector;
    return *c;
}

void CUPTIAPI buffer_requested(std::uint8_t **buffer, std::size_t *size, std::size_t *max_records) {
    *buffer = static_cast<std::uint8_t *>(std::aligned_alloc(ACTIVITY_RECORD_ALIGNMENT, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;  // a null buffer declines: CUPTI drops records then
    *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t *buffer, std::size_t, std::size_t valid) {
    Collector &c = collector();
    {
        std::lock_guard<std::mutex> lock(c.m);
        if (c.counting && c.api && buffer) {
            CUpti_Activity *record = nullptr;
            while (c.api->cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS)
                add_unified_memory_record(record, c.counts);
        }
    }
    std::free(buffer);
}

std::string result_name(const CuptiActivityApi &api, CUptiResult r) {
    const char *s = nullptr;
    if (api.cuptiGetResultString && api.cuptiGetResultString(r, &s) == CUPTI_SUCCESS && s) return s;
    return "CUPTI error " + std::to_string(static_cast<int>(r));
}

// Why a call of the activity API failed, and what would make the counters available.
std::string explain(const CuptiActivityApi &api, CUptiResult r, const char *call) {
    std::string why = std::string("unified-memory counters: ") + call + " failed: " + result_name(api, r);
    switch (r) {
    case CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED:
        why += ". This platform (operating system or architecture) does not support unified-memory profiling";
        break;
    case CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_ON_DEVICE:
        why += ". This device does not support the unified-memory counters";
        break;
    case CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_ON_NON_P2P_DEVICES:
        why += ". With several GPUs the counters need peer-to-peer access between every pair; make only one GPU "
               "visible (CUDA_VISIBLE_DEVICES) to count";
        break;
    case CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_WITH_MPS:
        why += ". They are not supported under the Multi-Process Service (MPS); run without it to count";
        break;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
        why += ". Another profiler or CUPTI client (Nsight Systems, a sanitizer, ...) may be attached to this "
               "process, or this libcupti does not match the driver; run without it, with the CUPTI of a CUDA "
               "toolkit the driver supports";
        break;
    default: break;
    }
    return why;
}

// The counter kinds asked for: those the model needs, then those that explain
// the driver's policies (thrashing, throttling, remote maps). Where the
// driver refuses the second group, the first is asked for alone.
const CUpti_ActivityUnifiedMemoryCounterKind kModelKinds[] = {
    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD,
    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH,
    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT,
    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT};
const CUpti_ActivityUnifiedMemoryCounterKind kPolicyKinds[] = {
    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THRASHING, CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THROTTLING,
    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_REMOTE_MAP};

CUptiResult configure(const CuptiActivityApi &api, int device, bool with_policies) {
    std::vector<CUpti_ActivityUnifiedMemoryCounterConfig> config;
    auto add = [&](CUpti_ActivityUnifiedMemoryCounterKind kind) {
        CUpti_ActivityUnifiedMemoryCounterConfig c;
        std::memset(&c, 0, sizeof c);
        c.scope = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_SINGLE_DEVICE;  // ignored since CUDA 7
        c.kind = kind;
        c.deviceId = static_cast<std::uint32_t>(device);
        c.enable = 1;
        config.push_back(c);
    };
    for (auto k : kModelKinds) add(k);
    if (with_policies)
        for (auto k : kPolicyKinds) add(k);
    return api.cuptiActivityConfigureUnifiedMemoryCounter(config.data(), static_cast<std::uint32_t>(config.size()));
}

struct Setup {
    std::mutex m;
    std::shared_ptr<const CuptiActivityApi> checked;  // the table the availability below is for
    UnifiedMemoryAvailability availability;
    bool policies = true;  // the policy kinds were accepted too
};

Setup &setup() {
    static Setup *s = new Setup;
    return *s;
}

UnifiedMemoryAvailability check(const CuptiLoad &load, int device, bool *policies) {
    UnifiedMemoryAvailability a;
    if (!load.activity) {
        a.reason = !load.activity_reason.empty() ? load.activity_reason
                   : !load.reason.empty()        ? load.reason
                                                 : "libcupti's activity API is not available";
        return a;
    }
    const CuptiActivityApi &api = *load.activity;
    {
        std::lock_guard<std::mutex> lock(collector().m);
        collector().api = load.activity;
        collector().counting = false;
    }
    auto failed = [&](CUptiResult r, const char *call) {
        a.reason = explain(api, r, call);
        return a;
    };
    if (CUptiResult r = api.cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed); r != CUPTI_SUCCESS)
        return failed(r, "cuptiActivityRegisterCallbacks");
    *policies = configure(api, device, true) == CUPTI_SUCCESS;
    if (!*policies)
        if (CUptiResult r = configure(api, device, false); r != CUPTI_SUCCESS)
            return failed(r, "cuptiActivityConfigureUnifiedMemoryCounter");
    // One enabling as a trial: where another client holds CUPTI it fails here.
    if (CUptiResult r = api.cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER); r != CUPTI_SUCCESS)
        return failed(r, "cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER)");
    const CUptiResult off = api.cuptiActivityDisable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
    const CUptiResult flushed = api.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (off != CUPTI_SUCCESS) return failed(off, "cuptiActivityDisable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER)");
    if (flushed != CUPTI_SUCCESS) return failed(flushed, "cuptiActivityFlushAll");
    a.available = true;
    return a;
}

// Turns the kind off and drops what was not taken, on every path out of a count.
class CountScope {
public:
    CountScope(const CuptiActivityApi &api, bool policies) : api_(api) {
        std::lock_guard<std::mutex> lock(collector().m);
        collector().counts = UnifiedMemoryCounts();
        collector().counts.policies_counted = policies;
        collector().counting = true;
    }
    ~CountScope() {
        if (enabled_) api_.cuptiActivityDisable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
        if (!taken_) api_.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        std::lock_guard<std::mutex> lock(collector().m);
        collector().counting = false;
    }
    CountScope(const CountScope &) = delete;
    CountScope &operator=(const CountScope &) = delete;

    void check(CUptiResult r, const char *call) const {
        if (r != CUPTI_SUCCESS) fail(GM_ERROR_NOT_SUPPORTED, explain(api_, r, call));
    }
    void enable() {
        check(api_.cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER),
              "cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER)");
        enabled_ = true;
    }
    // Every record of the counted work: flushed while the kind is on, then
    // once more after it is off (records the driver queued in between).
    UnifiedMemoryCounts take() {
        check(api_.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
        enabled_ = false;
        check(api_.cuptiActivityDisable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER),
              "cuptiActivityDisable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER)");
        check(api_.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
        taken_ = true;
        std::lock_guard<std::mutex> lock(collector().m);
        return collector().counts;
    }

private:
    const CuptiActivityApi &api_;
    bool enabled_ = false, taken_ = false;
};

}  // namespace

UnifiedMemoryAvailability unified_memory_availability(int device) {
    const CuptiLoad &load = load_cupti();
    Setup &s = setup();
    std::lock_guard<std::mutex> lock(s.m);
    if (!s.checked || s.checked != load.activity) {
        s.availability = check(load, device, &s.policies);
        s.checked = load.activity;
        // A missing table is checked again only when the loader changes (tests).
        if (!load.activity) s.checked = nullptr;
    }
    return s.availability;
}

UnifiedMemoryCounts count_unified_memory(int device, const std::function<int()> &run) {
    const UnifiedMemoryAvailability a = unified_memory_availability(device);
    if (!a.available) fail(GM_ERROR_NOT_SUPPORTED, a.reason);
    const CuptiActivityApi &api = *load_cupti().activity;
    // Records of earlier work are delivered now and dropped (the kind is off
    // between counts, so normally there are none).
    if (CUptiResult r = api.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); r != CUPTI_SUCCESS)
        fail(GM_ERROR_NOT_SUPPORTED, explain(api, r, "cuptiActivityFlushAll"));
    bool policies = true;
    {
        std::lock_guard<std::mutex> lock(setup().m);
        policies = setup().policies;
    }
    CountScope scope(api, policies);
    scope.enable();
    if (int err = run(); err != 0)
        fail(GM_ERROR_CUDA, std::string("the work counted for unified memory failed: ") +
                                cudaGetErrorString(static_cast<cudaError_t>(err)));
    return scope.take();
}

#else

void add_unified_memory_record(const void *, UnifiedMemoryCounts &) {}

UnifiedMemoryAvailability unified_memory_availability(int) {
    UnifiedMemoryAvailability a;
    a.reason = load_cupti().reason;
    return a;
}

UnifiedMemoryCounts count_unified_memory(int device, const std::function<int()> &) {
    fail(GM_ERROR_NOT_SUPPORTED, unified_memory_availability(device).reason);
}

#endif

}  // namespace gmlab
