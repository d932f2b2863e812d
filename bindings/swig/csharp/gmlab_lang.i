/*
 * gmlab_lang.i - the C# pieces of the shared interface (included by ../gmlab.i).
 *
 * The assembly follows the .NET design guidelines rather than SWIG's defaults:
 *  - Errors: a refused argument throws the standard exception for it
 *    (ArgumentNullException, ArgumentException, ArgumentOutOfRangeException,
 *    ObjectDisposedException after Dispose); a failure of the library throws
 *    Gmlab.GmlabException with its Status (an enum). Both are made pending by
 *    the native wrapper and thrown by the proxy right after the P/Invoke call.
 *  - Names: types and members are PascalCase; the module's functions are the
 *    static class Gmlab.Library (SWIG is run with -module Library); what reads
 *    state is a property (Library.Version, Result.Experiment, Buffer.Size).
 *  - Enums: Status, TransposeVariant, MatmulVariant and AccessProperty are C#
 *    enums (src/Enums.cs), numbered as gmlab.h numbers them.
 *  - Arrays: (const T *values, long long count) and (T *values, long long count)
 *    become one managed T[] whose length is the count.
 *  - Proxies and the module class are partial, so the hand-written C# in src/
 *    can add members to them.
 *
 * Everything but the few renames below is keyed on types and patterns, so a
 * method added to gmlab.i appears in C# as a PascalCase method; a new element
 * type for arrays needs one GMB_CS_ARRAY line.
 */

/* ---- Errors: the standard exceptions through SWIG's pending-exception mechanism ---- */

/* Registered once from the intermediary class's static initialiser; SWIG's own
 * exception callbacks only carry a message, ours carries the status, and for a
 * refused argument what was wrong with it (gmb::Kind) and its name. */
%insert(runtime) %{
typedef void (SWIGSTDCALL *GmbCsExceptionCallback)(int status, int kind, const char *argument, const char *message);
static GmbCsExceptionCallback gmb_cs_exception_callback = NULL;

#ifdef __cplusplus
extern "C"
#endif
SWIGEXPORT void SWIGSTDCALL GmlabRegisterExceptionCallback(GmbCsExceptionCallback callback) {
    gmb_cs_exception_callback = callback;
}

static void gmb_cs_raise(int status, int kind, const char *argument, const char *message) {
    if (gmb_cs_exception_callback) {
        gmb_cs_exception_callback(status, kind, argument, message);
    } else {
        /* Unreachable once the assembly is loaded; still never lose an error. */
        SWIG_CSharpSetPendingException(SWIG_CSharpApplicationException, message);
    }
}
%}

%{
#define GMB_RAISE(status, message) \
    gmb_cs_raise((status), (int)gmb::pending().kind, gmb::pending().argument.c_str(), (message))
%}

%pragma(csharp) imclasscode=%{
  protected class GmlabExceptionHelper {
    public delegate void ExceptionDelegate(int status, int kind, string argument, string message);
    // Held in a static field: the native side keeps only a raw pointer to it.
    static ExceptionDelegate raiseDelegate = new ExceptionDelegate(SetPending);

    [global::System.Runtime.InteropServices.DllImport("$dllimport", EntryPoint="GmlabRegisterExceptionCallback")]
    public static extern void GmlabRegisterExceptionCallback(ExceptionDelegate callback);

    static void SetPending(int status, int kind, string argument, string message) {
      SWIGPendingException.Set(Errors.Exception(status, kind, argument, message));
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
%rename(NativeSize) gm_buffer::sizeBytes();
%csmethodmodifiers gm_buffer::sizeBytes "internal";
%rename(Fill) gm_buffer::fillBytes(int);
%rename(NativeExperiment) gm_result::resultExperiment();
%csmethodmodifiers gm_result::resultExperiment "internal";

/* Structs that only hold constants (Status, the variants of the operations)
 * are C# enums written by hand (src/Enums.cs); the methods that take them are
 * typed with them below or in src/ (a test checks the numbers against gmlab.h). */
%ignore Status;
%ignore Transpose;
%ignore Matmul;
%ignore AccessProperty;
%typemap(cstype) int hitProperty, int missProperty "AccessProperty"
%typemap(csin) int hitProperty, int missProperty "(int)$csinput"

/* The library-wide functions: state becomes properties of Library (src/Library.cs)
 * over these internal methods. */
/* A compile-time constant, not a static field read from the wrapper: a field's
 * initialiser would make the first P/Invoke before the static constructor has
 * found the native library (NativeLibraries.Load). */
%csconst(1) BINDING_ABI_VERSION;
%rename(BindingAbiVersion) BINDING_ABI_VERSION;
%define GMB_CS_INTERNAL(NAME, CSNAME)
%rename(CSNAME) NAME;
%csmethodmodifiers NAME "internal";
%enddef
GMB_CS_INTERNAL(version, NativeVersion)
GMB_CS_INTERNAL(abiVersion, NativeAbiVersion)
GMB_CS_INTERNAL(libraryPath, NativeLibraryPath)
GMB_CS_INTERNAL(abiProblem, AbiProblem)
GMB_CS_INTERNAL(deviceCount, NativeDeviceCount)
GMB_CS_INTERNAL(experimentCount, NativeExperimentCount)
GMB_CS_INTERNAL(experimentName, NativeExperimentName)
GMB_CS_INTERNAL(statusString, NativeStatusString)
GMB_CS_INTERNAL(describeExperiment, NativeDescribeExperiment)
GMB_CS_INTERNAL(resolveParams, NativeResolveParams)
/* Methods that become properties or take an enum, in src/. */
GMB_CS_INTERNAL(gm_context::device, NativeDevice)
GMB_CS_INTERNAL(gm_context::deviceInfoJson, NativeDeviceInfoJson)
GMB_CS_INTERNAL(gm_context::transpose, NativeTranspose)
GMB_CS_INTERNAL(gm_context::matmul, NativeMatmul)
GMB_CS_INTERNAL(gm_result::seriesCount, NativeSeriesCount)

/* ---- Native libraries ----------------------------------------------------------
 * Every class that calls into the wrapper first runs NativeLibraries.Load()
 * (src/NativeLibraries.cs) from its static constructor: it loads the wrapper
 * from NuGet's runtimes/<rid>/native/ folder and refuses a libgmlab of another
 * ABI, before the intermediary class makes its first P/Invoke.
 */
%pragma(csharp) modulecode=%{
  static Library() {
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
%pragma(csharp) moduleclassmodifiers="public static partial class"

/* ---- Host arrays --------------------------------------------------------------
 * The managed array is pinned for the duration of the call and handed over as a
 * HostArray struct (address and element count), so one C# argument fills both
 * C arguments. A null array is refused in C# (ArgumentNullException) before
 * anything crosses into C.
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

/* Bytes are byte[] in .NET (the C side takes the same bytes as signed char). */
GMB_CS_ARRAY(signed char, byte)
GMB_CS_ARRAY(int, int)
GMB_CS_ARRAY(float, float)
GMB_CS_ARRAY(double, double)
