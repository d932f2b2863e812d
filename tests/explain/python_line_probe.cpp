// A library the Python test loads with ctypes: it asks python_frames.cpp for
// the user's line from inside a running interpreter, as the injection library
// does from a CUDA launch callback.
#include <cstdio>
#include <string>

#include "inject/sites/python_frames.hpp"

extern "C" __attribute__((visibility("default"))) const char *gmx_python_line() {
    thread_local std::string text;
    const gmexplain::PythonLine l = gmexplain::python_user_line();
    text = l.line > 0 ? l.file + ":" + std::to_string(l.line) + ":" + l.function : "";
    return text.c_str();
}
