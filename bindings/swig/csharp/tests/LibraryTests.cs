using System;
using System.Linq;
using System.Reflection;
using System.Text.RegularExpressions;

namespace Gmlab.Tests {

/// <summary>Library-wide functions and the error contract; none needs a device.</summary>
static class LibraryTests {
  [Test]
  static void VersionMatchesTheHeader() {
    string header = Sources.Read("include", "gmlab.h");
    string expected = Define(header, "GM_VERSION_MAJOR") + "." + Define(header, "GM_VERSION_MINOR") + "." +
                      Define(header, "GM_VERSION_PATCH");
    Check.Equal(expected, gmlab.Version(), "Version()");
    Check.Equal(int.Parse(Define(header, "GM_ABI_VERSION")), gmlab.AbiVersion(), "AbiVersion()");
  }

  [Test]
  static void ConstantsMatchTheHeader() {
    string header = Sources.Read("include", "gmlab.h");
    var classes = new[] {
      new { Type = typeof(Status), Pattern = @"\bGM_(?:ERROR_(?<name>\w+)|(?<name>OK)) = (?<value>-?\d+)" },
      new { Type = typeof(Transpose), Pattern = @"\bGM_TRANSPOSE_(?<name>\w+) = (?<value>\d+)" },
      new { Type = typeof(Matmul), Pattern = @"\bGM_MATMUL_(?<name>\w+) = (?<value>\d+)" },
      new { Type = typeof(AccessProperty), Pattern = @"\bGM_ACCESS_(?<name>\w+) = (?<value>\d+)" },
    };
    foreach (var c in classes) {
      string name = c.Type.Name;
      Check.True(c.Type.IsAbstract && c.Type.IsSealed, name + " is a static class");
      var inHeader = Regex.Matches(header, c.Pattern).Cast<Match>()
                         .ToDictionary(m => m.Groups["name"].Value, m => int.Parse(m.Groups["value"].Value));
      var inCSharp = c.Type.GetFields(BindingFlags.Public | BindingFlags.Static).Where(f => f.IsLiteral)
                         .ToDictionary(f => f.Name, f => (int)f.GetRawConstantValue());
      Check.True(inHeader.Count > 0, "gmlab.h has " + name + " constants");
      Check.Equal(string.Join(",", inHeader.Keys.OrderBy(k => k)), string.Join(",", inCSharp.Keys.OrderBy(k => k)),
                  name + " constants");
      foreach (var constant in inHeader)
        Check.Equal(constant.Value, inCSharp[constant.Key], name + "." + constant.Key);
    }
    var codes = typeof(Status).GetFields().Select(f => (int)f.GetRawConstantValue()).ToList();
    Check.Equal(codes.Count, codes.Select(gmlab.StatusString).Distinct().Count(), "distinct StatusString texts");
    Check.Equal("no CUDA device", gmlab.StatusString(Status.NO_DEVICE), "StatusString(NO_DEVICE)");
  }

  [Test]
  static void PublicMembersArePascalCase() {
    const BindingFlags declared = BindingFlags.Public | BindingFlags.Instance | BindingFlags.Static | BindingFlags.DeclaredOnly;
    int checkedMembers = 0;
    foreach (Type type in typeof(Context).Assembly.GetExportedTypes()) {
      foreach (MemberInfo member in type.GetMembers(declared)) {
        var method = member as MethodBase;
        var field = member as FieldInfo;
        if (method != null && method.IsSpecialName) continue;  // constructors and property accessors
        if (field != null && field.IsLiteral) continue;        // constants keep the header's names
        Check.True(char.IsUpper(member.Name[0]), type.Name + "." + member.Name + " starts with an upper-case letter");
        ++checkedMembers;
      }
    }
    Check.True(checkedMembers > 40, "the assembly's public members were found (" + checkedMembers + ")");
  }

  [Test]
  static void ListsTheGlobalMemoryExperiments() {
    string[] names = gmlab.ExperimentNames();
    Check.Equal(gmlab.ExperimentCount(), (long)names.Length, "ExperimentCount()");
    foreach (string name in new[] {"stream", "offset_copy", "stride_copy"})
      Check.True(names.Contains(name), "the registry lists " + name + " (has " + string.Join(", ", names) + ")");
    Check.Throws(Status.INVALID_ARGUMENT, "index must be in 0.." + (names.Length - 1) + ", got " + names.Length,
                 () => gmlab.ExperimentName(names.Length), "ExperimentName(count)");
    Check.Throws(Status.INVALID_ARGUMENT, "index must be >= 0, got -1", () => gmlab.ExperimentName(-1),
                 "ExperimentName(-1)");
  }

  [Test]
  static void DescribesAnExperimentWithItsParameters() {
    string description = Json.Compact(gmlab.DescribeExperiment("stride_copy"));
    Check.Contains("\"name\":\"stride_copy\"", description, "the description names the experiment");
    Check.Contains("\"default_suite\":true", description, "stride_copy is in the default suite");
    Check.Contains("\"name\":\"strides\"", description, "the description lists the strides parameter");
    Check.Contains("\"guide_section\":\"", description, "the description names the guide's section");
    Check.Contains("\"kernels\":[\"row_copy", Json.Compact(gmlab.DescribeExperiment("pitch_2d")),
                   "the description names the kernels without a device");
  }

