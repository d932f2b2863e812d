// Application replay (docs/explain.md, "Application replay"): the program is
// run once per one-pass group of metrics, each run counting its group on the
// chosen launches, each launch executed once; the runs are joined launch by
// launch (process, kernel, launch ordinal; grid and block as a check). A
// program whose runs differ (an exit status, a kernel's launch count, the
// grid or block or order of its counted launches) is not deterministic, and
// application replay is refused for the kernels that differ (for all of them
// when the exit differs). Pure: the runs' records in, the joined records out.
#pragma once

#include <string>
#include <vector>

#include "explain/trace_records.hpp"

namespace gmexplain {

// One run of the program that counted one group of metrics.
struct ApplicationRun {
    PassRecords records;
    int exit_status = 0;  // as ProgramExit::status: the exit status, or 128 + the signal
};

struct ReplayRefusal {
    std::string mangled;
    std::string reason;  // "run 2 launched it 7 times where run 1 launched it 5 times"
};

struct ApplicationJoin {
    PassRecords counting;                          // every group's metrics per counted launch, as one counting pass
    std::vector<std::vector<std::string>> groups;  // the metric groups, one run each
    std::vector<ReplayRefusal> refused;            // kernels left uncounted: their runs differ
    std::string failure;                           // why nothing could be joined ("" when the runs were joined)
};

// The trace run (its records and exit status) is the first check of each
// kernel's launch count and dimensions; `trace` may be null. `chosen`: the
// mangled names of the kernels counted.
ApplicationJoin join_application_runs(const std::vector<ApplicationRun> &runs, const PassRecords *trace,
                                      int trace_exit_status, const std::vector<std::string> &chosen);

// The note an explanation prints for a refusal: "application replay refused
// for KERNEL: REASON (the program is not deterministic)", and what was done instead.
std::string refusal_note(const ReplayRefusal &refusal, const std::string &instead);

}  // namespace gmexplain
