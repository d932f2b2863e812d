// The unified-memory counters without a GPU: CUPTI's activity API faked, so
// that the accounting of the records, the draining of stale ones, the
// enabling around each count and every "why not" can be checked.
#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include <cupti_activity.h>

#include "core/counters/counters.hpp"
#include "core/counters/unified_memory_activity.hpp"
#include "core/error.hpp"

namespace gmlab {
namespace {

struct FakeLoader {
    explicit FakeLoader(CuptiLoader loader) { set_cupti_loader_for_testing(std::move(loader)); }
    ~FakeLoader() { set_cupti_loader_for_testing(nullptr); }
};

constexpr int kHtoD = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD;
constexpr int kDtoH = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH;
constexpr int kCpuFault = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT;
constexpr int kGpuFault = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT;

// What one counted launch of a faulting read could report.
std::vector<FakeActivityRecord> one_launch() {
    return {{kHtoD, 65536},
            {kHtoD, 4096},
            {kDtoH, 4096},
            {kGpuFault, 3},
            {kGpuFault, 2},
            {kCpuFault, 0x401000},  // the value is the faulting instruction, not a count
            {kCpuFault, 0x401008},
            {CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THRASHING, 2097152},
            {CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_REMOTE_MAP, 8192},
            {CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOD, 4096},
            // Another activity kind in the same buffer is not the counters' business.
            {kHtoD, 1 << 30, CUPTI_ACTIVITY_KIND_MEMCPY}};
}

CuptiLoad fake_activity(const std::string &failing, CUptiResult status, std::vector<FakeActivityRecord> records,
                        std::vector<FakeActivityRecord> stale = {}) {
    CuptiLoad l;
    l.library = "fake";
    l.reason = "the range profiler is not faked here";
    l.activity = fake_cupti_activity_api(failing, status, std::move(records), std::move(stale));
    return l;
}

TEST(UnifiedMemoryCounters, RecordsAreAddedUpByKind) {
    FakeLoader fake([] { return fake_activity("", CUPTI_SUCCESS, one_launch()); });
    ASSERT_TRUE(unified_memory_availability(0).available) << unified_memory_availability(0).reason;
    int runs = 0;
    const UnifiedMemoryCounts c = count_unified_memory(0, [&] {
        ++runs;
        return 0;
    });
    EXPECT_EQ(runs, 1);
    EXPECT_EQ(c.bytes_htod, 65536 + 4096);
    EXPECT_EQ(c.bytes_dtoh, 4096);
    EXPECT_EQ(c.gpu_page_faults, 2);   // records: faulting pages
    EXPECT_EQ(c.gpu_fault_groups, 5);  // the groups they report
    EXPECT_EQ(c.cpu_page_faults, 2);
    EXPECT_EQ(c.thrashing, 1);
    EXPECT_EQ(c.remote_map_bytes, 8192);
    EXPECT_EQ(c.other_records, 1);  // device to device
    const auto named = c.as_counters();
    EXPECT_EQ(named.at("um_bytes_htod"), 69632);
    EXPECT_EQ(named.at("um_gpu_fault_groups"), 5);
    EXPECT_EQ(named.at("um_cpu_page_faults"), 2);
    EXPECT_EQ(named.at("um_thrashing"), 1);
    EXPECT_EQ(named.count("um_other_records"), 0u);
}

TEST(UnifiedMemoryCounters, EachCountTakesOnlyItsOwnRecords) {
    // Records left from before counting (and those of the availability trial)
    // are drained and dropped; two counts each see exactly one launch's records.
    FakeLoader fake([] { return fake_activity("", CUPTI_SUCCESS, {{kHtoD, 4096}, {kGpuFault, 1}}, {{kHtoD, 1 << 20}}); });
    for (int i = 0; i < 2; ++i) {
        const UnifiedMemoryCounts c = count_unified_memory(0, [] { return 0; });
        EXPECT_EQ(c.bytes_htod, 4096) << "count " << i;
        EXPECT_EQ(c.gpu_fault_groups, 1) << "count " << i;
    }
    // The kind is on only while counting: every enabling was undone.
    EXPECT_EQ(fake_activity_enabled_count(), 3);  // the availability trial and the two counts
    EXPECT_EQ(fake_activity_enabled_count(), fake_activity_disabled_count());
}

TEST(UnifiedMemoryCounters, AFailingRunIsACudaErrorAndLeavesTheKindOff) {
    FakeLoader fake([] { return fake_activity("", CUPTI_SUCCESS, one_launch()); });
    try {
        count_unified_memory(0, [] { return 2; /* cudaErrorMemoryAllocation */ });
        FAIL() << "a failing run must throw";
    } catch (const Error &e) {
        EXPECT_EQ(e.status(), GM_ERROR_CUDA);
        EXPECT_NE(std::string(e.what()).find("counted for unified memory failed"), std::string::npos) << e.what();
    }
    EXPECT_EQ(fake_activity_enabled_count(), fake_activity_disabled_count());
    // The next count is clean.
    EXPECT_EQ(count_unified_memory(0, [] { return 0; }).bytes_htod, 65536 + 4096);
}

TEST(UnifiedMemoryCounters, ADeviceWithoutThemSaysSo) {
    FakeLoader fake([] {
        return fake_activity("cuptiActivityConfigureUnifiedMemoryCounter", CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_ON_DEVICE, {});
    });
    const UnifiedMemoryAvailability a = unified_memory_availability(0);
    EXPECT_FALSE(a.available);
    EXPECT_NE(a.reason.find("cuptiActivityConfigureUnifiedMemoryCounter"), std::string::npos) << a.reason;
    EXPECT_NE(a.reason.find("CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_ON_DEVICE"), std::string::npos) << a.reason;
    EXPECT_NE(a.reason.find("does not support the unified-memory counters"), std::string::npos) << a.reason;
    try {
        count_unified_memory(0, [] { return 0; });
        FAIL() << "counting without the counters must throw";
    } catch (const Error &e) {
        EXPECT_EQ(e.status(), GM_ERROR_NOT_SUPPORTED);
        EXPECT_EQ(std::string(e.what()), a.reason);
    }
}

TEST(UnifiedMemoryCounters, AnotherClientIsNamed) {
    FakeLoader fake([] { return fake_activity("cuptiActivityEnable", CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, {}); });
    const UnifiedMemoryAvailability a = unified_memory_availability(0);
    EXPECT_FALSE(a.available);
    EXPECT_NE(a.reason.find("Another profiler"), std::string::npos) << a.reason;
}

TEST(UnifiedMemoryCounters, RefusedPolicyKindsLeaveTheModelsCounters) {
    FakeLoader fake([] { return fake_activity("configure_policies", CUPTI_ERROR_INVALID_PARAMETER, one_launch()); });
    ASSERT_TRUE(unified_memory_availability(0).available);
    const auto named = count_unified_memory(0, [] { return 0; }).as_counters();
    EXPECT_EQ(named.at("um_bytes_htod"), 69632);
    EXPECT_EQ(named.count("um_thrashing"), 0u);
    EXPECT_EQ(named.count("um_remote_map_bytes"), 0u);
}

TEST(UnifiedMemoryCounters, NoActivityTableGivesTheLoadersReason) {
    FakeLoader fake([] {
        CuptiLoad l;
        l.reason = "libcupti could not be loaded (libcupti.so.13: cannot open shared object file)";
        l.activity_reason = l.reason;
        return l;
    });
    const UnifiedMemoryAvailability a = unified_memory_availability(0);
    EXPECT_FALSE(a.available);
    EXPECT_NE(a.reason.find("libcupti.so.13"), std::string::npos) << a.reason;
}

TEST(UnifiedMemoryCounters, TheRealLoaderNamesAMissingFileForTheActivityApiToo) {
    setenv("GM_CUPTI_LIBRARY", "/nonexistent/libcupti.so", 1);
    set_cupti_loader_for_testing(nullptr);
    const CuptiLoad &l = load_cupti();
    unsetenv("GM_CUPTI_LIBRARY");
    EXPECT_FALSE(l.activity);
    EXPECT_NE(l.activity_reason.find("/nonexistent/libcupti.so"), std::string::npos) << l.activity_reason;
    set_cupti_loader_for_testing(nullptr);
}

TEST(UnifiedMemoryCounters, ARecordOfTheCurrentLayoutIsRead) {
    CUpti_ActivityUnifiedMemoryCounter3 r;
    std::memset(&r, 0, sizeof r);
    r.kind = CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER;
    r.counterKind = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT;
    r.value = 7;
    UnifiedMemoryCounts c;
    add_unified_memory_record(&r, c);
    add_unified_memory_record(&r, c);
    EXPECT_EQ(c.gpu_page_faults, 2);
    EXPECT_EQ(c.gpu_fault_groups, 14);
    r.kind = CUPTI_ACTIVITY_KIND_KERNEL;
    add_unified_memory_record(&r, c);
    EXPECT_EQ(c.gpu_page_faults, 2);
}

}  // namespace
}  // namespace gmlab