  [Test]
  static void ResolvesParametersWithoutADevice() {
    string resolved = Json.Compact(gmlab.ResolveParams("stride_copy", "{\"strides\": \"1..4\", \"word_sizes\": \"8\"}"));
    Check.Contains("\"strides\":[1,2,3,4]", resolved, "strides given as a range");
    Check.Contains("\"word_sizes\":[8]", resolved, "word_sizes given as text");
    Check.Contains("\"block_size\":256", resolved, "block_size keeps its default");
    // No parameters at all mean the defaults.
    Check.Equal(Json.Compact(gmlab.ResolveParams("stream", "{}")), Json.Compact(gmlab.ResolveParams("stream", null)),
                "null parameters are {}");
    Check.Equal(Json.Compact(gmlab.ResolveParams("stream", "{}")), Json.Compact(gmlab.ResolveParams("stream", "")),
                "empty parameters are {}");
  }

  [Test]
  static void RefusesParametersOutOfRange() {
    var cases = new[] {
      new { Experiment = "stride_copy", Params = "{\"strides\":[0]}", Message = "strides must be in 1..32, got 0" },
      new { Experiment = "stride_copy", Params = "{\"strides\":[33]}", Message = "strides must be in 1..32, got 33" },
      new { Experiment = "stride_copy", Params = "{\"word_sizes\":[2]}", Message = "word_sizes must be one of 4, 8, 16, got 2" },
      new { Experiment = "offset_copy", Params = "{\"offsets\":\"0..40\"}", Message = "offsets must be in 0..32, got 33" },
      new { Experiment = "stream", Params = "{\"block_size\":33}", Message = "block_size must be a multiple of 32, got 33" },
      new { Experiment = "stream", Params = "{\"arraybytes\":5}", Message = "unknown parameter 'arraybytes' for experiment stream" },
      new { Experiment = "stream", Params = "{\"array_bytes\": ", Message = "not valid JSON" },
      new { Experiment = "stream", Params = "[1, 2]", Message = "must be a JSON object" },
    };
    foreach (var c in cases)
      Check.Throws(Status.INVALID_ARGUMENT, c.Message, () => gmlab.ResolveParams(c.Experiment, c.Params),
                   "ResolveParams(" + c.Experiment + ", " + c.Params + ")");
  }

  [Test]
  static void UnknownExperimentsHaveTheirOwnStatus() {
    Check.Throws(Status.UNKNOWN_EXPERIMENT, "unknown experiment 'nope'", () => gmlab.ResolveParams("nope", "{}"),
                 "ResolveParams(nope)");
    Check.Throws(Status.UNKNOWN_EXPERIMENT, "nope", () => gmlab.DescribeExperiment("nope"), "DescribeExperiment(nope)");
  }

  [Test]
  static void NullAndEmptyStringsAreRefused() {
    Check.Throws(Status.INVALID_ARGUMENT, "experiment must not be null", () => gmlab.DescribeExperiment(null),
                 "DescribeExperiment(null)");
    Check.Throws(Status.INVALID_ARGUMENT, "experiment must not be empty", () => gmlab.DescribeExperiment(""),
                 "DescribeExperiment(\"\")");
    Check.Throws(Status.INVALID_ARGUMENT, "experiment must not be null", () => gmlab.ResolveParams(null, "{}"),
                 "ResolveParams(null, {})");
    Check.Throws(Status.INVALID_ARGUMENT, "experiment must not be empty", () => gmlab.ResolveParams("", "{}"),
                 "ResolveParams(\"\", {})");
    Check.Throws(Status.INVALID_ARGUMENT, "json must not be null", () => Result.FromJson(null), "Result.FromJson(null)");
    Check.Throws(Status.INVALID_ARGUMENT, "json must not be empty", () => Result.FromJson(""), "Result.FromJson(\"\")");
    Check.Throws(Status.INVALID_ARGUMENT, "runJson must not be null", () => Result.FromRunJson(null, 0),
                 "Result.FromRunJson(null, 0)");
    Check.Throws(Status.INVALID_ARGUMENT, "runJson must not be empty", () => Result.RunResultCount(""),
                 "Result.RunResultCount(\"\")");
  }

  [Test]
  static void ExceptionsCarryStatusAndMessage() {
    GmlabException e = Check.Throws(Status.INVALID_ARGUMENT, "strides must be in 1..32, got 0",
                                    () => gmlab.ResolveParams("stride_copy", "{\"strides\":[0]}"), "strides 0");
    Check.True(e is Exception, "GmlabException is an Exception");
    // The pending exception is consumed: the next call succeeds.
    Check.Contains("strides", gmlab.ResolveParams("stride_copy", "{}"), "a call after a failure");
  }

  [NoDeviceTest]
  static void ContextWithoutADeviceSaysSo() {
    Check.Equal(0, gmlab.DeviceCount(), "DeviceCount()");
    Check.Throws(Status.NO_DEVICE, "no CUDA device", () => new Context(), "new Context()");
    Check.Throws(Status.NO_DEVICE, "no CUDA device", () => new Context(0), "new Context(0)");
  }

  static string Define(string header, string name) {
    Match m = Regex.Match(header, @"#define " + name + @" (\d+)");
    if (!m.Success) throw new CheckFailed("gmlab.h defines " + name);
    return m.Groups[1].Value;
  }
}

}
