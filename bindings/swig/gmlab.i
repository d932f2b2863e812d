/*
 * gmlab.i - the one SWIG interface behind the Java, C#, Go and Python bindings.
 *
 * The C API's handles become classes (Context, Buffer, Result) whose methods
 * are written here once, on top of gmlab.h. Every method reports failure the
 * same way: it records the status and the library's message in gmb::pending,
 * and the single %exception block below turns that into the language's error
 * (GMB_RAISE, defined by each language's gmlab_lang.i). Sizes and offsets are
 * signed 64-bit here, so that a negative value from Java or C# is refused with
 * a clear message before it reaches C, where it would wrap around.
 *
 * Per-language pieces live in java/, csharp/, go/ and python/: gmlab_lang.i (GMB_RAISE,
 * array typemaps, ownership interfaces) and the idiomatic layer and tests.
 */
%module gmlab

%include <std_string.i>

%{
#include <dlfcn.h>

#include <cstring>
#include <string>

#include "gmlab.h"

namespace gmb {

// What a refused argument was wrong with, for languages that have their own
// exceptions for it (C#: ArgumentNullException, ObjectDisposedException, ...).
// A failure of the library itself is Kind::None.
enum class Kind { None = 0, Null = 1, Empty = 2, OutOfRange = 3, Closed = 4 };

// The failure a wrapped call leaves for the %exception block (per thread):
// the status and message, and for a refused argument its kind and name (the
// class name, "Context", for a closed handle).
struct Pending {
    int status = GM_OK;
    std::string message;
    Kind kind = Kind::None;
    std::string argument;
};
inline Pending &pending() {
    static thread_local Pending p;
    return p;
}
inline void clear() {
    pending() = Pending();
}
inline void raise(int status, const std::string &message) {
    pending().status = status;
    pending().message = message;
}
// A refused argument: INVALID_ARGUMENT, with its kind and name kept.
inline void refuse(Kind kind, const std::string &argument, const std::string &message) {
    raise(GM_ERROR_INVALID_ARGUMENT, message);
    pending().kind = kind;
    pending().argument = argument;
}
inline void refuse_null(const char *name) { refuse(Kind::Null, name, std::string(name) + " must not be null"); }
inline void refuse_range(const char *name, long long count, long long got) {
    refuse(Kind::OutOfRange, name, std::string(name) + " must be in 0.." + std::to_string(count - 1) + ", got " +
                                       std::to_string(got));
}
// Records a failed gm_ call; true when it failed.
inline bool failed(gm_status s, const char *message) {
    if (s == GM_OK) return false;
    raise(s, message && *message ? message : gm_status_string(s));
    return true;
}
// The same for a call whose message is in gm_last_error(). The message is read
// here, once the call has returned: passed beside the call as an argument, it
// could be read before the call runs (the order is unspecified).
inline bool failed_last(gm_status s) { return failed(s, gm_last_error()); }
inline bool failed_on(gm_status s, const gm_context *ctx) {
    return failed(s, ctx ? gm_context_last_error(ctx) : gm_last_error());
}
inline bool closed(const void *self, const char *what) {
    if (self) return false;
    refuse(Kind::Closed, what, std::string("this ") + what + " is closed");
    return true;
}
inline bool bad_text(const char *s, const char *name) {
    if (s && *s) return false;
    if (s) refuse(Kind::Empty, name, std::string(name) + " must not be empty");
    else refuse_null(name);
    return true;
}
inline bool negative(long long v, const char *name) {
    if (v >= 0) return false;
    refuse(Kind::OutOfRange, name, std::string(name) + " must be >= 0, got " + std::to_string(v));
    return true;
}
inline std::string take(char *s) {
    std::string out = s ? s : "";
    gm_free_string(s);
    return out;
}

// Array transfers shared by every element type: offset in bytes, count in elements.
// The buffer class's name in the caller's language (C#: DeviceBuffer, which
// does not collide with System.Buffer), for "this Buffer is closed".
#if defined(SWIGCSHARP)
constexpr const char *kBuffer = "DeviceBuffer";
#else
constexpr const char *kBuffer = "Buffer";
#endif

inline void upload(gm_buffer *b, long long offset, const void *values, long long count, size_t elem) {
    if (closed(b, kBuffer) || negative(offset, "offset") || negative(count, "count")) return;
    if (!values && count > 0) { refuse_null("values"); return; }
    failed_last(gm_buffer_upload(b, (size_t)offset, values, (size_t)count * elem));
}
inline void download(const gm_buffer *b, long long offset, void *values, long long count, size_t elem) {
    if (closed(b, kBuffer) || negative(offset, "offset") || negative(count, "count")) return;
    if (!values && count > 0) { refuse_null("values"); return; }
    failed_last(gm_buffer_download(b, (size_t)offset, values, (size_t)count * elem));
}

inline void stencil(gm_context *ctx, const gm_buffer *input, gm_buffer *output, long long n, const float *c, long long count,
                    bool constant) {
    if (closed(ctx, "Context")) return;
    if (!input || !output) { refuse_null(input ? "output" : "input"); return; }
    if (negative(n, "n")) return;
    if (!c) { refuse_null("coefficients"); return; }
    if (count != 4) { refuse(Kind::OutOfRange, "coefficients", "coefficients must hold 4 values, got " + std::to_string(count)); return; }
    const gm_status s = constant ? gm_stencil_constant(ctx, input, output, (size_t)n, c)
                                    : gm_stencil_readonly(ctx, input, output, (size_t)n, c);
    failed_on(s, ctx);
}

}  // namespace gmb
%}

