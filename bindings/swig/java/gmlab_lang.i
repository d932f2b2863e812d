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

/* Status.OK, Status.NO_DEVICE, ... as compile-time constants (usable in switch). */
%javaconst(1);
%nodefaultctor Status;
%nodefaultdtor Status;
%typemap(javaclassmodifiers) Status "public final class"
%typemap(javabody) Status %{
  private Status() {
  }
%}
%typemap(javadestruct, methodname="delete", methodmodifiers="private") Status ""
%typemap(javafinalize) Status ""

/*
 * The handles are AutoCloseable: close() releases the C handle at once and is
 * safe to call again; a finalizer does it for handles never closed. After
 * close() the handle pointer is 0, which the shared methods report as "this
 * Context is closed" (GmlabException, INVALID_ARGUMENT).
 */
%define GMB_JAVA_HANDLE(CTYPE)
%typemap(javaclassmodifiers) CTYPE "public final class"
%typemap(javabody) CTYPE %{
  private transient long swigCPtr;
  private transient boolean swigCMemOwn;

  $javaclassname(long cPtr, boolean cMemoryOwn) {
    swigCMemOwn = cMemoryOwn;
    swigCPtr = cPtr;
  }

  static long getCPtr($javaclassname obj) {
    return (obj == null) ? 0 : obj.swigCPtr;
  }
%}
%typemap(javainterfaces) CTYPE "AutoCloseable"
%typemap(javadestruct, methodname="close", methodmodifiers="@Override public synchronized", parameters="") CTYPE {
    if (swigCPtr != 0) {
      if (swigCMemOwn) {
        swigCMemOwn = false;
        $jnicall;
      }
      swigCPtr = 0;
    }
  }
%typemap(javafinalize) CTYPE %{
  @SuppressWarnings("deprecation")
  protected void finalize() {
    close();
  }
%}
%enddef

GMB_JAVA_HANDLE(gm_context)
GMB_JAVA_HANDLE(gm_buffer)
GMB_JAVA_HANDLE(gm_result)

/* ---- Conveniences written once on top of the wrapped methods ----------- */

%pragma(java) moduleclassmodifiers="public final class"
%pragma(java) modulecode=%{
  private $module() {
  }

  /** The names of every experiment in the registry, in registry order. */
  public static java.util.List<String> experiments() {
    long n = experimentCount();
    java.util.List<String> names = new java.util.ArrayList<>();
    for (long i = 0; i < n; ++i) names.add(experimentName(i));
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
    long n = seriesCount();
    java.util.List<String> names = new java.util.ArrayList<>();
    for (long s = 0; s < n; ++s) names.add(seriesName(s));
    return java.util.Collections.unmodifiableList(names);
  }

  /** One field ("x", "bandwidth_gbs", "predicted.sectors_per_request", ...) of every point of a series. */
  public double[] values(long series, String field) {
    long n = pointCount(series);
    double[] out = new double[Math.toIntExact(n)];
    for (int p = 0; p < out.length; ++p) out[p] = pointValue(series, p, field);
    return out;
  }

  @Override
  public String toString() {
    return swigCPtr == 0 ? "Result(closed)" : "Result(" + experiment() + ", " + seriesCount() + " series)";
  }
%}
