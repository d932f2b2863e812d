/*
 * gmlab_lang.i - the C# pieces of the shared interface (included by ../gmlab.i).
 *
 *  - GMB_RAISE: every failure becomes a pending Gmlab.GmlabException (status and
 *    message), thrown by the proxy right after the P/Invoke call returns.
 *  - Names: functions and methods are PascalCase (copyStrided -> CopyStrided);
 *    classes keep the names gmlab.i gives them, constants keep the header's
 *    upper-case names and live in static classes (Status.NO_DEVICE).
 *  - Arrays: (const T *values, long long count) and (T *values, long long count)
 *    become one managed T[] whose length is the count.
 *  - Proxies and the module class are partial, so the hand-written C# in src/
 *    can add members to them.
 *
 * Everything but the constant classes and the few renames below is keyed on
 * types and patterns, so a method added to gmlab.i appears in C# as it is; a
 * new element type for arrays needs one GMB_CS_ARRAY line, a new struct of
 * constants one GMB_CS_CONSTANTS line.
 */

/* ---- Errors: a custom exception through SWIG's pending-exception mechanism ---- */

/* Registered once from the intermediary class's static initialiser; SWIG's own
 * exception callbacks only carry a message, ours carries the status too. */
%insert(runtime) %{
typedef void (SWIGSTDCALL *GmbCsExceptionCallback)(int status, const char *message);
static GmbCsExceptionCallback gmb_cs_exception_callback = NULL;

#ifdef __cplusplus
extern "C"
#endif
SWIGEXPORT void SWIGSTDCALL GmlabRegisterExceptionCallback(GmbCsExceptionCallback callback) {
    gmb_cs_exception_callback = callback;
}

static void gmb_cs_raise(int status, const char *message) {
    if (gmb_cs_exception_callback) {
        gmb_cs_exception_callback(status, message);
    } else {
        /* Unreachable once the assembly is loaded; still never lose an error. */
        SWIG_CSharpSetPendingException(SWIG_CSharpApplicationException, message);
    }
}
%}

%{
#define GMB_RAISE(status, message) gmb_cs_raise((status), (message))
%}

%pragma(csharp) imclasscode=%{
  protected class GmlabExceptionHelper {
    public delegate void ExceptionDelegate(int status, string message);
    // Held in a static field: the native side keeps only a raw pointer to it.
    static ExceptionDelegate raiseDelegate = new ExceptionDelegate(SetPending);

    [global::System.Runtime.InteropServices.DllImport("$dllimport", EntryPoint="GmlabRegisterExceptionCallback")]
    public static extern void GmlabRegisterExceptionCallback(ExceptionDelegate callback);

    static void SetPending(int status, string message) {
      SWIGPendingException.Set(new GmlabException(status, message));
    }

    static GmlabExceptionHelper() {
      GmlabRegisterExceptionCallback(raiseDelegate);
    }
  }
  static protected GmlabExceptionHelper gmlabExceptionHelper = new GmlabExceptionHelper();
%}

/* ---- Names ------------------------------------------------------------------ */

%rename("%(firstuppercase)s", %$isfunction) "";

/* gmlab.i gives a few methods other C++ names (their SWIG helper would clash
 * with a gm_ function) and renames them back by name; such a rename outranks the
 * rule above. These renames name the declaration as well, which outranks
 * gmlab.i's, so the methods are PascalCase like the rest. (A test checks that
 * every public member is.) */
%rename(Synchronize) gm_context::synchronizeStream();
%rename(Size) gm_buffer::sizeBytes();
%rename(Fill) gm_buffer::fillBytes(int);
%rename(Experiment) gm_result::resultExperiment();

/* Structs that only hold constants (Status, the variants of the operations)
 * become static classes of compile-time constants (usable in a switch): no
 * handle, nothing to dispose. */
%csconst(1);
%define GMB_CS_CONSTANTS(NAME)
%nodefaultctor NAME;
%nodefaultdtor NAME;
%typemap(csclassmodifiers) NAME "public static class"
%typemap(csinterfaces) NAME ""
%typemap(csbody) NAME ""
%typemap(csdispose) NAME ""
%typemap(csdisposing) NAME ""
%enddef

GMB_CS_CONSTANTS(Status)
GMB_CS_CONSTANTS(Transpose)
GMB_CS_CONSTANTS(Matmul)
GMB_CS_CONSTANTS(AccessProperty)

/* ---- Native libraries ----------------------------------------------------------
 * Every class that calls into the wrapper first runs NativeLibraries.Load()
 * (src/NativeLibraries.cs) from its static constructor: it loads the wrapper
 * from NuGet's runtimes/<rid>/native/ folder and refuses a libgmlab of another
 * ABI, before the intermediary class makes its first P/Invoke.
 */
%pragma(csharp) modulecode=%{
  static gmlab() {
    NativeLibraries.Load();
  }
%}
%typemap(cscode) SWIGTYPE %{
  static $csclassname() {
    NativeLibraries.Load();
  }
%}

/* ---- Room for the hand-written C# ------------------------------------------ */

%typemap(csclassmodifiers) SWIGTYPE "public partial class"
%pragma(csharp) moduleclassmodifiers="public partial class"

/* ---- Host arrays --------------------------------------------------------------
 * The managed array is pinned for the duration of the call and handed over as a
 * HostArray struct (address and element count), so one C# argument fills both
 * C arguments. A null array is refused in C# (GmlabException, INVALID_ARGUMENT)
 * before anything crosses into C.
 */
/* Same fields, in the same order, as HostArray in src/HostArray.cs. */
%{
struct GmbCsArray {
    void *data;
    long long count;
};
%}

%define GMB_CS_ARRAY(CTYPE, CSTYPE)
%typemap(ctype) (const CTYPE *values, long long count), (CTYPE *values, long long count) "GmbCsArray"
%typemap(imtype) (const CTYPE *values, long long count), (CTYPE *values, long long count) "HostArray"
%typemap(cstype) (const CTYPE *values, long long count), (CTYPE *values, long long count) "CSTYPE[]"
%typemap(csin,
         pre="    global::System.Runtime.InteropServices.GCHandle pinned_$csinput = HostArray.Pin($csinput, \"$csinput\");",
         post="      pinned_$csinput.Free();")
    (const CTYPE *values, long long count), (CTYPE *values, long long count)
    "HostArray.Of(pinned_$csinput, $csinput.Length)"
%typemap(in) (const CTYPE *values, long long count), (CTYPE *values, long long count) %{
    $1 = ($1_ltype)$input.data;
    $2 = (long long)$input.count;
%}
%enddef

GMB_CS_ARRAY(signed char, sbyte)
GMB_CS_ARRAY(int, int)
GMB_CS_ARRAY(float, float)
GMB_CS_ARRAY(double, double)
