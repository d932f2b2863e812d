namespace Gmlab {

public partial class Context {
  /// <summary>The CUDA device ordinal this context uses.</summary>
  public int Device => NativeDevice();

  /// <summary>The device's name, compute capability, memory spaces and link, as read by the library.</summary>
  public DeviceInfo DeviceInfo =>
    new DeviceInfo(Json.Object(Json.Parse(NativeDeviceInfoJson(), "the device info"), "the device info"));

  /// <summary>output (cols x rows) = the transpose of input (rows x cols), row-major.</summary>
  public void Transpose(DeviceBuffer input, DeviceBuffer output, long rows, long cols, long elementSize,
                        TransposeVariant variant = TransposeVariant.Auto) {
    NativeTranspose(input, output, rows, cols, elementSize, (int)variant);
  }

  /// <summary>C (m x n) = A (m x k) B (k x n) on float.</summary>
  public void Matmul(DeviceBuffer a, DeviceBuffer b, DeviceBuffer c, long m, long n, long k, MatmulVariant variant = MatmulVariant.SharedAB) {
    NativeMatmul(a, b, c, m, n, k, (int)variant);
  }
}

public partial class DeviceBuffer {
  /// <summary>The buffer's size in bytes.</summary>
  public long Size => NativeSize();
}

public partial class Result {
  /// <summary>The experiment that produced this result ("stride_copy").</summary>
  public string Experiment => NativeExperiment();

  /// <summary>The number of series (curves) in this result.</summary>
  public int SeriesCount => NativeSeriesCount();
}

}
