namespace Gmlab {

/// <summary>
/// The one exception every failing gmlab call throws: <see cref="Status"/> is the
/// library's status code (one of the <c>Gmlab.Status</c> constants) and
/// <see cref="System.Exception.Message"/> the library's message, which names the
/// argument and its allowed range ("strides must be in 1..32, got 0").
/// </summary>
public class GmlabException : System.Exception {
  public GmlabException(int status, string message) : base(message) {
    Status = status;
  }

  /// <summary>The status code, as the C header numbers it (Status.NO_DEVICE is -2).</summary>
  public int Status { get; }
}

}
