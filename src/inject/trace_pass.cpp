#include "inject/trace_pass.hpp"

#include <cstdlib>
#include <cstring>
#include <iterator>
#include <mutex>
#include <vector>

#include "inject/sites/call_sites.hpp"
#include "inject/cupti_call.hpp"
#include "inject/cupti_table.hpp"
#include "inject/record_sink.hpp"
#include "inject/record_types.hpp"

namespace gmexplain {

namespace {

constexpr std::size_t kBufferBytes = 4u << 20;

const char *memcpy_kind(std::uint8_t k) {
    switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "PtoP";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return "HtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return "AtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return "AtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: return "AtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return "DtoA";
    default: return "unknown";
    }
}

const char *memory_kind(unsigned k) {
    switch (k) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return "pageable";
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return "pinned";
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE: return "device";
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY: return "array";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED: return "managed";
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC: return "device_static";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC: return "managed_static";
    default: return "unknown";
    }
}

const char *um_kind(unsigned k) {
    switch (k) {
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD: return "bytes_htod";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH: return "bytes_dtoh";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT: return "cpu_page_faults";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT: return "gpu_page_faults";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THRASHING: return "thrashing";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THROTTLING: return "throttling";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_REMOTE_MAP: return "remote_map";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOD: return "bytes_dtod";
    default: return "unknown";
    }
}

std::string triple(std::int64_t x, std::int64_t y, std::int64_t z) {
    return "[" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + "]";
}

void (*g_kernel_hook)(std::uint32_t, std::uint64_t) = nullptr;

void write_kernel(const CUpti_ActivityKernel10 &k) {
    if (g_kernel_hook && k.end > k.start) g_kernel_hook(k.correlationId, k.end - k.start);
    Line l;
    l.field("type", records::kKernel).field("name", k.name).field("device", k.deviceId).field("context", k.contextId)
        .field("stream", k.streamId).raw("grid", triple(k.gridX, k.gridY, k.gridZ))
        .raw("block", triple(k.blockX, k.blockY, k.blockZ)).field("registers", unsigned(k.registersPerThread))
        .field("static_shared", k.staticSharedMemory).field("dynamic_shared", k.dynamicSharedMemory)
        .field("local_per_thread", k.localMemoryPerThread).field("start", std::uint64_t(k.start))
        .field("end", std::uint64_t(k.end)).field("graph", k.graphId).field("correlation", k.correlationId);
    if (k.graphNodeId) l.field("graph_node", std::uint64_t(k.graphNodeId));
    sink_write(l);
}

void write_memcpy(const CUpti_ActivityMemcpy6 &m) {
    Line l;
    l.field("type", records::kMemcpy).field("kind", memcpy_kind(m.copyKind)).field("src", memory_kind(m.srcKind))
        .field("dst", memory_kind(m.dstKind)).field("bytes", std::uint64_t(m.bytes))
        .field("start", std::uint64_t(m.start)).field("end", std::uint64_t(m.end)).field("device", m.deviceId)
        .field("stream", m.streamId).field("graph", m.graphId);
    sink_write(l);
}

void write_memset(const CUpti_ActivityMemset4 &m) {
    Line l;
    l.field("type", records::kMemset).field("bytes", std::uint64_t(m.bytes)).field("start", std::uint64_t(m.start))
        .field("end", std::uint64_t(m.end)).field("device", m.deviceId).field("stream", m.streamId)
        .field("memory", memory_kind(m.memoryKind));
    sink_write(l);
}

void write_memory(const CUpti_ActivityMemory4 &m) {
    const char *op = m.memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION ? "alloc"
                     : m.memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE  ? "free"
                                                                                                 : "other";
    Line l;
    l.field("type", records::kMemory).field("op", op).field("memory", memory_kind(m.memoryKind))
        .field("bytes", std::uint64_t(m.bytes)).field("time", std::uint64_t(m.timestamp))
        .field("address", std::uint64_t(m.address)).field("device", m.deviceId)
        .field("pool", m.memoryPoolConfig.memoryPoolType != CUPTI_ACTIVITY_MEMORY_POOL_TYPE_INVALID ? 1 : 0);
    sink_write(l);
}

// Why a migration happened (CUpti_ActivityUnifiedMemoryMigrationCause): "user"
// is a prefetch the program asked for, the others are on demand or the
// driver's own choice.
const char *migration_cause(std::uint32_t flags) {
    switch (flags) {
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_USER: return "user";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_COHERENCE: return "coherence";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_PREFETCH: return "speculative";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_EVICTION: return "eviction";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_ACCESS_COUNTERS: return "access_counters";
    default: return "unknown";
    }
}