/* GMB_RAISE(status, message) and the language's typemaps. */
%include "gmlab_lang.i"

%{
/* A document or parameter text's name as the caller's language spells it:
   gmlab.i's own names (runJson, paramsJson, json) are Java's and C#'s; a
   language whose idiomatic layer names them otherwise defines
   GMB_ARGUMENT_NAME(name) in its gmlab_lang.i (Go: runJSON, Python: params). */
#ifndef GMB_ARGUMENT_NAME
#define GMB_ARGUMENT_NAME(name) (name)
#endif
namespace gmb {
/* Records a failed gm_ call whose message may begin with the C parameter's
   name ("run_json is not valid JSON"): that name becomes the caller's. */
inline void rename_argument(const char *c_name, const char *name) {
    std::string &m = pending().message;
    const std::string prefix = std::string(c_name) + " ";
    if (m.compare(0, prefix.size(), prefix) == 0) m = std::string(GMB_ARGUMENT_NAME(name)) + m.substr(prefix.size() - 1);
}
inline bool failed_naming(gm_status s, const char *c_name, const char *name) {
    if (!failed_last(s)) return false;
    rename_argument(c_name, name);
    return true;
}
}  // namespace gmb
%}

%exception {
    gmb::clear();
    $action
    if (gmb::pending().status != GM_OK) {
        GMB_RAISE(gmb::pending().status, gmb::pending().message.c_str());
#if defined(SWIGPYTHON)
        SWIG_fail; /* the exception is set; the wrapper returns NULL */
#elif !defined(SWIGGO)
        return $null; /* the exception is pending in the caller's language */
#endif
    }
}

/* Status codes, as the C header numbers them (Status.OK, Status.NO_DEVICE, ...). */
%inline %{
struct Status {
    enum {
        OK = 0,
        INVALID_ARGUMENT = -1,
        NO_DEVICE = -2,
        NOT_SUPPORTED = -3,
        OUT_OF_MEMORY = -4,
        CUDA = -5,
        VERIFICATION_FAILED = -6,
        UNKNOWN_EXPERIMENT = -7,
        INTERNAL = -8
    };
};
%}

/* Variants of Context.transpose and Context.matmul, and the access properties
   of Context.setL2Window, as the C header numbers them. The numbers are written
   out (some languages copy them as literals); the checks below keep them equal
   to the header's. */
%inline %{
struct Transpose {
    enum { NAIVE = 0, SHARED = 1, SHARED_PADDED = 2, WIDE = 3, AUTO = 4 };
};
struct Matmul {
    enum { SIMPLE = 0, COALESCED_A = 1, SHARED_AB = 2 };
};
struct AccessProperty {
    enum { NORMAL = 0, STREAMING = 1, PERSISTING = 2 };
};
%}
/* The parameters that take a status, a variant or an access property have types of
   their own, so that a language can give them its enums (Java's typemaps);
   elsewhere they reduce to int. */
