// Running the user's program: checked before it starts (found, executable, a
// binary or a script whose interpreter exists), then started with the
// injection library's variables and waited for; its own exit status is kept.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gmexplain {

// Why the program cannot be started; the kind picks the exit code.
struct LaunchProblem {
    enum Kind { kNone, kNotFound, kNotExecutable, kNoInterpreter } kind = kNone;
    std::string message;
};

// The file argv[0] names (a PATH search where it has no '/'), checked.
LaunchProblem check_program(const std::string &program, std::string *resolved);

struct ProgramExit {
    int status = 0;       // exit status, or 128 + signal
    int signal = 0;       // the signal that ended it, 0 if it exited
    double seconds = 0;   // wall time
    std::string error;    // why it could not be started at all
};

// Runs argv with the extra variables set; stdin, stdout and stderr are the caller's.
ProgramExit run_program(const std::string &resolved, const std::vector<std::string> &argv,
                        const std::vector<std::pair<std::string, std::string>> &env);

// A C/C++ program's call site (an address in its executable) as a source
// line: addr2line's answer where it is installed and the program carries
// debug information (line 0 otherwise), looked up once per address.
struct HostLine {
    std::string file, function;
    int line = 0;
};
HostLine host_source_line(const std::string &executable, std::uint64_t address);

}  // namespace gmexplain