// The GPU a record is about. The header says which id to read: a GPU fault
// names its device in srcId (its dstId is to be ignored), a transfer to the
// host comes from srcId, everything else goes to dstId.
std::uint32_t um_device(const CUpti_ActivityUnifiedMemoryCounter3 &u) {
    const bool from_source = u.counterKind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT ||
                             u.counterKind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH;
    return from_source ? u.srcId : u.dstId;
}

// value: bytes for transfers, thrashing and remote maps; fault groups of one
// page for a GPU fault; the faulting instruction's address (not a count) for
// a CPU fault, so the reader counts CPU fault records instead.
void write_um(const CUpti_ActivityUnifiedMemoryCounter3 &u) {
    Line l;
    l.field("type", records::kUm).field("counter", um_kind(u.counterKind)).field("value", std::uint64_t(u.value))
        .field("start", std::uint64_t(u.start)).field("end", std::uint64_t(u.end)).field("device", um_device(u))
        .field("src", u.srcId).field("dst", u.dstId);
    if (u.counterKind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD ||
        u.counterKind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH)
        l.field("cause", migration_cause(u.flags));
    sink_write(l);
}

void write_device(const CUpti_ActivityDevice5 &d) {
    Line l;
    l.field("type", records::kDevice).field("id", d.id).field("name", d.name)
        .field("sm_count", d.numMultiprocessors).field("memory_bytes", std::uint64_t(d.globalMemorySize))
        .field("memory_bandwidth_kbs", std::uint64_t(d.globalMemoryBandwidth))
        .field("l2_bytes", d.l2CacheSize).field("compute_capability", d.computeCapabilityMajor * 10 + d.computeCapabilityMinor)
        .field("max_warps_per_sm", d.maxWarpsPerMultiprocessor).field("max_blocks_per_sm", d.maxBlocksPerMultiprocessor)
        .field("registers_per_sm", d.maxRegistersPerMultiprocessor).field("shared_per_sm", d.maxSharedMemoryPerMultiprocessor);
    sink_write(l);
}

void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
    *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;
    *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t *buffer, size_t, size_t valid) {
    const auto &api = cupti();
    CUpti_Activity *record = nullptr;
    while (valid > 0 && api.cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
        switch (record->kind) {
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        case CUPTI_ACTIVITY_KIND_KERNEL: write_kernel(*reinterpret_cast<CUpti_ActivityKernel10 *>(record)); break;
        case CUPTI_ACTIVITY_KIND_MEMCPY: write_memcpy(*reinterpret_cast<CUpti_ActivityMemcpy6 *>(record)); break;
        case CUPTI_ACTIVITY_KIND_MEMSET: write_memset(*reinterpret_cast<CUpti_ActivityMemset4 *>(record)); break;
        case CUPTI_ACTIVITY_KIND_MEMORY2: write_memory(*reinterpret_cast<CUpti_ActivityMemory4 *>(record)); break;
        case CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER:
            write_um(*reinterpret_cast<CUpti_ActivityUnifiedMemoryCounter3 *>(record));
            break;
        case CUPTI_ACTIVITY_KIND_DEVICE: write_device(*reinterpret_cast<CUpti_ActivityDevice5 *>(record)); break;
        default: break;
        }
    }
    size_t dropped = 0;
    if (api.cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS && dropped > 0)
        sink_write(Line().field("type", records::kDropped).field("count", std::uint64_t(dropped)));
    std::free(buffer);
}

void trace_note(const std::string &text) { sink_write(Line().field("type", records::kNote).field("text", text)); }

// Migrations and faults answer "what moved and why"; thrashing, throttling and
// remote maps say the driver stopped migrating pages that both sides keep
// touching (a kernel then waits, or reads them over the link, with few or no
// faults recorded).
constexpr CUpti_ActivityUnifiedMemoryCounterKind kBasicCounters[] = {
    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD,
    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH,
    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT,
    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT};
constexpr CUpti_ActivityUnifiedMemoryCounterKind kThrashingCounters[] = {
    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THRASHING, CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THROTTLING,
    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_REMOTE_MAP};

CUptiResult configure_counters(const CuptiTable &api, bool with_thrashing) {
    std::vector<CUpti_ActivityUnifiedMemoryCounterKind> kinds(std::begin(kBasicCounters), std::end(kBasicCounters));
    if (with_thrashing) kinds.insert(kinds.end(), std::begin(kThrashingCounters), std::end(kThrashingCounters));
    std::vector<CUpti_ActivityUnifiedMemoryCounterConfig> config;
    for (auto kind : kinds) {
        CUpti_ActivityUnifiedMemoryCounterConfig c;
        std::memset(&c, 0, sizeof c);
        // scope and deviceId are ignored since CUDA 7.0 (the header says
        // deprecated): the counters cover every device of the process.
        c.scope = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_SINGLE_DEVICE;
        c.kind = kind;
        c.deviceId = 0;
        c.enable = 1;
        config.push_back(c);
    }
    return api.cuptiActivityConfigureUnifiedMemoryCounter(config.data(), uint32_t(config.size()));
}

