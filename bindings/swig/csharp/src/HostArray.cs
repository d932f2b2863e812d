using System;
using System.Runtime.InteropServices;

namespace Gmlab {

/// <summary>
/// A managed array as the native wrapper receives it: its address, pinned for the
/// duration of one call, and its element count. The layout matches GmbCsArray in
/// gmlab_lang.i, which turns it into the (values, count) pair of the C method.
/// </summary>
[StructLayout(LayoutKind.Sequential)]
internal struct HostArray {
  IntPtr data;
  long count;

  /// <summary>
  /// Pins values so the garbage collector cannot move them while C reads or
  /// writes them. A null array is refused here, before anything crosses into C,
  /// as every null argument is (ArgumentNullException).
  /// </summary>
  internal static GCHandle Pin(Array values, string name) {
    if (values == null)
      throw new ArgumentNullException(name, name + " must not be null");
    return GCHandle.Alloc(values, GCHandleType.Pinned);
  }

  internal static HostArray Of(GCHandle pinned, int length) {
    HostArray array;
    array.data = pinned.AddrOfPinnedObject();
    array.count = length;
    return array;
  }
}

}