%inline %{
typedef int gmb_status;
typedef int gmb_transpose_variant;
typedef int gmb_matmul_variant;
typedef int gmb_access_property;
%}
%{
static_assert(int(Transpose::AUTO) == int(GM_TRANSPOSE_AUTO) && int(Transpose::WIDE) == int(GM_TRANSPOSE_WIDE) &&
              int(Transpose::SHARED_PADDED) == int(GM_TRANSPOSE_SHARED_PADDED), "Transpose must mirror gm_transpose_variant");
static_assert(int(Matmul::SHARED_AB) == int(GM_MATMUL_SHARED_AB) && int(Matmul::COALESCED_A) == int(GM_MATMUL_COALESCED_A),
              "Matmul must mirror gm_matmul_variant");
static_assert(int(AccessProperty::PERSISTING) == int(GM_ACCESS_PERSISTING) && int(AccessProperty::STREAMING) == int(GM_ACCESS_STREAMING),
              "AccessProperty must mirror gm_access_property");
static_assert(int(Status::INTERNAL) == int(GM_ERROR_INTERNAL) && int(Status::UNKNOWN_EXPERIMENT) == int(GM_ERROR_UNKNOWN_EXPERIMENT) &&
              int(Status::NO_DEVICE) == int(GM_ERROR_NO_DEVICE), "Status must mirror gm_status");
%}

/* ---- Library-wide functions -------------------------------------------- */

%inline %{
std::string version() { return gm_version(); }
int abiVersion() { return gm_abi_version(); }

/* The file the loaded libgmlab was read from ("" where the system cannot say). */
std::string libraryPath() {
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(&gm_abi_version), &info) && info.dli_fname) return info.dli_fname;
    return "";
}

/* "" when the loaded libgmlab has the ABI this binding is made for
   (BINDING_ABI_VERSION, below); otherwise the reason to refuse it, naming both
   ABI versions and the library's file. Each language calls it once, as it
   loads, before anything else. */
std::string abiProblem(int bindingAbi) {
    const int found = gm_abi_version();
    if (found == bindingAbi) return "";
    std::string where = libraryPath();
    if (where.empty()) where = "an unknown file";
    return "gmlab: this binding is made for libgmlab ABI " + std::to_string(bindingAbi) + " (libgmlab.so." +
           std::to_string(bindingAbi) + "), but the libgmlab it loaded, " + where + ", has ABI " +
           std::to_string(found) + " (version " + gm_version() + "); use the binding and the library of one release";
}
std::string statusString(gmb_status status) { return gm_status_string((gm_status)status); }

/* Number of CUDA devices; 0 (not an error) where there is none. */
int deviceCount() {
    int n = 0;
    gm_status s = gm_device_count(&n);
    if (s == GM_ERROR_NO_DEVICE) return 0;
    gmb::failed(s, gm_last_error());
    return n;
}

int experimentCount() { return (int)gm_experiment_count(); }

std::string experimentName(int index) {
    if (gmb::negative(index, "index")) return "";
    const char *name = gm_experiment_name((size_t)index);
    if (!name) {
        gmb::refuse_range("index", (long long)gm_experiment_count(), index);
        return "";
    }
    return name;
}

/* The experiment's guide section, summary and typed parameters, as JSON. */
std::string describeExperiment(const char *experiment) {
    if (gmb::bad_text(experiment, "experiment")) return "";
    char *out = nullptr;
    if (gmb::failed_last(gm_experiment_describe_json(&out, experiment))) return "";
    return gmb::take(out);
}

/* Checks parameters without a device; returns every parameter with its value. */
std::string resolveParams(const char *experiment, const char *paramsJson) {
    if (gmb::bad_text(experiment, "experiment")) return "";
    char *out = nullptr;
    if (gmb::failed_naming(gm_experiment_resolve_params(&out, experiment, paramsJson), "params_json", "paramsJson"))
        return "";
    return gmb::take(out);
}
%}

/* ---- Classes over the handles ------------------------------------------- */