// Every counter kind where the platform has them; where the thrashing kinds
// are refused, the four basic ones, so that faults are never lost to them.
void configure_unified_memory(const CuptiTable &api) {
    CUptiResult r = configure_counters(api, true);
    if (r != CUPTI_SUCCESS) {
        const CUptiResult basic = configure_counters(api, false);
        if (basic == CUPTI_SUCCESS)
            trace_note("unified-memory thrashing, throttling and remote-map counters not traced: " + cupti_error(r));
        r = basic;
    }
    if (r == CUPTI_SUCCESS) r = api.cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
    if (r != CUPTI_SUCCESS) trace_note("unified-memory counters not traced: " + cupti_error(r));
}

// The unified-memory counters can be configured only once the driver has a
// context (from InitializeInjection they fail with CUPTI_ERROR_NOT_READY):
// on the first context's creation.
bool g_unified_memory_wanted = false;
std::once_flag g_unified_memory_once;

// The trace pass's own subscriber: contexts created (for the unified-memory
// counters) and launches (for their call sites).
void CUPTIAPI on_callback(void *, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void *data) {
    if (domain == CUPTI_CB_DOMAIN_RESOURCE && id == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) trace_context_created();
    if (is_graph_node_event(domain, id)) on_graph_node_event(id, data);
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API && (is_kernel_launch(id) || is_graph_launch(id))) {
        const auto &cb = *static_cast<const CUpti_CallbackData *>(data);
        if (cb.callbackSite == CUPTI_API_ENTER) note_launch_site(cb.correlationId);
    }
}

}  // namespace

void trace_on_kernel(void (*hook)(std::uint32_t, std::uint64_t)) { g_kernel_hook = hook; }

void trace_context_created() {
    if (g_unified_memory_wanted) std::call_once(g_unified_memory_once, [] { configure_unified_memory(cupti()); });
}

std::string trace_start(bool unified_memory, bool subscribe) {
    const auto &api = cupti();
    if (!api.reason.empty()) return api.reason;
    if (CUptiResult r = api.cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed); r != CUPTI_SUCCESS)
        return "cuptiActivityRegisterCallbacks failed: " + cupti_error(r);
    // DEVICE first: its records describe every device at once.
    for (auto kind : {CUPTI_ACTIVITY_KIND_DEVICE, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                      CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_MEMORY2}) {
        if (CUptiResult r = api.cuptiActivityEnable(kind); r != CUPTI_SUCCESS) {
            if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
                return "cuptiActivityEnable(CONCURRENT_KERNEL) failed: " + cupti_error(r);
            trace_note("activity kind " + std::to_string(int(kind)) + " not traced: " + cupti_error(r));
        }
    }
    // A buffer that has filled is delivered within 100 ms rather than when
    // CUPTI's heuristics say. The periodic flush delivers full buffers only:
    // one still filling waits for the exit's flush, so a program that crashes
    // loses the records of its unfilled buffers (the signal handler cannot
    // flush CUPTI safely), all of them for a short program.
    if (api.cuptiActivityFlushPeriod) api.cuptiActivityFlushPeriod(100);
    g_unified_memory_wanted = unified_memory;
    if (subscribe) trace_watch_contexts();
    return "";
}

void trace_watch_contexts() {
    const auto &api = cupti();
    CUpti_SubscriberHandle subscriber = nullptr;
    if (call_sites_wanted()) {  // launches too, for their call sites
        if (std::string why = subscribe_to_launches(&subscriber, on_callback, {CUPTI_CBID_RESOURCE_CONTEXT_CREATED});
            !why.empty())
            trace_note("call sites and unified-memory counters not traced: " + why);
        return;
    }
    if (!g_unified_memory_wanted) return;
    CUptiResult r = api.cuptiSubscribe(&subscriber, on_callback, nullptr);
    if (r == CUPTI_SUCCESS)
        r = api.cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
    if (r != CUPTI_SUCCESS) trace_note("unified-memory counters not traced: cuptiSubscribe: " + cupti_error(r));
}

void trace_detach() {
    const auto &api = cupti();
    if (!api.reason.empty()) return;
    g_kernel_hook = nullptr;
    for (auto kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
                      CUPTI_ACTIVITY_KIND_MEMORY2, CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER, CUPTI_ACTIVITY_KIND_DEVICE})
        api.cuptiActivityDisable(kind);
    trace_flush();
}

void trace_flush() {
    const auto &api = cupti();
    if (api.cuptiActivityFlushAll) api.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    sink_flush();
}

}  // namespace gmexplain
