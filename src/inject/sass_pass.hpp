// Pass 3 (--lines): CUPTI's SASS metrics per instruction of the chosen
// kernels, named by source line. The pass runs as its own run of the program
// (GMLAB_EXPLAIN_PASS=lines): SASS metrics patch the kernels' code, which
// would disturb the range profiler's counts and the trace's times.
//
// Each loaded module's cubin is kept (resource callback MODULE_LOADED); the
// first chosen launch in a context enables SASS metrics there (lazy patching:
// from that launch on, every launch of a chosen kernel is summed); at context
// destruction or exit the per-instruction values are flushed, mapped to
// file:line through the cubin's line table (cuptiGetSassToSourceCorrelation,
// which needs nvcc -lineinfo), summed per line and written as "line" records.
#pragma once

#include <cstdint>
#include <set>
#include <string>

namespace gmexplain {

struct LinesPlan {
    std::set<std::string> kernels;  // mangled names (empty: every kernel, as the single pass chooses)
    std::string kernel_regex;       //   those whose demangled name matches (empty: all)
    std::size_t max_kernels = 64;   //   at most this many distinct kernels
    std::uint64_t launch_skip = 0;  // launches of each kernel left alone before its metrics are enabled
};

// Subscribes the callbacks; returns "" or why source lines are impossible.
std::string lines_start(const LinesPlan &plan);
// Flushes what the enabled contexts still hold and writes the line records (at exit).
void lines_stop();

}  // namespace gmexplain
