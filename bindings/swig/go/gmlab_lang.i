/*
 * gmlab_lang.i - the Go pieces of the shared interface gmlab.i.
 *
 * Errors: GMB_RAISE panics into Go with the text "gmlab-status:<status>:<message>"
 * (of which SWIG's Go side keeps the first 1024 bytes). The panic unwinds
 * through the wrapper's C++ frame without returning, and the idiomatic package
 * (gmlab) recovers it in one place and turns the prefix back into a *gmlab.Error.
 *
 * Because that unwinding skips the rest of the wrapper (its freearg code and
 * destructors), nothing a wrapper allocates may need freeing after the call:
 * strings are read in place from Go memory instead of being copied with malloc,
 * and the panic text lives in thread-local storage.
 */

%{
#include <string>

namespace gmb {

// Never returns: the Go side unwinds this frame.
inline void raise_in_go(int status, const char *message) {
    static thread_local std::string text;
    text = "gmlab-status:" + std::to_string(status) + ":" + (message ? message : "");
    _swig_gopanic(text.c_str());
}

}  // namespace gmb

#define GMB_RAISE(status, message) gmb::raise_in_go((status), (message))

namespace gmb {
// The Go package's names for the document and parameter texts (Go spells
// JSON in capitals): "runJSON is not valid JSON", "paramsJSON must not be empty".
inline const char *go_argument_name(const char *name) {
    const std::string n = name;
    if (n == "runJson") return "runJSON";
    if (n == "paramsJson") return "paramsJSON";
    if (n == "json") return "resultJSON";
    return name;
}
}  // namespace gmb
#define GMB_ARGUMENT_NAME(name) gmb::go_argument_name(name)
%}

/*
 * const char * arguments: Go appends the terminating NUL, and C reads the Go
 * string's bytes for the duration of the call. A Go string holding a NUL ends
 * there, as it would after a copy.
 */
%typemap(goin) const char * %{ $result = $input + "\x00" %}
%typemap(in) const char * %{ $1 = ($1_ltype)$input.p; %}
%typemap(freearg) const char * ""

/*
 * Host arrays: (values, count) pairs become one Go slice, whose backing array C
 * reads or fills in place. A nil or empty slice is an empty transfer. Raw bytes
 * are []byte in Go, where Java and C# use signed bytes.
 */
%define GMB_GO_SLICE(CTYPE, GOTYPE)
%typemap(gotype) (const CTYPE *values, long long count), (CTYPE *values, long long count) "[]GOTYPE"
%typemap(in) (const CTYPE *values, long long count), (CTYPE *values, long long count)
%{
  $1 = ($1_ltype)$input.array;
  $2 = ($2_ltype)$input.len;
%}
%enddef

GMB_GO_SLICE(signed char, byte)
GMB_GO_SLICE(int, int32)
GMB_GO_SLICE(float, float32)
GMB_GO_SLICE(double, float64)
