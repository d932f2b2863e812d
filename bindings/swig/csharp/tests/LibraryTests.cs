using System;
using System.Collections.Generic;
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
    Check.Equal(expected, Library.Version, "Library.Version");
    Check.Equal(int.Parse(Define(header, "GM_ABI_VERSION")), Library.AbiVersion, "Library.AbiVersion");
    Check.Equal(Library.AbiVersion, Library.BindingAbiVersion, "Library.BindingAbiVersion");
  }

  [Test]
  static void EnumsMatchTheHeader() {
    string header = Sources.Read("include", "gmlab.h");
    var enums = new[] {
      new { Type = typeof(Status), Pattern = @"\bGM_(?:ERROR_(?<name>\w+)|(?<name>OK)) = (?<value>-?\d+)" },
      new { Type = typeof(TransposeVariant), Pattern = @"\bGM_TRANSPOSE_(?<name>\w+) = (?<value>\d+)" },
      new { Type = typeof(MatmulVariant), Pattern = @"\bGM_MATMUL_(?<name>\w+) = (?<value>\d+)" },
      new { Type = typeof(AccessProperty), Pattern = @"\bGM_ACCESS_(?<name>\w+) = (?<value>\d+)" },
    };
    foreach (var e in enums) {
      string name = e.Type.Name;
      Check.True(e.Type.IsEnum, name + " is an enum");
      var inHeader = Regex.Matches(header, e.Pattern).Cast<Match>()
                         .ToDictionary(m => PascalCase(m.Groups["name"].Value), m => int.Parse(m.Groups["value"].Value));
      var inCSharp = Enum.GetNames(e.Type).ToDictionary(n => n, n => (int)Enum.Parse(e.Type, n));
      Check.True(inHeader.Count > 0, "gmlab.h has " + name + " values");
      Check.Equal(string.Join(",", inHeader.Keys.OrderBy(k => k)), string.Join(",", inCSharp.Keys.OrderBy(k => k)),
                  name + " members");
      foreach (var value in inHeader)
        Check.Equal(value.Value, inCSharp[value.Key], name + "." + value.Key);
    }
    var codes = Enum.GetValues(typeof(Status)).Cast<Status>().ToList();
    Check.Equal(codes.Count, codes.Select(Library.StatusText).Distinct().Count(), "distinct StatusText texts");
    Check.Equal("no CUDA device", Library.StatusText(Status.NoDevice), "StatusText(NoDevice)");
  }

  /// <summary>NO_DEVICE -> NoDevice; single letters and the initialisms OK and AB (matrices A and B) stay upper-case.</summary>
  static string PascalCase(string upperSnake) {
    return string.Concat(upperSnake.Split('_').Select(w => w.Length == 1 || w == "OK" || w == "AB" ? w
                                                           : w[0] + w.Substring(1).ToLowerInvariant()));
  }

  [Test]
  static void TypesAndMembersFollowTheDotNetGuidelines() {
    const BindingFlags declared = BindingFlags.Public | BindingFlags.Instance | BindingFlags.Static | BindingFlags.DeclaredOnly;
    int checkedMembers = 0;
    foreach (Type type in typeof(Context).Assembly.GetExportedTypes()) {
      Check.True(char.IsUpper(type.Name[0]), type.FullName + " starts with an upper-case letter");
      Check.True(type.Name != "Gmlab", "no type is named as its namespace");
      // A type named like one of System's would not compile under "using System; using Gmlab;" (CS0104).
      Check.Equal(null, typeof(object).Assembly.GetType("System." + type.Name), type.FullName + " collides with System." + type.Name);
      foreach (MemberInfo member in type.GetMembers(declared)) {
        var method = member as MethodBase;
        if (method != null)
          foreach (ParameterInfo p in method.GetParameters()) {
            Check.True(!p.Name.EndsWith("_", StringComparison.Ordinal), type.Name + "." + method.Name + "'s parameter " + p.Name + " has a .NET name");
            Check.True(p.ParameterType != typeof(sbyte[]), type.Name + "." + method.Name + " takes byte[], not sbyte[]");
            if (p.Name == "series" || p.Name == "point" || p.Name == "index")
              Check.Equal(typeof(int), p.ParameterType, type.Name + "." + method.Name + "'s index " + p.Name);
          }
        if (method != null && method.IsSpecialName) continue;  // constructors and property accessors
        if (member is FieldInfo field && field.IsSpecialName) continue;  // an enum's value__
        Check.True(char.IsUpper(member.Name[0]), type.Name + "." + member.Name + " starts with an upper-case letter");
        Check.True(!member.Name.Contains("_"), type.Name + "." + member.Name + " has no underscore");
        ++checkedMembers;
      }
    }
    Check.True(checkedMembers > 40, "the assembly's public members were found (" + checkedMembers + ")");
    Check.True(typeof(Library).IsAbstract && typeof(Library).IsSealed, "Library is a static class");
    foreach (string property in new[] {"Version", "AbiVersion", "DeviceCount", "ExperimentNames", "LibraryPath"})
      Check.True(typeof(Library).GetProperty(property) != null, "Library." + property + " is a property");
    Check.True(typeof(Result).GetProperty("Experiment") != null, "Result.Experiment is a property");
    Check.True(typeof(DeviceBuffer).GetProperty("Size") != null, "DeviceBuffer.Size is a property");
    Check.True(typeof(Context).GetProperty("Device") != null, "Context.Device is a property");
    Check.Equal(typeof(Status), typeof(GmlabException).GetProperty("Status").PropertyType, "GmlabException.Status's type");
    Check.True(typeof(IDisposable).IsAssignableFrom(typeof(Result)), "Result is IDisposable");
    Check.Equal(null, typeof(Context).Assembly.GetType("Gmlab.gmlab"), "no SWIG-named module class");
  }

  [Test]
  static void ListsTheGlobalMemoryExperiments() {
    var names = Library.ExperimentNames;
    foreach (string name in new[] {"stream", "offset_copy", "stride_copy"})
      Check.True(names.Contains(name), "the registry lists " + name + " (has " + string.Join(", ", names) + ")");
  }

  [Test]
  static void DescribesAnExperimentWithItsParameters() {
    ExperimentDescription description = Library.DescribeExperiment("stride_copy");
    Check.Equal("stride_copy", description.Name, "Name");
    Check.True(description.DefaultSuite, "stride_copy is in the default suite");
    Check.Contains("Strided Accesses", description.GuideSection, "GuideSection");
    ParameterDescription strides = description.Parameters.Single(p => p.Name == "strides");
    Check.Equal("int_list", strides.Type, "strides' Type");
    Check.Equal(1.0, strides.Min, "strides' Min");
    Check.Equal(32.0, strides.Max, "strides' Max");
    Check.Equal("words", strides.Unit, "strides' Unit");
    Check.Equal(1.0, ((IReadOnlyList<object>)strides.Default)[0], "strides' first default");
    Check.True(Library.DescribeExperiment("pitch_2d").Kernels.Any(k => k.StartsWith("row_copy")),
               "the description names the kernels without a device");
    Check.Equal("stride_copy", description.Values["name"], "Values holds the whole document");
  }

  [Test]
  static void ResolvesParametersWithoutADevice() {
    var resolved = Library.ResolveParams("stride_copy", "{\"strides\": \"1..4\", \"word_sizes\": \"8\"}");
    Check.Equal("1,2,3,4", string.Join(",", (IReadOnlyList<object>)resolved["strides"]), "strides given as a range");
    Check.Equal("8", string.Join(",", (IReadOnlyList<object>)resolved["word_sizes"]), "word_sizes given as text");
    Check.Equal(256.0, resolved["block_size"], "block_size keeps its default");
    // No parameters at all mean the defaults.
    Check.Equal(Library.ResolveParams("stream", "{}").Count, Library.ResolveParams("stream", null).Count,
                "null parameters are {}");
    Check.Equal(Library.ResolveParams("stream", "{}")["block_size"], Library.ResolveParams("stream", "")["block_size"],
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
      new { Experiment = "stream", Params = "{\"array_bytes\": ", Message = "paramsJson is not valid JSON" },
      new { Experiment = "stream", Params = "[1, 2]", Message = "must be a JSON object" },
    };
    foreach (var c in cases)
      Check.Throws(Status.InvalidArgument, c.Message, () => Library.ResolveParams(c.Experiment, c.Params),
                   "ResolveParams(" + c.Experiment + ", " + c.Params + ")");
  }

  [Test]
  static void UnknownExperimentsHaveTheirOwnStatus() {
    Check.Throws(Status.UnknownExperiment, "unknown experiment 'nope'", () => Library.ResolveParams("nope", "{}"),
                 "ResolveParams(nope)");
    Check.Throws(Status.UnknownExperiment, "nope", () => Library.DescribeExperiment("nope"), "DescribeExperiment(nope)");
  }

  [Test]
  static void NullAndEmptyArgumentsThrowTheStandardExceptions() {
    var nulls = new Dictionary<string, Action> {
      {"experiment", () => Library.DescribeExperiment(null)},
      {"json", () => Result.FromJson(null)},
      {"runJson", () => Result.FromRunJson(null, 0)},
      {"path", () => Run.Load(null)},
    };
    foreach (var c in nulls)
      Check.Equal(c.Key, Check.Throws<ArgumentNullException>(c.Key + " must not be null", c.Value, c.Key + " null").ParamName,
                  "ParamName of a null " + c.Key);
    var empties = new Dictionary<string, Action> {
      {"experiment", () => Library.ResolveParams("", "{}")},
      {"json", () => Result.FromJson("")},
      {"runJson", () => Result.RunResultCount("")},
    };
    foreach (var c in empties)
      Check.Equal(c.Key, Check.Throws<ArgumentException>(c.Key + " must not be empty", c.Value, c.Key + " empty").ParamName,
                  "ParamName of an empty " + c.Key);
    var range = Check.Throws<ArgumentOutOfRangeException>("index must be >= 0, got -1",
                                                         () => Result.FromRunJson(Sources.H200Run(), -1), "index -1");
    Check.Equal("index", range.ParamName, "ParamName of a negative index");
  }

  [Test]
  static void MessagesUseTheCSharpNames() {
    Check.Throws(Status.InvalidArgument, "runJson is not valid JSON", () => Result.RunResultCount("{"), "RunResultCount({)");
    Check.Throws(Status.InvalidArgument, "runJson is not valid JSON", () => Result.FromRunJson("{", 0), "FromRunJson({)");
    Check.Throws(Status.InvalidArgument, "json is not valid JSON", () => Result.FromJson("{"), "FromJson({)");
    Check.Throws(Status.InvalidArgument, "paramsJson is not valid JSON", () => Library.ResolveParams("stream", "{"),
                 "ResolveParams(stream, {)");
  }

  [Test]
  static void ExceptionsCarryStatusAndMessage() {
    GmlabException e = Check.Throws(Status.InvalidArgument, "strides must be in 1..32, got 0",
                                    () => Library.ResolveParams("stride_copy", "{\"strides\":[0]}"), "strides 0");
    Check.True(e is Exception, "GmlabException is an Exception");
    // The pending exception is consumed: the next call succeeds.
    Check.True(Library.ResolveParams("stride_copy", "{}").ContainsKey("strides"), "a call after a failure");
  }

  [NoDeviceTest]
  static void ContextWithoutADeviceSaysSo() {
    Check.Equal(0, Library.DeviceCount, "DeviceCount");
    Check.Throws(Status.NoDevice, "no CUDA device", () => new Context(), "new Context()");
    Check.Throws(Status.NoDevice, "no CUDA device", () => new Context(0), "new Context(0)");
  }

  static string Define(string header, string name) {
    Match m = Regex.Match(header, @"#define " + name + @" (\d+)");
    if (!m.Success) throw new CheckFailed("gmlab.h defines " + name);
    return m.Groups[1].Value;
  }
}

}
