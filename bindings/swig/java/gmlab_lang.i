/*
 * gmlab_lang.i - the Java side of gmlab.i: how errors are raised, how strings
 * and arrays cross JNI, and what the handle classes look like in Java.
 *
 * Everything here is keyed on types and parameter names, not on methods, so a
 * method added to gmlab.i appears in Java as it is.
 *
 * Anything the wrappers hold across the call lives in typemap locals (RAII),
 * never in freearg typemaps: the shared %exception block returns straight after
 * raising, and freearg code would never run on that path.
 */

%{
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace gmb_java {

// Copies len bytes into a new byte[] (null with OutOfMemoryError pending if
// the JVM cannot allocate it).
inline jbyteArray to_bytes(JNIEnv *jenv, const char *data, size_t len) {
    if (len > static_cast<size_t>(INT32_MAX)) {
        jclass oom = jenv->FindClass("java/lang/OutOfMemoryError");
        if (oom) jenv->ThrowNew(oom, "gmlab: a string longer than a Java array can hold");
        return nullptr;
    }
    jbyteArray out = jenv->NewByteArray(static_cast<jsize>(len));
    if (out && len > 0) jenv->SetByteArrayRegion(out, 0, static_cast<jsize>(len), reinterpret_cast<const jbyte *>(data));
    return out;
}

// Throws org.gmlab.GmlabException(status, message) in the calling Java thread.
// The message travels as UTF-8 bytes and is decoded in Java: the library's
// messages are UTF-8 and may quote the caller's input, which NewStringUTF
// (modified UTF-8) does not read correctly.
inline void raise(JNIEnv *jenv, int status, const char *message) {
    jclass type = jenv->FindClass("org/gmlab/GmlabException");
    if (!type) return;  // NoClassDefFoundError is pending instead
    jmethodID init = jenv->GetMethodID(type, "<init>", "(I[B)V");
    jbyteArray text = init ? to_bytes(jenv, message, std::strlen(message)) : nullptr;
    if (text) {
        jobject error = jenv->NewObject(type, init, static_cast<jint>(status), text);
        if (error) jenv->Throw(static_cast<jthrowable>(error));
        jenv->DeleteLocalRef(error);
        jenv->DeleteLocalRef(text);
    }
    jenv->DeleteLocalRef(type);
}

}  // namespace gmb_java

#define GMB_RAISE(status, message) gmb_java::raise(jenv, (status), (message))
%}

/* ---- Native libraries -------------------------------------------------- */

/* The JNI class takes raw pointers, so it stays inside the package; it loads
   libgmlab and this wrapper before any native call. */
%pragma(java) jniclassclassmodifiers="final class"
%pragma(java) jniclasscode=%{
  static {
    NativeLoader.load();
  }
%}

/* ---- Strings: UTF-8 both ways ------------------------------------------ */

/* Java Strings go over as UTF-8 bytes (NativeText.encode: null stays null, so
   the shared checks name the argument), and come back the same way. */
%typemap(jni) const char * "jbyteArray"
%typemap(jtype) const char * "byte[]"
%typemap(jstype) const char * "String"
%typemap(javain) const char * "NativeText.encode($javainput)"
%typemap(in) const char * (std::string text) {
    $1 = nullptr;
    if ($input) {
        const jsize length = jenv->GetArrayLength($input);
        text.resize(static_cast<size_t>(length));
        if (length > 0) jenv->GetByteArrayRegion($input, 0, length, reinterpret_cast<jbyte *>(&text[0]));
        $1 = const_cast<$1_ltype>(text.c_str());
    }
}
%typemap(freearg) const char * ""
%typemap(out) const char * %{ $result = $1 ? gmb_java::to_bytes(jenv, $1, std::strlen($1)) : nullptr; %}
%typemap(javaout) const char * {
    return NativeText.decode($jnicall);
  }

%typemap(jni) std::string "jbyteArray"
%typemap(jtype) std::string "byte[]"
%typemap(jstype) std::string "String"
%typemap(out) std::string %{ $result = gmb_java::to_bytes(jenv, $1.data(), $1.size()); %}
%typemap(javaout) std::string {
    return NativeText.decode($jnicall);
  }

/* ---- Host arrays ------------------------------------------------------- */

/*
 * (const T *values, long long count) takes a Java array whose length is the
 * count; (T *values, long long count) fills the Java array from C. The array
 * is staged in a vector that the wrapper owns, so nothing stays pinned or
 * leaks when the call fails; the copy back happens only after success.
 */
