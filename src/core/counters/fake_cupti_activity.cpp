// A fake of CUPTI's activity API for tests: every call succeeds except the one
// named, and the unified-memory records the test gives are delivered through
// the registered buffer callbacks, as CUPTI delivers its own.
#include <cstring>

#include "core/counters/cupti_api.hpp"
#include "core/counters/unified_memory_activity.hpp"

namespace gmlab {

#if GM_HAVE_CUPTI_HEADERS

namespace {

struct FakeActivity {
    std::string failing;
    CUptiResult status = CUPTI_SUCCESS;
    std::vector<FakeActivityRecord> records, queue;
    CUpti_BuffersCallbackRequestFunc requested = nullptr;
    CUpti_BuffersCallbackCompleteFunc completed = nullptr;
    int enabled = 0, disabled = 0;
};
FakeActivity g_fake;

using Record = CUpti_ActivityUnifiedMemoryCounter3;

CUptiResult fake(const char *call) { return g_fake.failing == call ? g_fake.status : CUPTI_SUCCESS; }

CUptiResult CUPTIAPI get_result_string(CUptiResult r, const char **s) {
    *s = r == CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_ON_DEVICE ? "CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_ON_DEVICE"
                                                                : "CUPTI_ERROR_FAKE";
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI configure(CUpti_ActivityUnifiedMemoryCounterConfig *config, std::uint32_t count) {
    // The policy kinds may be refused on their own ("configure_policies").
    for (std::uint32_t i = 0; i < count; ++i)
        if (config[i].kind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THRASHING && g_fake.failing == "configure_policies")
            return g_fake.status;
    return fake("cuptiActivityConfigureUnifiedMemoryCounter");
}

CUptiResult CUPTIAPI register_callbacks(CUpti_BuffersCallbackRequestFunc requested,
                                        CUpti_BuffersCallbackCompleteFunc completed) {
    g_fake.requested = requested;
    g_fake.completed = completed;
    return fake("cuptiActivityRegisterCallbacks");
}

CUptiResult CUPTIAPI enable(CUpti_ActivityKind kind) {
    if (CUptiResult r = fake("cuptiActivityEnable"); r != CUPTI_SUCCESS) return r;
    if (kind == CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER) {
        ++g_fake.enabled;
        g_fake.queue.insert(g_fake.queue.end(), g_fake.records.begin(), g_fake.records.end());
    }
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI disable(CUpti_ActivityKind kind) {
    if (kind == CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER) ++g_fake.disabled;
    return fake("cuptiActivityDisable");
}

// Delivers every queued record in one buffer of the client's.
CUptiResult CUPTIAPI flush_all(std::uint32_t) {
    if (CUptiResult r = fake("cuptiActivityFlushAll"); r != CUPTI_SUCCESS) return r;
    if (g_fake.queue.empty() || !g_fake.requested || !g_fake.completed) return CUPTI_SUCCESS;
    std::uint8_t *buffer = nullptr;
    std::size_t size = 0, max_records = 0;
    g_fake.requested(&buffer, &size, &max_records);
    std::size_t used = 0;
    for (const FakeActivityRecord &f : g_fake.queue) {
        if (!buffer || used + sizeof(Record) > size) break;
        Record r;
        std::memset(&r, 0, sizeof r);
        r.kind = f.activity_kind ? static_cast<CUpti_ActivityKind>(f.activity_kind) : CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER;
        r.counterKind = static_cast<CUpti_ActivityUnifiedMemoryCounterKind>(f.counter_kind);
        r.value = f.value;
        std::memcpy(buffer + used, &r, sizeof r);
        used += sizeof r;
    }
    g_fake.queue.clear();
    g_fake.completed(nullptr, 0, buffer, size, used);
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI get_next_record(std::uint8_t *buffer, std::size_t valid, CUpti_Activity **record) {
    std::uint8_t *next = *record ? reinterpret_cast<std::uint8_t *>(*record) + sizeof(Record) : buffer;
    if (next + sizeof(Record) > buffer + valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
    *record = reinterpret_cast<CUpti_Activity *>(next);
    return CUPTI_SUCCESS;
}

}  // namespace

std::shared_ptr<const CuptiActivityApi> fake_cupti_activity_api(const std::string &failing_call, int status,
                                                                std::vector<FakeActivityRecord> records,
                                                                std::vector<FakeActivityRecord> stale) {
    g_fake = FakeActivity();
    g_fake.failing = failing_call;
    g_fake.status = static_cast<CUptiResult>(status);
    g_fake.records = std::move(records);
    g_fake.queue = std::move(stale);
    auto api = std::make_shared<CuptiActivityApi>();
    api->cuptiGetResultString = &get_result_string;
    api->cuptiActivityConfigureUnifiedMemoryCounter = &configure;
    api->cuptiActivityRegisterCallbacks = &register_callbacks;
    api->cuptiActivityEnable = &enable;
    api->cuptiActivityDisable = &disable;
    api->cuptiActivityFlushAll = &flush_all;
    api->cuptiActivityGetNextRecord = &get_next_record;
    return api;
}

int fake_activity_enabled_count() { return g_fake.enabled; }
int fake_activity_disabled_count() { return g_fake.disabled; }

#else

std::shared_ptr<const CuptiActivityApi> fake_cupti_activity_api(const std::string &, int, std::vector<FakeActivityRecord>,
                                                                std::vector<FakeActivityRecord>) {
    return nullptr;
}
int fake_activity_enabled_count() { return 0; }
int fake_activity_disabled_count() { return 0; }

#endif

}  // namespace gmlab