/* SWIG sees the opaque handles as empty structs and gives them methods. */
%nodefaultctor gm_context;
%nodefaultctor gm_buffer;
%nodefaultctor gm_result;
%rename(Context) gm_context;
#if defined(SWIGCSHARP)
/* Buffer would collide with System.Buffer in C# (CS0104 under using System). */
%rename(DeviceBuffer) gm_buffer;
#else
%rename(Buffer) gm_buffer;
#endif
%rename(Result) gm_result;
struct gm_context {};
struct gm_buffer {};
struct gm_result {};

/* SWIG implements an %extend method as a C function named <struct>_<method>.
   Where that is a C API name (gm_context_synchronize, gm_buffer_fill,
   gm_buffer_size, gm_result_experiment) the wrapper would not compile, or the
   method would call itself instead of the C function; those methods have
   other C++ names and are renamed back here. */
%rename(synchronize) gm_context::synchronizeStream;
%rename(fill) gm_buffer::fillBytes;
%rename(size) gm_buffer::sizeBytes;
%rename(experiment) gm_result::resultExperiment;

%newobject gm_context::run;
%newobject gm_result::fromJson;
%newobject gm_result::fromRunJson;

%extend gm_context {
    /* Opens a device (ordinal 0 by default) with its own CUDA stream. */
    gm_context(int device = 0) {
        /* Refused here, as a bad argument, in every language alike (the C
           API would answer "no device" for it). */
        if (gmb::negative(device, "device")) return nullptr;
        gm_context *ctx = nullptr;
        gmb::failed_last(gm_context_create(&ctx, device));
        return ctx;
    }
    ~gm_context() { gm_context_destroy($self); }

    int device() {
        int d = -1;
        if (!gmb::closed($self, "Context")) gmb::failed_on(gm_context_device(&d, $self), $self);
        return d;
    }
    /* The device's memory spaces as JSON. */
    std::string deviceInfoJson() {
        if (gmb::closed($self, "Context")) return "";
        char *out = nullptr;
        if (gmb::failed_on(gm_device_info_json(&out, $self), $self)) return "";
        return gmb::take(out);
    }
    /* Why hardware counters (CUPTI range profiler) cannot be read on this
       device, and how to enable them; "" when they can. Checked once per
       context with a short counted launch. */
    std::string countersUnavailableReason() {
        if (gmb::closed($self, "Context")) return "";
        int available = 0;
        char *reason = nullptr;
        if (gmb::failed_on(gm_counters_available(&available, &reason, $self), $self)) return "";
        std::string why = reason ? gmb::take(reason) : std::string();
        return available ? std::string() : (why.empty() ? std::string("not available") : why);
    }
    /* The resources the compiler gave each kernel of an experiment on this
       device (registers, static shared, local and constant bytes, largest
       block), as JSON; "" for every kernel of the library, "support" for the
       kernels the experiments share. The names alone, without a device, are in
       describeExperiment ("kernels"). */
    std::string kernelResourcesJson(const char *experiment = "") {
        if (gmb::closed($self, "Context")) return "";
        char *out = nullptr;
        if (gmb::failed_on(gm_kernel_resources_json(&out, $self, experiment && *experiment ? experiment : nullptr), $self))
            return "";
        return gmb::take(out);
    }
    /* Measurement settings by name: warmup, min_repetitions, max_repetitions,
       min_time_ms, flush_l2, memory_fraction, counters (0 off, 1 on, 2 auto). */
    void set(const char *setting, double value) {
        if (gmb::closed($self, "Context") || gmb::bad_text(setting, "setting")) return;
        gm_setting which;
        if (gmb::failed_last(gm_setting_from_name(&which, setting))) return;
        gmb::failed_on(gm_context_set($self, which, value), $self);
    }
    double get(const char *setting) {
        if (gmb::closed($self, "Context") || gmb::bad_text(setting, "setting")) return 0;
        gm_setting which;
        if (gmb::failed_last(gm_setting_from_name(&which, setting))) return 0;
        double v = 0;
        gmb::failed_on(gm_context_get(&v, $self, which), $self);
        return v;
    }
    void synchronizeStream() {
        if (!gmb::closed($self, "Context")) gmb::failed_on(gm_context_synchronize($self), $self);
    }
    /* Runs an experiment; paramsJson is a JSON object ("{}" for the defaults). */
    gm_result *run(const char *experiment, const char *paramsJson = "{}") {
        if (gmb::closed($self, "Context") || gmb::bad_text(experiment, "experiment")) return nullptr;
        gm_result *r = nullptr;
        const gm_status s = gm_run(&r, $self, experiment, paramsJson);
        if (gmb::failed_on(s, $self)) gmb::rename_argument("params_json", "paramsJson");
        return r;
    }
    /* output (cols x rows) = transpose of input (rows x cols); variant: Transpose.NAIVE .. AUTO.
       (input and output, not in and out: those are keywords of C#, where SWIG would name them in_ and out_.) */
    void transpose(const gm_buffer *input, gm_buffer *output, long long rows, long long cols, long long elementSize,
                   gmb_transpose_variant variant = GM_TRANSPOSE_AUTO) {
        if (gmb::closed($self, "Context")) return;
        if (!input || !output) { gmb::refuse_null(input ? "output" : "input"); return; }
        if (gmb::negative(rows, "rows") || gmb::negative(cols, "cols") || gmb::negative(elementSize, "elementSize")) return;
        gmb::failed_on(gm_transpose($self, input, output, (size_t)rows, (size_t)cols, (size_t)elementSize,
                                    (gm_transpose_variant)variant), $self);
    }
    /* C (m x n) = A (m x k) B (k x n) on float; variant: Matmul.SIMPLE .. SHARED_AB. */
    void matmul(const gm_buffer *a, const gm_buffer *b, gm_buffer *c, long long m, long long n, long long k,
                gmb_matmul_variant variant = GM_MATMUL_SHARED_AB) {
        if (gmb::closed($self, "Context")) return;
        if (!a || !b || !c) { gmb::refuse_null(!a ? "a" : !b ? "b" : "c"); return; }
        if (gmb::negative(m, "m") || gmb::negative(n, "n") || gmb::negative(k, "k")) return;
        gmb::failed_on(gm_matmul($self, a, b, c, (size_t)m, (size_t)n, (size_t)k, (gm_matmul_variant)variant), $self);
    }
    /* The nine-point 1D stencil: output[i] = sum over r = 1..4 of c[r-1] (input[i+r] - input[i-r]),
       input taken as 0 outside [0, n); c holds 4 coefficients. stencilConstant keeps
       them in __constant__ memory, stencilReadonly reads them through __ldg. */
    void stencilConstant(const gm_buffer *input, gm_buffer *output, long long n, const float *values, long long count) {
        gmb::stencil($self, input, output, n, values, count, true);
    }
    void stencilReadonly(const gm_buffer *input, gm_buffer *output, long long n, const float *values, long long count) {
        gmb::stencil($self, input, output, n, values, count, false);
    }
    /* Sets aside up to bytes of L2 for persisting lines; returns the size granted. */
    long long setL2PersistingSize(long long bytes) {
        if (gmb::closed($self, "Context") || gmb::negative(bytes, "bytes")) return 0;
        size_t granted = 0;
        gmb::failed_on(gm_set_l2_persisting_size(&granted, $self, (size_t)bytes), $self);
        return (long long)granted;
    }
    /* An access policy window over [offset, offset + numBytes) of buf for this
       context's stream; properties: AccessProperty.NORMAL, STREAMING, PERSISTING. */
    void setL2Window(const gm_buffer *buf, long long offset, long long numBytes, double hitRatio,
                     gmb_access_property hitProperty = GM_ACCESS_PERSISTING,
                     gmb_access_property missProperty = GM_ACCESS_STREAMING) {
        if (gmb::closed($self, "Context")) return;
        if (!buf) { gmb::refuse_null("buf"); return; }
        if (gmb::negative(offset, "offset") || gmb::negative(numBytes, "numBytes")) return;
        gmb::failed_on(gm_set_l2_window($self, buf, (size_t)offset, (size_t)numBytes, hitRatio,
                                        (gm_access_property)hitProperty, (gm_access_property)missProperty), $self);
    }
    void resetL2Window() {
        if (!gmb::closed($self, "Context")) gmb::failed_on(gm_reset_l2_window($self), $self);
    }
    /* The window and set-aside in force, as JSON. */
    std::string l2StateJson() {
        if (gmb::closed($self, "Context")) return "";
        char *out = nullptr;
        if (gmb::failed_on(gm_l2_state_json(&out, $self), $self)) return "";
        return gmb::take(out);
    }
    /* dst[dstOffset + i*dstStride] = src[srcOffset + i*srcStride] for count words. */
    void copyStrided(gm_buffer *dst, long long dstOffset, long long dstStride, const gm_buffer *src,
                     long long srcOffset, long long srcStride, long long count, long long wordSize) {
        if (gmb::closed($self, "Context")) return;
        if (!dst || !src) { gmb::refuse_null(dst ? "src" : "dst"); return; }
        if (gmb::negative(dstOffset, "dstOffset") || gmb::negative(dstStride, "dstStride") ||
            gmb::negative(srcOffset, "srcOffset") || gmb::negative(srcStride, "srcStride") ||
            gmb::negative(count, "count") || gmb::negative(wordSize, "wordSize"))
            return;
        gmb::failed_on(gm_copy_strided($self, dst, (size_t)dstOffset, (size_t)dstStride, src, (size_t)srcOffset,
                                       (size_t)srcStride, (size_t)count, (size_t)wordSize), $self);
    }
}

