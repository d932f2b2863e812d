// Unified-memory counters: what the driver migrated and how many page faults
// it served, from CUPTI's activity API (CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER).
//
// libcupti is loaded at run time as for the range profiler (cupti_loader.cpp);
// only the activity API is needed, not libnvperf_host. The records are
// collected around one counted repetition, outside the timed ones: tracing
// unified memory slows the driver's fault handling, so the timed repetitions
// run with it off. The records are process-wide: counts are taken with
// nothing else running on the process's devices.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gmlab {

struct CuptiActivityApi;

// The totals of one counted piece of work.
struct UnifiedMemoryCounts {
    double bytes_htod = 0;        // bytes the driver migrated host to device
    double bytes_dtoh = 0;        // and device to host
    double gpu_page_faults = 0;   // GPU fault records: one per faulting page the driver served
    double gpu_fault_groups = 0;  // the fault groups those records report (a record counts the groups of its page)
    double cpu_page_faults = 0;   // CPU page faults on managed memory
    double thrashing = 0;         // regions the driver found thrashing between processors
    double throttling = 0;        // times it throttled a processor's faults
    double remote_map_bytes = 0;  // bytes it mapped remotely instead of migrating
    double other_records = 0;     // records of kinds not listed above (device-to-device, ...)
    // Whether thrashing, throttling and remote maps were asked for: where the
    // driver refuses them, only the first five figures are counted.
    bool policies_counted = true;

    // As a point's counters, under the names docs/counters.md lists
    // (um_bytes_htod, um_gpu_fault_groups, ...).
    std::map<std::string, double> as_counters() const;
};

// Adds one activity record (a CUpti_Activity) to `counts` when it is a
// unified-memory counter record; records of other kinds are left out.
void add_unified_memory_record(const void *record, UnifiedMemoryCounts &counts);

struct UnifiedMemoryAvailability {
    bool available = false;
    std::string reason;  // why not, and what to do
};

// Whether the unified-memory counters can be read: libcupti loads with its
// activity API, the driver accepts the counters' configuration for `device`,
// and the activity kind can be enabled. Checked once per loaded libcupti;
// never throws.
UnifiedMemoryAvailability unified_memory_availability(int device);

// Counts the unified-memory events of `run`, which enqueues work and waits
// for it (returns a cudaError_t as int): stale records are drained first, the
// activity kind is enabled only while `run` runs, and every record is flushed
// before the totals are returned. Throws Error(GM_ERROR_NOT_SUPPORTED, why)
// when counting fails or the counters are not available, and
// Error(GM_ERROR_CUDA) when `run` fails.
UnifiedMemoryCounts count_unified_memory(int device, const std::function<int()> &run);

// For tests: a fake activity API. Every call succeeds except the one named
// `failing_call`, which returns the CUptiResult `status`. Each enabling of the
// unified-memory kind queues `records` (one record each: a counter kind of
// CUpti_ActivityUnifiedMemoryCounterKind, its value, and the record's activity
// kind, 0 for the unified-memory counter kind itself), and `stale` is queued
// once, before any counting, as records of earlier work would be; a flush
// delivers what is queued through the registered buffer callbacks.
struct FakeActivityRecord {
    int counter_kind = 0;
    std::uint64_t value = 0;
    int activity_kind = 0;
};
std::shared_ptr<const CuptiActivityApi> fake_cupti_activity_api(const std::string &failing_call, int status,
                                                                std::vector<FakeActivityRecord> records,
                                                                std::vector<FakeActivityRecord> stale = {});
// How often the fake's unified-memory kind was enabled and disabled (a test
// checks that every enabling is undone).
int fake_activity_enabled_count();
int fake_activity_disabled_count();

}  // namespace gmlab
