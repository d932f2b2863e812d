#include "inject/sites/python_frames.hpp"

#include <dlfcn.h>

#include <map>
#include <mutex>

namespace gmexplain {

namespace {

// CPython's C API as far as the walk needs it; every entry is part of the
// stable or public API since Python 3.9 (PyThreadState_GetFrame, PyFrame_GetBack,
// PyFrame_GetCode), so one table serves 3.9 to 3.13.
struct PyApi {
    int (*is_initialized)() = nullptr;
    int (*is_finalizing)() = nullptr;  // Py_IsFinalizing (3.13) or _Py_IsFinalizing
    void *(*this_thread_state)() = nullptr;
    int (*gil_ensure)() = nullptr;
    void (*gil_release)(int) = nullptr;
    void *(*thread_frame)(void *) = nullptr;
    void *(*frame_back)(void *) = nullptr;
    void *(*frame_code)(void *) = nullptr;
    int (*frame_line)(void *) = nullptr;
    void *(*get_attr)(void *, const char *) = nullptr;
    const char *(*utf8)(void *) = nullptr;
    void (*incref)(void *) = nullptr;
    void (*decref)(void *) = nullptr;
    void (*err_clear)() = nullptr;
    bool ok = false;
};

template <class F> void find_python_symbol(F &fn, const char *name) { fn = reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name)); }

const PyApi &python_api() {
    static PyApi api;
    static std::once_flag once;
    std::call_once(once, [] {
        find_python_symbol(api.is_initialized, "Py_IsInitialized");
        find_python_symbol(api.is_finalizing, "Py_IsFinalizing");
        if (!api.is_finalizing) find_python_symbol(api.is_finalizing, "_Py_IsFinalizing");
        find_python_symbol(api.this_thread_state, "PyGILState_GetThisThreadState");
        find_python_symbol(api.gil_ensure, "PyGILState_Ensure");
        find_python_symbol(api.gil_release, "PyGILState_Release");
        find_python_symbol(api.thread_frame, "PyThreadState_GetFrame");
        find_python_symbol(api.frame_back, "PyFrame_GetBack");
        find_python_symbol(api.frame_code, "PyFrame_GetCode");
        find_python_symbol(api.frame_line, "PyFrame_GetLineNumber");
        find_python_symbol(api.get_attr, "PyObject_GetAttrString");
        find_python_symbol(api.utf8, "PyUnicode_AsUTF8");
        find_python_symbol(api.incref, "Py_IncRef");
        find_python_symbol(api.decref, "Py_DecRef");
        find_python_symbol(api.err_clear, "PyErr_Clear");
        api.ok = api.is_initialized && api.this_thread_state && api.gil_ensure && api.gil_release && api.thread_frame &&
                 api.frame_back && api.frame_code && api.frame_line && api.get_attr && api.utf8 && api.incref &&
                 api.decref && api.err_clear;
    });
    return api;
}

bool path_contains(const std::string &s, const char *part) { return s.find(part) != std::string::npos; }

// What a code object says of itself, looked up once: the object is kept
// alive (one reference) so that its address is never reused by another.
struct CodeFacts {
    std::string file, function;
    bool user = false;
};

std::string text_attribute(const PyApi &api, void *object, const char *name) {
    void *value = api.get_attr(object, name);
    if (!value) {
        api.err_clear();
        return "";
    }
    const char *text = api.utf8(value);
    std::string out = text ? text : "";
    if (!text) api.err_clear();
    api.decref(value);
    return out;
}

// Called with the GIL held (so the map needs no lock of its own).
const CodeFacts &facts_of(const PyApi &api, void *code) {
    static std::map<void *, CodeFacts> known;
    auto it = known.find(code);
    if (it != known.end()) return it->second;
    CodeFacts f;
    f.file = text_attribute(api, code, "co_filename");
    f.function = text_attribute(api, code, "co_qualname");
    if (f.function.empty()) f.function = text_attribute(api, code, "co_name");
    f.user = is_user_python_file(f.file);
    api.incref(code);
    return known.emplace(code, std::move(f)).first->second;
}

// The walk itself, GIL held: innermost frame first.
PythonLine innermost_user_frame(const PyApi &api, void *thread) {
    PythonLine out;
    void *frame = api.thread_frame(thread);
    for (int depth = 0; frame && depth < 256; ++depth) {
        void *code = api.frame_code(frame);
        if (code) {
            const CodeFacts &f = facts_of(api, code);
            api.decref(code);
            if (f.user) {
                out.file = f.file;
                out.function = f.function;
                out.line = api.frame_line(frame);
                break;
            }
        }
        void *back = api.frame_back(frame);
        api.decref(frame);
        frame = back;
    }
    if (frame) api.decref(frame);
    return out;
}

}  // namespace

bool is_user_python_file(const std::string &file) {
    if (file.empty() || file[0] == '<') return false;
    for (const char *not_users : {"/site-packages/", "/dist-packages/", "/lib/python3", "torchinductor_", "/.triton/",
                                  "/gmlab_explain_python/"})
        if (path_contains(file, not_users)) return false;
    return true;
}

bool python_running() {
    const PyApi &api = python_api();
    return api.ok && api.is_initialized();
}

PythonLine python_user_line() {
    const PyApi &api = python_api();
    if (!api.ok || !api.is_initialized()) return {};
    if (api.is_finalizing && api.is_finalizing()) return {};
    // A thread Python has never seen has no thread state: leave it alone.
    if (!api.this_thread_state()) return {};
    const int gil = api.gil_ensure();
    PythonLine out = innermost_user_frame(api, api.this_thread_state());
    api.gil_release(gil);
    return out;
}

}  // namespace gmexplain
