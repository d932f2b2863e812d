// The host call site of a launch in a C or C++ program: the innermost frame
// of the launching thread's stack that lies in the program's own executable
// (not the CUDA runtime, the driver, libc or another library), found with
// backtrace() and dladdr(). Its address is kept as the executable's offset
// (or absolute address, for an executable that is not position independent),
// which the front end turns into a function (from the executable's symbol
// table) and a file and line (where it carries debug information) with
// addr2line. The dynamic symbol dladdr() finds is not used: in an executable
// that exports few symbols it is often another function's.
#pragma once

#include <cstdint>
#include <cstddef>
#include <string>
#include <vector>

namespace gmexplain {

struct HostFrame {
    std::string module;                   // the executable's path; "" when no frame lies in it
    std::vector<std::uint64_t> addresses;  // for addr2line -e module, innermost first
};

// The innermost `depth` frames in the executable: a program linked with the
// static CUDA runtime runs the runtime's launch code, then the kernel's host
// stub, in its own executable before the user's line; the front end skips them.
HostFrame program_frame(std::size_t depth = 6);

}  // namespace gmexplain