%define GMB_JAVA_ARRAY(CTYPE, JNIELEM, JNIARRAY, JAVATYPE, JNINAME)
%typemap(jni) (const CTYPE *values, long long count), (CTYPE *values, long long count) "JNIARRAY"
%typemap(jtype) (const CTYPE *values, long long count), (CTYPE *values, long long count) "JAVATYPE[]"
%typemap(jstype) (const CTYPE *values, long long count), (CTYPE *values, long long count) "JAVATYPE[]"
%typemap(javain) (const CTYPE *values, long long count), (CTYPE *values, long long count) "$javainput"
%typemap(in) (const CTYPE *values, long long count) (std::vector<CTYPE> staging) {
    if (!$input) {
        gmb_java::raise(jenv, GM_ERROR_INVALID_ARGUMENT, "$1_name must not be null");
        return $null;
    }
    const jsize length = jenv->GetArrayLength($input);
    staging.resize(static_cast<size_t>(length));
    if (length > 0) jenv->Get##JNINAME##ArrayRegion($input, 0, length, reinterpret_cast<JNIELEM *>(staging.data()));
    $1 = staging.data();
    $2 = length;
}
%typemap(in) (CTYPE *values, long long count) (std::vector<CTYPE> staging) {
    if (!$input) {
        gmb_java::raise(jenv, GM_ERROR_INVALID_ARGUMENT, "$1_name must not be null");
        return $null;
    }
    const jsize length = jenv->GetArrayLength($input);
    staging.resize(static_cast<size_t>(length));
    $1 = staging.data();
    $2 = length;
}
%typemap(argout) (CTYPE *values, long long count) {
    if ($2 > 0) jenv->Set##JNINAME##ArrayRegion($input, 0, static_cast<jsize>($2), reinterpret_cast<const JNIELEM *>($1));
}
%enddef

GMB_JAVA_ARRAY(signed char, jbyte, jbyteArray, byte, Byte)
GMB_JAVA_ARRAY(int, jint, jintArray, int, Int)
GMB_JAVA_ARRAY(float, jfloat, jfloatArray, float, Float)
GMB_JAVA_ARRAY(double, jdouble, jdoubleArray, double, Double)

/* ---- Classes ----------------------------------------------------------- */

/* Raw pointers stay inside the package: users only see the classes. */
SWIG_JAVABODY_PROXY(, , SWIGTYPE)
SWIG_JAVABODY_TYPEWRAPPER(, , , SWIGTYPE)

/* Status, Transpose, Matmul and AccessProperty are Java enums written by hand
   (src/org/gmlab/*.java, numbered as gmlab.h numbers them; a test checks the
   numbers against the library); the parameters that take them are typed with
   them here. */
%ignore Status;
%ignore Transpose;
%ignore Matmul;
%ignore AccessProperty;
%define GMB_JAVA_ENUM(CTYPE, JAVATYPE)
%typemap(jstype) CTYPE "JAVATYPE"
%typemap(javain) CTYPE "java.util.Objects.requireNonNull($javainput, \"$1_name must not be null\").code()"
%enddef
GMB_JAVA_ENUM(gmb_status, Status)
GMB_JAVA_ENUM(gmb_transpose_variant, Transpose)
GMB_JAVA_ENUM(gmb_matmul_variant, Matmul)
GMB_JAVA_ENUM(gmb_access_property, AccessProperty)

/* The binding's ABI as a compile-time constant of the Gmlab class itself (not
   of an interface Gmlab implements, SWIG's default for constants). */
%javaconst(1);
%ignore BINDING_ABI_VERSION;

/*
 * The handles are AutoCloseable: close() releases the C handle at once and is
 * safe to call again; a Cleaner (NativeLoader.CLEANER) does it for handles
 * never closed, without a finalize() in the public API. After close() the
 * handle pointer is 0, which the shared methods report as "this Context is
 * closed" (GmlabException, INVALID_ARGUMENT).
 */