%extend gm_buffer {
    /* bytes of device memory on the context's device. */
    gm_buffer(gm_context *ctx, long long bytes) {
        if (!ctx) { gmb::refuse_null("ctx"); return nullptr; }
        if (gmb::negative(bytes, "bytes")) return nullptr;
        gm_buffer *b = nullptr;
        gmb::failed_on(gm_buffer_create(&b, ctx, (size_t)bytes), ctx);
        return b;
    }
    ~gm_buffer() { gm_buffer_destroy($self); }

    long long sizeBytes() {
        if (gmb::closed($self, gmb::kBuffer)) return 0;
        return (long long)gm_buffer_size($self);
    }
    /* Sets every byte to value (0..255). */
    void fillBytes(int value) {
        if (!gmb::closed($self, gmb::kBuffer)) gmb::failed_last(gm_buffer_fill($self, value));
    }
    /* Host arrays in and out; offset counts bytes into the buffer. */
    void uploadBytes(long long offset, const signed char *values, long long count) { gmb::upload($self, offset, values, count, 1); }
    void uploadInts(long long offset, const int *values, long long count) { gmb::upload($self, offset, values, count, sizeof(int)); }
    void uploadFloats(long long offset, const float *values, long long count) { gmb::upload($self, offset, values, count, sizeof(float)); }
    void uploadDoubles(long long offset, const double *values, long long count) { gmb::upload($self, offset, values, count, sizeof(double)); }
    void downloadBytes(long long offset, signed char *values, long long count) { gmb::download($self, offset, values, count, 1); }
    void downloadInts(long long offset, int *values, long long count) { gmb::download($self, offset, values, count, sizeof(int)); }
    void downloadFloats(long long offset, float *values, long long count) { gmb::download($self, offset, values, count, sizeof(float)); }
    void downloadDoubles(long long offset, double *values, long long count) { gmb::download($self, offset, values, count, sizeof(double)); }
}

