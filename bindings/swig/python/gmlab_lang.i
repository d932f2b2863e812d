/*
 * gmlab_lang.i - the Python side of gmlab.i: how errors are raised, how
 * strings and host memory cross into C.
 *
 * SWIG makes the internal module gmlab.swiggmlab (and its extension
 * gmlab._swiggmlab) from it; the package gmlab (gmlab/__init__.py and the files
 * beside it) is the interface users see.
 *
 * The shared %exception block returns NULL straight after raising, so no
 * freearg code runs on that path: everything a wrapper holds across the call
 * lives in typemap locals with destructors (RAII), never in freearg typemaps.
 */

%{
#include <string>

namespace gmb_py {

// Raises the gmlab.Error subclass for status with message, through
// gmlab._errors.from_status (which knows the classes). The message is UTF-8 and
// may quote the caller's input; bytes that are not UTF-8 are replaced.
inline void raise(int status, const char *message) {
    PyObject *text = PyUnicode_DecodeUTF8(message, (Py_ssize_t)std::strlen(message), "replace");
    PyObject *errors = text ? PyImport_ImportModule("gmlab._errors") : nullptr;
    PyObject *error = errors ? PyObject_CallMethod(errors, "from_status", "iO", status, text) : nullptr;
    if (error) PyErr_SetObject((PyObject *)Py_TYPE(error), error);
    /* otherwise the failure to build the error (ImportError, MemoryError) is pending */
    Py_XDECREF(error);
    Py_XDECREF(errors);
    Py_XDECREF(text);
}

// A Py_buffer released when the wrapper returns, on every path.
struct View {
    Py_buffer b;
    bool held = false;
    View() { std::memset(&b, 0, sizeof b); }
    ~View() {
        if (held) PyBuffer_Release(&b);
    }
    View(const View &) = delete;
    View &operator=(const View &) = delete;
};

// Takes a C-contiguous buffer of obj (writable when out is true) whose size is
// a multiple of elem bytes; false with TypeError/ValueError naming the argument
// otherwise. None is refused here too, with the argument's name.
inline bool get_view(View &v, PyObject *obj, bool out, size_t elem, const char *name) {
    if (obj == Py_None) {
        PyErr_Format(PyExc_TypeError, "%s must not be None", name);
        return false;
    }
    if (!PyObject_CheckBuffer(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must support the buffer protocol (bytes, bytearray, array.array, numpy.ndarray), got %s",
                     name, Py_TYPE(obj)->tp_name);
        return false;
    }
    const int flags = PyBUF_C_CONTIGUOUS | (out ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, &v.b, flags) != 0) {
        PyErr_Clear();
        // Tell the two refusals apart: read-only, or not C-contiguous.
        if (out && PyObject_GetBuffer(obj, &v.b, PyBUF_C_CONTIGUOUS) == 0) {
            PyBuffer_Release(&v.b);
            PyErr_Format(PyExc_TypeError, "%s must be writable", name);
        } else {
            PyErr_Format(PyExc_ValueError, "%s must be C-contiguous", name);
        }
        return false;
    }
    v.held = true;
    if (v.b.len % (Py_ssize_t)elem != 0) {
        PyErr_Format(PyExc_ValueError, "%s must hold a whole number of %zu-byte elements, got %zd bytes", name, elem,
                     v.b.len);
        return false;
    }
    return true;
}

}  // namespace gmb_py

#define GMB_RAISE(status, message) gmb_py::raise((status), (message))

namespace gmb_py {
// The Python package's names for the document and parameter texts:
// resolve_params(experiment, params), Result.from_json(text), loads_run(text).
inline const char *argument_name(const char *name) {
    const std::string n = name;
    if (n == "paramsJson") return "params";
    if (n == "runJson" || n == "json") return "text";
    return name;
}
}  // namespace gmb_py
#define GMB_ARGUMENT_NAME(name) gmb_py::argument_name(name)
%}

/* ---- Strings ------------------------------------------------------------- */

/* str in, read in place as UTF-8 (valid while the call runs); None stays NULL
   so that the shared checks name the argument. A str holding a NUL is refused
   (C would read only up to it). */
%typemap(in) const char * {
    $1 = nullptr;
    if ($input != Py_None) {
        if (!PyUnicode_Check($input)) {
            PyErr_Format(PyExc_TypeError, "$1_name must be a str, got %s", Py_TYPE($input)->tp_name);
            SWIG_fail;
        }
        Py_ssize_t length = 0;
        const char *utf8 = PyUnicode_AsUTF8AndSize($input, &length);
        if (!utf8) SWIG_fail;
        if ((Py_ssize_t)std::strlen(utf8) != length) {
            PyErr_SetString(PyExc_ValueError, "$1_name must not contain a NUL character");
            SWIG_fail;
        }
        $1 = const_cast<$1_ltype>(utf8);
    }
}
%typemap(freearg) const char * ""
%typemap(typecheck, precedence=SWIG_TYPECHECK_STRING) const char * {
    $1 = ($input == Py_None || PyUnicode_Check($input)) ? 1 : 0;
}

/* ---- Host memory ---------------------------------------------------------- */

/*
 * (const T *values, long long count) takes any C-contiguous object with the
 * buffer protocol (bytes, bytearray, memoryview, array.array, numpy arrays) and
 * reads it in place: no copy. (T *values, long long count) needs a writable one
 * and fills it in place. count is the number of T-sized elements it holds.
 */
%define GMB_PY_BUFFER(CTYPE)
%typemap(in) (const CTYPE *values, long long count) (gmb_py::View pyview) {
    if (!gmb_py::get_view(pyview, $input, false, sizeof(CTYPE), "$1_name")) SWIG_fail;
    $1 = ($1_ltype)pyview.b.buf;
    $2 = (long long)(pyview.b.len / (Py_ssize_t)sizeof(CTYPE));
}
%typemap(in) (CTYPE *values, long long count) (gmb_py::View pyview) {
    if (!gmb_py::get_view(pyview, $input, true, sizeof(CTYPE), "$1_name")) SWIG_fail;
    $1 = ($1_ltype)pyview.b.buf;
    $2 = (long long)(pyview.b.len / (Py_ssize_t)sizeof(CTYPE));
}
%typemap(typecheck) (const CTYPE *values, long long count), (CTYPE *values, long long count) {
    $1 = PyObject_CheckBuffer($input) ? 1 : 0;
}
%enddef

GMB_PY_BUFFER(signed char)
GMB_PY_BUFFER(int)
GMB_PY_BUFFER(float)
GMB_PY_BUFFER(double)

/* ---- Handles --------------------------------------------------------------- */

/* The wrapper classes are internal: gmlab.Context, Buffer and Result own them
   and close them explicitly (through delete_Context, ...). */
