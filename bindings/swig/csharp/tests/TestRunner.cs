using System;
using System.Collections.Generic;
using System.Linq;
using System.Reflection;

namespace Gmlab.Tests {

/// <summary>A test: a static method without parameters that throws to fail.</summary>
[AttributeUsage(AttributeTargets.Method)]
sealed class TestAttribute : Attribute {}

/// <summary>A test that needs a CUDA device: skipped where there is none.</summary>
[AttributeUsage(AttributeTargets.Method)]
sealed class GpuTestAttribute : Attribute {}

/// <summary>A test of the no-device path: skipped where a device is present.</summary>
[AttributeUsage(AttributeTargets.Method)]
sealed class NoDeviceTestAttribute : Attribute {}

/// <summary>
/// Runs every test in this assembly (or those named on the command line), one
/// line each, then "N passed, M failed[, K skipped]"; exits 1 on any failure.
/// </summary>
static class TestRunner {
  static int Main(string[] args) {
    int devices;
    try {
      devices = Library.DeviceCount;
    } catch (Exception e) {
      Console.WriteLine("cannot use gmlab at all: " + e);
      return 1;
    }

    Console.WriteLine("libgmlab " + Library.Version + " from " + Library.LibraryPath);

    List<MethodInfo> tests = FindTests(args);
    if (tests.Count == 0) {
      Console.WriteLine("no tests found" + (args.Length > 0 ? " named " + string.Join(", ", args) : ""));
      return 1;
    }

    int passed = 0, failed = 0, skipped = 0;
    foreach (MethodInfo test in tests) {
      string name = test.DeclaringType.Name + "." + test.Name;
      string skip = SkipReason(test, devices);
      if (skip != null) {
        Console.WriteLine("skip " + name + " (" + skip + ")");
        ++skipped;
        continue;
      }
      try {
        test.Invoke(null, null);
        Console.WriteLine("ok   " + name);
        ++passed;
      } catch (TargetInvocationException e) {
        Console.WriteLine("FAIL " + name + ": " + Describe(e.InnerException));
        ++failed;
      }
    }
    string summary = passed + " passed, " + failed + " failed";
    if (skipped > 0) summary += ", " + skipped + " skipped";
    Console.WriteLine(summary);
    return failed == 0 ? 0 : 1;
  }

  static List<MethodInfo> FindTests(string[] names) {
    const BindingFlags any = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static;
    return typeof(TestRunner).Assembly.GetTypes()
        .OrderBy(type => type.FullName, StringComparer.Ordinal)
        .SelectMany(type => type.GetMethods(any).OrderBy(method => method.MetadataToken))
        .Where(method => method.IsDefined(typeof(TestAttribute), false) ||
                         method.IsDefined(typeof(GpuTestAttribute), false) ||
                         method.IsDefined(typeof(NoDeviceTestAttribute), false))
        .Where(method => names.Length == 0 || names.Contains(method.DeclaringType.Name + "." + method.Name))
        .ToList();
  }

  static string SkipReason(MethodInfo test, int devices) {
    if (devices == 0 && test.IsDefined(typeof(GpuTestAttribute), false)) return "no CUDA device";
    if (devices > 0 && test.IsDefined(typeof(NoDeviceTestAttribute), false)) return "a CUDA device is present";
    return null;
  }

  // Assertion failures carry their own message; anything else is unexpected and
  // keeps its type and stack.
  static string Describe(Exception e) {
    if (e is CheckFailed) return e.Message;
    if (e is GmlabException g) return "unexpected GmlabException (status " + g.Status + "): " + g.Message;
    return e.ToString();
  }
}

}
