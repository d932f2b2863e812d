// Pass 2: the CUPTI range profiler counts chosen launches of chosen kernels.
// A driver-API callback starts the profiler before each chosen launch and
// stops it after; auto ranges with kernel replay make CUPTI replay that one
// launch as often as the metrics need, saving and restoring the memory it
// writes, so a kernel that is not idempotent counts as it ran. With
// application replay (GMLAB_EXPLAIN_REPLAY=application) the metrics are split
// into one-pass groups and this run counts one group under user replay: each
// counted launch executes once, nothing is saved, restored or replayed; the
// front end runs the program once per group and joins the runs.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace gmexplain {

struct CounterPlan {
    std::set<std::string> kernels;     // mangled names to count
    bool every_kernel = false;         // the single pass: count the first launches of every kernel instead
    std::string kernel_regex;          //   of those whose demangled name matches (empty: all)
    std::size_t max_kernels = 64;      //   at most this many distinct kernels
    std::vector<std::string> metrics;  // range-profiler metric names
    std::uint64_t launch_skip = 0;     // launches of each kernel left alone before counting
    std::uint64_t launch_count = 1;    // launches of each kernel counted
    void (*on_context_created)() = nullptr;  // the single pass: the trace's hook (trace_context_created)
    // The single pass, when > 0: count only the kernels (at their call sites)
    // whose traced time so far ranks among this many, at a launch after the
    // trace has timed one of theirs (counters_kernel_traced), instead of the
    // first launches of every kernel: what a long program can afford.
    std::size_t count_top = 0;
    bool application_replay = false;   // count one one-pass group of the metrics, each launch run once
    std::size_t metric_group = 0;      //   the group this run counts (the split is written as a record)
    bool count_graphs = true;          // the single pass: count a CUDA graph's kernels at its second launch
};

// Subscribes the callbacks; returns "" or why counting is impossible.
std::string counters_start(const CounterPlan &plan);
// Writes how often each chosen kernel was launched (at exit).
void counters_stop();
// An in-process session's end: the callbacks unsubscribed, each context's
// profiler disabled, the profiler deinitialised; counters_start may run again.
void counters_detach();
// The trace's word that launch `correlation` ran for `ns` nanoseconds (called
// from the activity buffers' delivery; count_top's ranking reads it).
void counters_kernel_traced(std::uint32_t correlation, std::uint64_t ns);

}  // namespace gmexplain
