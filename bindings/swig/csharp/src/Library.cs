using System.Collections.Generic;

namespace Gmlab {

/// <summary>The library as a whole: its version, the devices, the experiments.</summary>
public static partial class Library {
  /// <summary>The release of the loaded libgmlab ("0.1.0").</summary>
  public static string Version => NativeVersion();

  /// <summary>The ABI version of the loaded libgmlab (its SONAME's number).</summary>
  public static int AbiVersion => NativeAbiVersion();

  /// <summary>The file the loaded libgmlab was read from ("" where the system cannot say).</summary>
  public static string LibraryPath => NativeLibraryPath();

  /// <summary>The number of CUDA devices: 0, not an error, where there is none.</summary>
  public static int DeviceCount => NativeDeviceCount();

  /// <summary>Every experiment's name, in the registry's order.</summary>
  public static IReadOnlyList<string> ExperimentNames {
    get {
      int count = NativeExperimentCount();
      var names = new List<string>((int)count);
      for (int i = 0; i < count; ++i) names.Add(NativeExperimentName(i));
      return names;
    }
  }

  /// <summary>A fixed text for a status ("no CUDA device").</summary>
  public static string StatusText(Status status) => NativeStatusString((int)status);

  /// <summary>An experiment's guide section, summary, parameters (with defaults and
  /// bounds) and kernels' names. Needs no device.</summary>
  public static ExperimentDescription DescribeExperiment(string experiment) =>
    new ExperimentDescription(Json.Parse(NativeDescribeExperiment(experiment), "the description"));

  /// <summary>Checks parameters (a JSON object's text; null or "" for the defaults)
  /// without a device and returns every parameter with its value.</summary>
  public static IReadOnlyDictionary<string, object> ResolveParams(string experiment, string paramsJson) =>
    Json.Object(Json.Parse(NativeResolveParams(experiment, paramsJson), "the parameters"), "the parameters");
}

}
