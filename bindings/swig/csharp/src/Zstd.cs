using System;
using System.IO;
using System.Runtime.InteropServices;

namespace Gmlab {

/// <summary>
/// zstd frames through the system's libzstd (libzstd.so.1, on every Debian and
/// most Linux systems, as the CLI's own reader uses it): .NET has no zstd of its
/// own. Where the library is missing, the error says so and how to decompress
/// the file instead.
/// </summary>
internal static class Zstd {
  const string Library = "libzstd.so.1";

  [StructLayout(LayoutKind.Sequential)]
  struct InBuffer {
    public IntPtr Src;
    public UIntPtr Size;
    public UIntPtr Pos;
  }

  [StructLayout(LayoutKind.Sequential)]
  struct OutBuffer {
    public IntPtr Dst;
    public UIntPtr Size;
    public UIntPtr Pos;
  }

  [DllImport(Library)] static extern IntPtr ZSTD_createDStream();
  [DllImport(Library)] static extern UIntPtr ZSTD_freeDStream(IntPtr stream);
  [DllImport(Library)] static extern UIntPtr ZSTD_decompressStream(IntPtr stream, ref OutBuffer output, ref InBuffer input);
  [DllImport(Library)] static extern uint ZSTD_isError(UIntPtr code);
  [DllImport(Library)] static extern IntPtr ZSTD_getErrorName(UIntPtr code);

  internal static byte[] Decompress(byte[] data, string path) {
    try {
      return Stream(data, path);
    } catch (DllNotFoundException) {
      // The same answer as the bindings without a zstd decoder (bindings/contract.json).
      throw new GmlabException(Status.NotSupported, path + ": is zstd-compressed, and " + Library +
                               " is not installed (Debian: libzstd1); decompress it first: zstd -d " + path);
    }
  }

  static byte[] Stream(byte[] data, string path) {
    IntPtr stream = ZSTD_createDStream();
    var chunk = new byte[1 << 20];
    GCHandle input = GCHandle.Alloc(data, GCHandleType.Pinned);
    GCHandle output = GCHandle.Alloc(chunk, GCHandleType.Pinned);
    try {
      var text = new MemoryStream();
      var inBuffer = new InBuffer { Src = input.AddrOfPinnedObject(), Size = (UIntPtr)data.Length };
      UIntPtr left = (UIntPtr)1;
      while ((ulong)inBuffer.Pos < (ulong)inBuffer.Size || (ulong)left != 0) {
        var outBuffer = new OutBuffer { Dst = output.AddrOfPinnedObject(), Size = (UIntPtr)chunk.Length };
        ulong before = (ulong)inBuffer.Pos;
        left = ZSTD_decompressStream(stream, ref outBuffer, ref inBuffer);
        if (ZSTD_isError(left) != 0)
          throw new InvalidDataException(path + " is not a valid zstd file: " + Marshal.PtrToStringAnsi(ZSTD_getErrorName(left)));
        text.Write(chunk, 0, (int)(ulong)outBuffer.Pos);
        bool stalled = (ulong)inBuffer.Pos == before && (ulong)outBuffer.Pos == 0;
        if (stalled) throw new InvalidDataException(path + " is a truncated zstd file");
      }
      return text.ToArray();
    } finally {
      input.Free();
      output.Free();
      ZSTD_freeDStream(stream);
    }
  }
}

}
