// One explanation: pass 1 (trace), the choice of kernels, pass 2 (counters),
// the rules, and the document (docs/explain.md, "The document").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "explain/measure_now.hpp"
#include "explain/program/program_launch.hpp"
#include "explain/trace_records.hpp"
#include "explain/trace_summary.hpp"

namespace gmexplain {

// --measure: when the costs are measured on the spot (docs/explain.md, "Costs measured on the spot").
enum MeasureMode {
    kMeasureNever = 0,       // --no-measure: costs only from a run document
    kMeasureWhereNoRun = 1,  // the default: where no run document of this GPU model is found (never with --from-records)
    kMeasureAlways = 2,      // --measure: always, even where a run document exists
};

struct Options {
    std::vector<std::string> argv;     // the program and its arguments
    int kernels = 5;                   // --kernels: how many of the longest kernels are counted
    std::string kernel_regex;          // --kernel-regex: only kernels whose demangled name matches
    std::uint64_t launch_skip = 0;     // --launch-skip: launches of each kernel left alone before counting
    std::uint64_t launch_count = 1;    // --launch-count: launches of each kernel counted
    std::string replay = "kernel";     // --replay
    int passes = 1;                    // --passes: 1 traces and counts in one run (a second only for kernels
                                       // the first did not count); 2 traces, then counts the longest kernels
    bool counters = true;              // --counters off: pass 1 only
    std::string lab_run;               // --lab-run: the gmlab run document costs are read from
    std::string rules_dir;             // --rules: rule files instead of the compiled-in ones
    std::string injection;             // the injection library ("" : found beside the executable)
    std::string records_dir;           // --records: keep the passes' records here
    std::string from_records;          // --from-records: explain records kept earlier, run nothing
    int measure = kMeasureWhereNoRun;  // --measure, --no-measure
    bool lines = false;                // --lines: pass 3, the chosen kernels' SASS metrics per source line
    Measurer measurer;                 // runs the measurements (empty: measure_with_libgmlab; tests give their own)
};

// Exit codes of gmlab explain beside gmlab's own (README, "Exit codes").
enum ExplainExit {
    kExplainOk = 0,
    kExplainUsage = 2,
    kProgramNotFound = 20,
    kProgramNotExecutable = 21,
    kScriptWithoutInterpreter = 22,
    kNotCudaProgram = 23,
    kNoKernelLaunched = 24,
    kRegexMatchedNothing = 25,
    kInjectionUnavailable = 26,
    kExplainFailed = 27,
};

struct Outcome {
    int exit_code = kExplainOk;
    std::string message;        // for stderr: why explain stopped, or "" when it explained
    nlohmann::json document;    // gmlab.explain/1 (null when nothing was collected)
};

Outcome explain(const Options &options);

// What an in-process session (gmlab_explain_attach, the Python binding's
// explain.session()) needs: the injection library's path as
// GMLAB_EXPLAIN_INJECTION, and the single pass's variables for these options
// (metrics, what to count). Empty with `why` set where the options are bad or
// the library is missing.
std::vector<std::pair<std::string, std::string>> session_env(const Options &o, std::string *why);

// One run of the program under the injection library, and what it wrote.
struct PassRun {
    PassRecords records;
    ProgramExit exit;
    // The single pass's chosen kernels it did not count (each launched once),
    // left so rather than run the program again: together they took less
    // than kRerunShare of the GPU's kernel time. By mangled name and site.
    std::vector<std::pair<std::string, std::string>> not_worth_a_run;
    double not_worth_share = 0;  // their summed share of the kernel time
};

// The share of the kernels' time that uncounted kernels must hold for the
// single pass to run the program once more to count them (a run of the
// program costs more than their findings could gain: each kernel's gains are
// bounded by its own time).
constexpr double kRerunShare = 0.05;

// The kernels to count: --kernel-regex's matches (every kernel without it),
// longest total time first, --kernels of them.
std::vector<KernelSummary> choose_kernels(const std::vector<KernelSummary> &all, const Options &o);

// Applies the rules to what the passes collected and builds the document
// (explain_analysis.cpp). `counting` is null with --counters off.
Outcome analyse(const Options &o, const PassRun &trace, const PassRun *counting, double counting_seconds);

// The injection library's path: $GMLAB_EXPLAIN_INJECTION, else beside `exe_dir`,
// else in exe_dir/../lib; "" when none is found.
std::string find_injection(const std::string &exe_dir);

}  // namespace gmexplain
