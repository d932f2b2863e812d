namespace Gmlab {

/// <summary>
/// A failure of the library: <see cref="Status"/> says which kind, and
/// <see cref="System.Exception.Message"/> is the library's message, which names
/// the argument and its allowed range ("strides must be in 1..32, got 0").
/// Arguments refused before they reach the library throw the standard
/// exceptions instead (<see cref="System.ArgumentNullException"/>,
/// <see cref="System.ArgumentOutOfRangeException"/>, ...; see <c>Errors</c>).
/// </summary>
public class GmlabException : System.Exception {
  public GmlabException(Status status, string message) : base(message) {
    Status = status;
  }

  /// <summary>The status code, as the C header numbers it.</summary>
  public Status Status { get; }
}

}
