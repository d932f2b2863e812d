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
// um_gpu_page_faults, um_bytes_htod, um_cpu_page_faults, fault_kernel_ms,
// kernel_ms, gpu_span_ms, gpu_busy_ms.
std::map<std::string, double> run_figures(const PassRecords &trace);

// The device memory a kernel could touch, from the allocations live at its
// first traced launch (on its device): live_device_bytes (their sum: the most
// one launch needs to read once), largest_fitting_alloc_bytes (the largest of
// them no larger than L2, 0 if none), and l2_bytes (the device's L2). Empty
// when the launch was not traced or the device's L2 is unknown.
std::map<std::string, double> kernel_memory_figures(const PassRecords &trace, const KernelSummary &kernel);

// Bytes below which a host transfer counts as small (transfer_batching's 4 KiB
// and 64 KiB copies are both below it).
constexpr std::uint64_t kSmallCopyBytes = 256 * 1024;

}  // namespace gmexplain
