// Child processes of gmlab, one per GPU, run at the same time: gmlab run
// --parallel and gmlab check re-execute this binary (/proc/self/exe) with
// --device N. Their output is passed on line by line with a "[gpu N] "
// prefix, so that it stays readable when several write at once.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace gmcli {

struct ChildSpec {
    int ordinal = 0;                 // the GPU it measures (for the prefix)
    std::vector<std::string> args;   // after the program name
};

struct ChildOutcome {
    int exit_code = -1;     // the child's exit status; -1 when it did not exit by itself
    bool timed_out = false; // killed after the deadline
    std::string why;        // how it ended, where not by exiting
};

// Starts every child at once and waits for all of them; after `deadline_s`
// seconds (0: none) those still running are killed (SIGTERM, then SIGKILL).
// stdout and stderr of each child go to `out`, prefixed.
// `exe`: the program each child runs ("" : this one, /proc/self/exe).
std::vector<ChildOutcome> run_children(const std::vector<ChildSpec> &children, double deadline_s, std::ostream &out,
                                       const std::string &exe = "");

// This program's own path (/proc/self/exe).
std::string self_executable();

// The arguments a child of gmlab run --parallel gets for `device`: `argv`
// (without the program name) less --parallel and --devices (with its value),
// plus --device N.
std::vector<std::string> child_run_arguments(const std::vector<std::string> &argv, int device);

}  // namespace gmcli
