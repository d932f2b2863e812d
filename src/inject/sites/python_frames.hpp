// The user's own line in a Python program: when a kernel is launched from a
// Python thread, the innermost frame of the call stack whose file is the
// user's (not the standard library, site-packages, or code generated at run
// time such as torch.compile's output), read through CPython's C API, which
// the interpreter exports and which is looked up at run time (the injection
// library links no libpython; in a program without Python this does nothing).
#pragma once

#include <string>

namespace gmexplain {

struct PythonLine {
    std::string file;      // as the code object names it (co_filename)
    int line = 0;          // 0: no Python frame of the user's own code
    std::string function;  // co_qualname (co_name before Python 3.11)
};

// The innermost user frame of the calling thread, when the thread runs
// Python; the GIL is taken for the walk where the thread had released it.
// Threads that never ran Python (a framework's worker threads) get line 0:
// taking the GIL there could wait on a thread that waits on them.
PythonLine python_user_line();

// Whether the process runs a Python interpreter (its frames, not the
// interpreter's own C, are then the user's code).
bool python_running();

// Whether a code object's file is the user's own, by its name: not
// "<frozen ...>" or "<string>", not under lib/python3.X (the standard
// library), site-packages or dist-packages, not torch.compile's or Triton's
// generated code, not gmlab's own start-up hook.
bool is_user_python_file(const std::string &file);

}  // namespace gmexplain
