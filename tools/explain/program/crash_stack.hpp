// Where a program crashed under explain: the stack the injection library
// wrote from its fatal-signal handler (<folder>/<pass>-<pid>.stack, one frame
// a line as glibc's backtrace_symbols_fd writes them), told in one line.
#pragma once

#include <string>
#include <vector>

namespace gmexplain {

// The stack file's lines; empty where the process wrote none.
std::vector<std::string> read_crash_stack(const std::string &folder, const std::string &pass, int pid);

// "libcupti.so.13 < libcuda.so.1 (x2) < libtorch_cuda.so (c10::cuda::...)":
// the innermost frames first, the injection library's own handler left out,
// runs of frames in one library folded, at most max_frames shown. "" for no frames.
std::string crash_stack_summary(const std::vector<std::string> &lines, std::size_t max_frames = 8);

}  // namespace gmexplain
