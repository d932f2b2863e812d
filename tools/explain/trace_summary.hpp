// Pass 1's picture of the whole program: kernels grouped by name and ranked
// by total time, and the run-wide figures (host transfers, overlap,
// allocations, unified memory) the run-scope rules read.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "explain/trace_records.hpp"

namespace gmexplain {

// One kernel at one call site: the launches of a kernel from different lines
// of the user's program are summarised, ranked and counted apart.
struct KernelSummary {
    std::string mangled, name;  // name: demangled
    std::string short_name;     // what a person reads: one line, distinct among the program's kernels (names/kernel_name.hpp)
    std::string site;           // the call site's key ("" where the launch had none)
    CallSiteRecord call_site;
    std::uint64_t launches = 0, graph_launches = 0;
    double total_ms = 0, mean_us = 0, min_us = 0, share_of_gpu_time = 0;
    std::int64_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};  // of the first launch
    int registers = 0, static_shared = 0, dynamic_shared = 0, local_per_thread = 0, device = 0;
    std::uint64_t first_start = 0;  // the first traced launch's start (0: none was traced)
};

// Whether a counted launch is one of `kernel`'s: the same kernel, at the same
// call site where the counting run knew one.
inline bool counts_for(const CounterRecord &c, const KernelSummary &kernel) {
    return c.mangled == kernel.mangled && (c.site.empty() || c.site == kernel.site);
}

// Every kernel at each of its call sites, longest total time first, each
// with its short name.
std::vector<KernelSummary> summarize_kernels(const PassRecords &trace);

// Named figures of the whole run (see the run-scope rules for their use):
// copy_ms, copy_bytes, pageable_copies, pageable_bytes, pageable_ms,
// small_copies, small_copy_ms, copy_kernel_overlap_share, serial_span_ms,
// device_allocs, device_frees, allocs_between_kernels, mean_alloc_bytes,
// kernel_ms, gpu_span_ms, gpu_busy_ms, copy_before_kernels_ms, removable_busy_ms
// (what overlapping copies with kernels can remove at best), and the
// unified-memory figures below.
// `counted_us` is each counted kernel's profiler time per launch
// (counted_times_us); empty: read from the trace's own counters (the single pass).
std::map<std::string, double> run_figures(const PassRecords &trace, std::map<std::string, double> counted_us = {});

// The mean gpu__time_duration of each kernel's counted launches, in µs, by mangled name.
std::map<std::string, double> counted_times_us(const PassRecords &counted);

// Unified memory over the whole run, every record counted wherever it falls
// (trace_waits.cpp): um_gpu_page_faults (GPU fault records: one per faulting
// page), um_gpu_fault_groups (the groups they report, at least 1 each),
// um_cpu_page_faults (records: a CPU fault's value is an instruction address),
// um_bytes_htod, um_bytes_dtoh, um_bytes_htod_on_demand (not asked for by a
// prefetch), um_bytes_htod_in_kernels (of those, the transfers that overlapped
// a traced kernel launch), um_thrashing, um_throttling, um_remote_map (the
// driver's events), um_managed_bytes (the most managed memory allocated at
// once), fault_kernel_ms (the traced time of launches that waited on unified
// memory: a GPU fault, an on-demand transfer to the device or a driver event
// overlapped them; or none did, but they ran far slower than counted while
// managed memory was allocated and no other kernel shared the device, whose
// time is also unrecorded_wait_ms) and fault_excess_ms (of fault_kernel_ms,
// the time above each kernel's counted time; all of it where none was counted).
void add_unified_memory_figures(const PassRecords &trace, const std::map<std::string, double> &counted_us,
                                std::map<std::string, double> &f);

// A traced launch is slow when it took more than kSlowRatio times the
// kernel's counted time and at least kSlowMinExcessUs more. The counted launch
// ran under the profiler after its earlier replays (caches warm): a cold L2
// costs at most the L2's bandwidth over DRAM's (2 to 3x, for data that fits
// in L2), a clock change under 2x, so above 3x something else held the launch
// (a heuristic); 10 µs is above the few microseconds of a traced launch's
// floor, which would make tiny kernels look slow.
constexpr double kSlowRatio = 3.0;
constexpr double kSlowMinExcessUs = 10.0;

// A kernel's traced launches against its counted time, and what overlapped
// the slow ones (trace_waits.cpp).
struct Slowdown {
    double counted_us = 0;  // the counted launches' mean gpu__time_duration (0: not counted)
    std::uint64_t traced_launches = 0, slow_launches = 0;
    double traced_mean_us = 0, traced_max_us = 0;
    double slow_ms = 0, excess_ms = 0;  // the slow launches' traced time, and its part above the counted time
    double gpu_page_faults = 0, gpu_fault_groups = 0;  // GPU fault records beside them, and their groups
    double migrated_bytes = 0;                         // on-demand transfers to the device beside them
    double driver_events = 0;                          // thrashing, throttling, remote maps beside them
    double concurrent_ms = 0;                          // other kernels of the same device beside them
    double managed_bytes = 0;                          // managed memory allocated when they started (the most)
    bool first_only = false;                           // only the first traced launch is slow
    // "" (none slow), unified_memory (records beside them), concurrent_kernels,
    // managed_memory (no record, but managed memory allocated), first_launch or unexplained
    std::string cause;
};
Slowdown kernel_slowdown(const PassRecords &trace, const std::string &mangled, double counted_us);

// The device memory a kernel could touch, from the allocations live at its
// first traced launch (on its device): live_device_bytes (their sum: the most
// one launch needs to read once), largest_fitting_alloc_bytes (the largest of
// them no larger than L2, 0 if none), and l2_bytes (the device's L2). Empty
// when the launch was not traced or the device's L2 is unknown.
std::map<std::string, double> kernel_memory_figures(const PassRecords &trace, const KernelSummary &kernel);

// A launch's theoretical occupancy from its block, registers and shared memory
// against what one SM of its device holds (the occupancy calculator's
// arithmetic): theoretical_occupancy (resident warps over the SM's maximum),
// blocks_per_sm, and occupancy_limited_by_registers / _by_shared (1 where
// that resource alone holds the blocks below what the warp and block limits
// allow). Empty where the device record lacks the SM's limits.
std::map<std::string, double> kernel_occupancy_figures(const PassRecords &trace, const KernelSummary &kernel);

// Bytes below which a host transfer counts as small (transfer_batching's 4 KiB
// and 64 KiB copies are both below it).
constexpr std::uint64_t kSmallCopyBytes = 256 * 1024;

}  // namespace gmexplain