%extend gm_result {
    /* Reads a gmlab.result/1 document. */
    static gm_result *fromJson(const char *json) {
        if (gmb::bad_text(json, GMB_ARGUMENT_NAME("json"))) return nullptr;
        gm_result *r = nullptr;
        gmb::failed_naming(gm_result_from_json(&r, json), "json", "json");
        return r;
    }
    /* Result `index` of a gmlab.run/1 document (what `gmlab run --json` writes). */
    static gm_result *fromRunJson(const char *runJson, int index) {
        if (gmb::bad_text(runJson, GMB_ARGUMENT_NAME("runJson")) || gmb::negative(index, "index")) return nullptr;
        gm_result *r = nullptr;
        gmb::failed_naming(gm_result_from_run_json(&r, runJson, (size_t)index), "run_json", "runJson");
        return r;
    }
    /* Number of results in a gmlab.run/1 document. */
    static int runResultCount(const char *runJson) {
        if (gmb::bad_text(runJson, GMB_ARGUMENT_NAME("runJson"))) return 0;
        size_t n = 0;
        gmb::failed_naming(gm_run_document_result_count(&n, runJson), "run_json", "runJson");
        return (int)n;
    }
    ~gm_result() { gm_result_destroy($self); }

    std::string toJson() {
        if (gmb::closed($self, "Result")) return "";
        char *out = nullptr;
        if (gmb::failed_last(gm_result_to_json(&out, $self))) return "";
        return gmb::take(out);
    }
    /* The same document with every raw sample kept (GM_SAMPLES_ALL), as
       `gmlab run --samples all` writes it. */
    std::string toJsonWithSamples() {
        if (gmb::closed($self, "Result")) return "";
        char *out = nullptr;
        if (gmb::failed_last(gm_result_to_json_samples(&out, $self, GM_SAMPLES_ALL))) return "";
        return gmb::take(out);
    }
    std::string resultExperiment() {
        if (gmb::closed($self, "Result")) return "";
        return gm_result_experiment($self);
    }
    int seriesCount() {
        if (gmb::closed($self, "Result")) return 0;
        return (int)gm_result_series_count($self);
    }
    std::string seriesName(int series) {
        if (gmb::closed($self, "Result") || gmb::negative(series, "series")) return "";
        const char *name = gm_result_series_name($self, (size_t)series);
        if (!name) {
            gmb::refuse_range("series", (long long)gm_result_series_count($self), series);
            return "";
        }
        return name;
    }
    /* "variant", "x.name", "x.unit", "y.field" (the point field that is the
       series' headline, e.g. "bandwidth_gbs"), "y.name" or "y.unit". */
    std::string seriesInfo(int series, const char *key) {
        if (gmb::closed($self, "Result") || gmb::negative(series, "series") || gmb::bad_text(key, "key")) return "";
        if ((size_t)series >= gm_result_series_count($self)) {
            gmb::refuse_range("series", (long long)gm_result_series_count($self), series);
            return "";
        }
        const char *v = gm_result_series_info($self, (size_t)series, key);
        if (!v) {
            gmb::refuse(gmb::Kind::OutOfRange, "key", std::string("key must be variant, x.name, x.unit, y.field, y.name or y.unit, got ") + key);
            return "";
        }
        return v;
    }
    int pointCount(int series) {
        if (gmb::closed($self, "Result") || gmb::negative(series, "series")) return 0;
        if ((size_t)series >= gm_result_series_count($self)) {
            gmb::refuse_range("series", (long long)gm_result_series_count($self), series);
            return 0;
        }
        return (int)gm_result_point_count($self, (size_t)series);
    }
    /* "x", "bandwidth_gbs", "median_ms", "predicted.sectors_per_request", ... */
    double pointValue(int series, int point, const char *field) {
        if (gmb::closed($self, "Result") || gmb::negative(series, "series") || gmb::negative(point, "point") ||
            gmb::bad_text(field, "field"))
            return 0;
        const size_t series_count = gm_result_series_count($self);
        if ((size_t)series >= series_count) {
            gmb::refuse_range("series", (long long)series_count, series);
            return 0;
        }
        const size_t point_count = gm_result_point_count($self, (size_t)series);
        if ((size_t)point >= point_count) {
            gmb::refuse_range("point", (long long)point_count, point);
            return 0;
        }
        double v = 0;
        gmb::failed_last(gm_result_point_value(&v, $self, (size_t)series, (size_t)point, field));
        return v;
    }
    double summaryValue(const char *name) {
        if (gmb::closed($self, "Result") || gmb::bad_text(name, "name")) return 0;
        double v = 0;
        gmb::failed_last(gm_result_summary_value(&v, $self, name));
        return v;
    }
}

/* ---- The ABI this binding is made for ------------------------------------ */

/* GM_ABI_VERSION, given to SWIG by the build (-DGMB_ABI_VERSION=..., from the
   top-level CMakeLists.txt, which also writes it into gmlab.h's SONAME), is
   written into each language's generated code as a literal
   (Gmlab.BINDING_ABI_VERSION, ...): the code that ships in a jar, an assembly,
   a Go module or a wheel keeps the number it was made for, whichever header or
   library it meets later. */
#ifndef GMB_ABI_VERSION
#error "run SWIG with -DGMB_ABI_VERSION=<GM_ABI_VERSION of include/gmlab.h>"
#endif
%constant int BINDING_ABI_VERSION = GMB_ABI_VERSION;
