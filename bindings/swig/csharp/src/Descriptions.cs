using System;
using System.Collections.Generic;

namespace Gmlab {

/// <summary>Typed reads of one JSON object the library returned; <see cref="Values"/> holds all of it.</summary>
public abstract class JsonRecord {
  internal JsonRecord(IReadOnlyDictionary<string, object> values) {
    Values = values;
  }

  /// <summary>Every member, as the library wrote it (objects are dictionaries, arrays lists, numbers double).</summary>
  public IReadOnlyDictionary<string, object> Values { get; }

  internal string Text(string name) => Values.TryGetValue(name, out object v) ? v as string : null;
  internal double? Number(string name) => Values.TryGetValue(name, out object v) && v is double d ? d : (double?)null;
  internal long Count(string name) => (long)(Number(name) ?? 0);
  internal bool Flag(string name) => Values.TryGetValue(name, out object v) && v is bool b && b;

  internal IReadOnlyList<object> List(string name) =>
    Values.TryGetValue(name, out object v) && v is IReadOnlyList<object> l ? l : new object[0];
}

/// <summary>What <see cref="Library.DescribeExperiment"/> says of an experiment.</summary>
public sealed class ExperimentDescription : JsonRecord {
  internal ExperimentDescription(object json) : base(Json.Object(json, "the description")) {
    var parameters = new List<ParameterDescription>();
    foreach (object p in List("parameters")) parameters.Add(new ParameterDescription(Json.Object(p, "a parameter")));
    Parameters = parameters;
    var kernels = new List<string>();
    foreach (object k in List("kernels")) kernels.Add((string)k);
    Kernels = kernels;
  }

  public string Name => Text("name");
  /// <summary>The section of the CUDA guides the experiment illustrates.</summary>
  public string GuideSection => Text("guide_section");
  public string Summary => Text("summary");
  /// <summary>Whether <c>gmlab run</c> runs it without being named.</summary>
  public bool DefaultSuite => Flag("default_suite");
  public IReadOnlyList<ParameterDescription> Parameters { get; }
  /// <summary>The names of the kernels it launches.</summary>
  public IReadOnlyList<string> Kernels { get; }
}

/// <summary>One parameter of an experiment: its type, default and bounds.</summary>
public sealed class ParameterDescription : JsonRecord {
  internal ParameterDescription(IReadOnlyDictionary<string, object> values) : base(values) {}

  public string Name => Text("name");
  /// <summary>"int", "int_list", "size", "enum_list", ...</summary>
  public string Type => Text("type");
  public string Description => Text("description");
  public string Unit => Text("unit");
  /// <summary>The default value: a double, a string, or a list of them.</summary>
  public object Default => Values.TryGetValue("default", out object v) ? v : null;
  public double? Min => Number("min");
  public double? Max => Number("max");
}

/// <summary>The device a <see cref="Context"/> uses, as the library reads it.</summary>
public sealed class DeviceInfo : JsonRecord {
  internal DeviceInfo(IReadOnlyDictionary<string, object> values) : base(values) {}

  public int Ordinal => (int)Count("ordinal");
  public string Name => Text("name");
  /// <summary>"9.0" for an H100 or H200.</summary>
  public string ComputeCapability => Text("compute_capability");
  public int Multiprocessors => (int)Count("multiprocessors");
  public long GlobalMemoryBytes => Count("global_memory_bytes");
  public long L2CacheBytes => Count("l2_cache_bytes");
  public double TheoreticalBandwidthGbs => Number("theoretical_bandwidth_gbs") ?? 0;
  public string DriverVersion => Text("driver_version");
}

}
