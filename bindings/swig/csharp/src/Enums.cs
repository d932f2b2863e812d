namespace Gmlab {

/// <summary>The library's status codes, numbered as <c>gm_status</c> in gmlab.h.</summary>
public enum Status {
  OK = 0,
  InvalidArgument = -1,
  NoDevice = -2,
  NotSupported = -3,
  OutOfMemory = -4,
  Cuda = -5,
  VerificationFailed = -6,
  UnknownExperiment = -7,
  Internal = -8,
}

/// <summary>The kernels of <see cref="Context.Transpose"/>, numbered as <c>gm_transpose_variant</c>.</summary>
public enum TransposeVariant {
  Naive = 0,
  Shared = 1,
  SharedPadded = 2,
  Wide = 3,
  /// <summary>The fastest kernel for the element size.</summary>
  Auto = 4,
}

/// <summary>The kernels of <see cref="Context.Matmul"/>, numbered as <c>gm_matmul_variant</c>.</summary>
public enum MatmulVariant {
  Simple = 0,
  CoalescedA = 1,
  SharedAB = 2,
}

/// <summary>How the L2 cache treats an access window's hits and misses, numbered as <c>gm_access_property</c>.</summary>
public enum AccessProperty {
  Normal = 0,
  Streaming = 1,
  Persisting = 2,
}

}
