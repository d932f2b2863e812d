using System;

namespace Gmlab {

/// <summary>
/// The exception for a failure the native wrapper reports: what was wrong with
/// a refused argument (the kinds of gmb::Kind in gmlab.i) picks the standard
/// .NET exception, naming the argument as the C# method does; anything else is
/// a <see cref="GmlabException"/> with the library's status.
/// </summary>
internal static class Errors {
  // gmb::Kind in gmlab.i.
  const int Null = 1, Empty = 2, OutOfRange = 3, Closed = 4;

  internal static Exception Exception(int status, int kind, string argument, string message) {
    switch (kind) {
      case Null: return new ArgumentNullException(argument, message);
      case Empty: return new ArgumentException(message, argument);
      case OutOfRange: return new ArgumentOutOfRangeException(argument, message);
      case Closed: return new ObjectDisposedException("Gmlab." + argument, message);
      default: return new GmlabException((Status)status, message);
    }
  }
}

}