%define GMB_JAVA_HANDLE(CTYPE)
%typemap(javabody) CTYPE %{
  private transient long swigCPtr;
  private final transient java.lang.ref.Cleaner.Cleanable release;

  $javaclassname(long cPtr, boolean cMemoryOwn) {
    swigCPtr = cPtr;
    release = cMemoryOwn && cPtr != 0 ? NativeLoader.CLEANER.register(this, new Release(cPtr)) : null;
  }

  /* What the Cleaner runs: it holds the pointer, never the object. */
  private static final class Release implements Runnable {
    private final long cPtr;

    Release(long cPtr) {
      this.cPtr = cPtr;
    }

    @Override
    public void run() {
      $imclassname.delete_$javaclassname(cPtr);
    }
  }

  static long getCPtr($javaclassname obj) {
    return (obj == null) ? 0 : obj.swigCPtr;
  }
%}
%typemap(javainterfaces) CTYPE "AutoCloseable"
%typemap(javadestruct, methodname="close", methodmodifiers="@Override public synchronized", parameters="") CTYPE {
    if (swigCPtr != 0) {
      swigCPtr = 0;
      if (release != null) release.clean();
    }
  }
%typemap(javafinalize) CTYPE ""
%enddef

GMB_JAVA_HANDLE(gm_context)
GMB_JAVA_HANDLE(gm_buffer)
GMB_JAVA_HANDLE(gm_result)

/* Class-level javadoc of the handles. */
%typemap(javaclassmodifiers) gm_context %{/**
 * One CUDA device with its own stream and measurement settings: runs experiments
 * ({@link #run}) and the operations on device buffers. Opening it without a device
 * throws {@link GmlabException} with {@link Status#NO_DEVICE}; close it when done
 * (try-with-resources).
 */
public final class%}
%typemap(javaclassmodifiers) gm_buffer %{/**
 * Device memory on the device of a {@link Context}, with host arrays copied in and
 * out (offsets in bytes). Close it when done (try-with-resources).
 */
public final class%}
%typemap(javaclassmodifiers) gm_result %{/**
 * The measurements of one experiment run, from {@link Context#run}, a saved run
 * ({@link Run#result}) or a result document ({@link #fromJson}): series of points
 * and summary figures. It stays valid after the context that ran it is closed;
 * close it when done.
 */
public final class%}

/* ---- Conveniences written once on top of the wrapped methods ----------- */

%pragma(java) moduleclassmodifiers=%{/**
 * The library-wide functions: version, devices, the experiments and their
 * descriptions, parameters checked without a device.
 */
public final class%}
%pragma(java) modulecode=%{
  private $module() {
  }

  /** The ABI of libgmlab this binding is made for: GM_ABI_VERSION of the header it was made from. */
  public static final int BINDING_ABI_VERSION = BindingAbi.VERSION;

  /** The names of every experiment in the registry, in registry order. */
  public static java.util.List<String> experiments() {
    int n = experimentCount();
    java.util.List<String> names = new java.util.ArrayList<>();
    for (int i = 0; i < n; ++i) names.add(experimentName(i));
    return java.util.Collections.unmodifiableList(names);
  }

  /** An experiment's guide section, summary, parameters (defaults and bounds) and kernels, typed
      (describeExperiment gives the same as JSON text). Needs no device. */
  public static Descriptions.Experiment describe(String experiment) {
    return new Descriptions.Experiment(Json.object(Json.parse(describeExperiment(experiment), "the description"),
                                                   "the description"));
  }

  /** resolveParams's result as a map (numbers are Double, lists List). */
  public static java.util.Map<String, Object> resolvedParams(String experiment, String paramsJson) {
    return Json.object(Json.parse(resolveParams(experiment, paramsJson), "the parameters"), "the parameters");
  }
%}

%typemap(javacode) gm_context %{
  /** The device's name, compute capability and memory sizes, typed (deviceInfoJson has it all as JSON). */
  public Descriptions.Device deviceInfo() {
    return new Descriptions.Device(Json.object(Json.parse(deviceInfoJson(), "the device info"), "the device info"));
  }
%}

%typemap(javacode) gm_result %{
  /** The names of every series, in order. */
  public java.util.List<String> seriesNames() {
    int n = seriesCount();
    java.util.List<String> names = new java.util.ArrayList<>();
    for (int s = 0; s < n; ++s) names.add(seriesName(s));
    return java.util.Collections.unmodifiableList(names);
  }

  /** One field ("x", "bandwidth_gbs", "predicted.sectors_per_request", ...) of every point of a series. */
  public double[] values(int series, String field) {
    double[] out = new double[pointCount(series)];
    for (int p = 0; p < out.length; ++p) out[p] = pointValue(series, p, field);
    return out;
  }

  @Override
  public String toString() {
    return swigCPtr == 0 ? "Result(closed)" : "Result(" + experiment() + ", " + seriesCount() + " series)";
  }
%}
