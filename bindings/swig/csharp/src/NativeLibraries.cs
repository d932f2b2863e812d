using System;
using System.IO;
using System.Reflection;
using System.Runtime.InteropServices;

namespace Gmlab {

/// <summary>
/// Finds the native side of Gmlab.dll (libgmlab_csharp.so, and libgmlab beside
/// it) where NuGet puts it, loads it, and checks that the libgmlab it brings has
/// the ABI this assembly is made for. Runs once, from the static constructor of
/// every class that calls into the wrapper, before the first P/Invoke.
///
/// The places, relative to the folder of Gmlab.dll, in order: the folder
/// itself (an application that copies the assembly and the libraries beside
/// it, a self-contained publish), runtimes/&lt;rid&gt;/native/ (an application's
/// build output, the NuGet way), ../../runtimes/&lt;rid&gt;/native/ (the unpacked
/// package itself: lib/netstandard2.0/Gmlab.dll) and ../../ (an installed
/// prefix: lib/gmlab/csharp/Gmlab.dll beside lib/libgmlab_csharp.so). The file
/// found first is loaded by its absolute path; the runtime's own lookup for the
/// P/Invoke name gmlab_csharp then finds that loaded copy by its SONAME (the
/// dynamic loader matches a bare name against the libraries already loaded), so
/// no Gmlab.dll.config and no LD_LIBRARY_PATH is needed, with .NET or Mono.
/// Where none holds it, the system's own search (LD_LIBRARY_PATH, the system
/// folders) is tried last, and failing that the error names every place.
/// libgmlab_csharp.so finds libgmlab through its RPATH ($ORIGIN).
/// </summary>
internal static class NativeLibraries {
  internal const string WrapperFile = "libgmlab_csharp.so";
  const int RTLD_NOW = 2;
  const int RTLD_GLOBAL = 0x100;

  static readonly object gate = new object();
  static bool done;

  [DllImport("libdl.so.2", EntryPoint = "dlopen")]
  static extern IntPtr DlOpen(string file, int mode);

  [DllImport("libdl.so.2", EntryPoint = "dlerror")]
  static extern IntPtr DlError();

  /// <summary>
  /// The NuGet runtime identifier of this process ("linux-x64", "linux-arm64"),
  /// from the machine field of the running program's ELF header; "&lt;os&gt;" where
  /// there is no /proc/self/exe (not Linux).
  /// </summary>
  internal static string RuntimeIdentifier() {
    byte[] header = new byte[20];
    try {
      using (FileStream exe = File.OpenRead("/proc/self/exe"))
        if (exe.Read(header, 0, header.Length) < header.Length) return "linux-unknown";
    } catch (Exception) {
      return Environment.OSVersion.Platform.ToString().ToLowerInvariant();
    }
    int machine = header[18] | (header[19] << 8);
    switch (machine) {
      case 0x3E: return "linux-x64";
      case 0xB7: return "linux-arm64";
      case 0x03: return "linux-x86";
      case 0x28: return "linux-arm";
      default: return "linux-machine" + machine;
    }
  }

  /// <summary>The runtime identifiers a package folder holds the wrapper for (its runtimes/*/native/).</summary>
  internal static string[] PackagedRuntimes(string packageDir) {
    string runtimes = Path.Combine(packageDir, "runtimes");
    if (!Directory.Exists(runtimes)) return new string[0];
    var held = new System.Collections.Generic.List<string>();
    foreach (string dir in Directory.GetDirectories(runtimes))
      if (File.Exists(Path.Combine(dir, "native", WrapperFile))) held.Add(Path.GetFileName(dir));
    held.Sort(StringComparer.Ordinal);
    return held.ToArray();
  }

  /// <summary>Where the wrapper is looked for, in order, relative to the assembly's folder.</summary>
  internal static string[] Candidates(string assemblyDir, string rid) {
    string native = Path.Combine("runtimes", rid ?? "unknown", "native");
    return new[] {
      Path.Combine(assemblyDir, WrapperFile),                                          // beside the assembly
      Path.Combine(assemblyDir, native, WrapperFile),                                  // an application's build output
      Path.GetFullPath(Path.Combine(assemblyDir, "..", "..", native, WrapperFile)),    // the package itself
      Path.GetFullPath(Path.Combine(assemblyDir, "..", "..", WrapperFile)),            // an installed prefix
    };
  }

  /// <summary>The file loaded by Load(), or null when the runtime's own lookup was left to find it.</summary>
  internal static string LoadedFrom { get; private set; }

  internal static void Load() {
    lock (gate) {
      if (done) return;
      string location = typeof(NativeLibraries).Assembly.Location;
      string dir = string.IsNullOrEmpty(location) ? AppDomain.CurrentDomain.BaseDirectory : Path.GetDirectoryName(location);
      string rid = RuntimeIdentifier();
      string[] candidates = Candidates(dir, rid);
      // Binds dlerror now: the runtime's own first lookup of it could clear
      // the message of a failed dlopen before it is read.
      DlError();
      foreach (string candidate in candidates) {
        if (!File.Exists(candidate)) continue;
        if (DlOpen(candidate, RTLD_NOW | RTLD_GLOBAL) == IntPtr.Zero)
          throw new DllNotFoundException("gmlab: cannot load " + candidate + ": " + LastDlError());
        LoadedFrom = candidate;
        break;
      }
      if (LoadedFrom == null) {
        // Inside a package that has no libraries for this platform: say so,
        // rather than let the runtime fail on a library name.
        string packageDir = Path.GetFullPath(Path.Combine(dir, "..", ".."));
        string[] held = PackagedRuntimes(packageDir);
        if (held.Length > 0)
          throw new PlatformNotSupportedException(
            "gmlab: this process runs on " + rid + ", but the package in " + packageDir +
            " holds native libraries for " + string.Join(", ", held) + " only");
        if (DlOpen(WrapperFile, RTLD_NOW | RTLD_GLOBAL) == IntPtr.Zero)
          throw new DllNotFoundException("gmlab: cannot find " + WrapperFile + " (and libgmlab beside it); looked in " +
                                         string.Join(", ", candidates) + " and the system's library path (" +
                                         LastDlError() + ")");
      }
      done = true;
      string problem = Library.AbiProblem(Library.BindingAbiVersion);
      if (problem.Length > 0) throw new GmlabException(Status.Internal, problem);
    }
  }

  static string LastDlError() {
    IntPtr error = DlError();
    return error == IntPtr.Zero ? "unknown error" : Marshal.PtrToStringAnsi(error);
  }
}

}
