using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;

namespace Gmlab.Tests {

/// <summary>
/// The bindings' shared behaviour table (bindings/contract.json, explained in
/// bindings/CONTRACT.md), row by row, in C#: each row's input, the exception it
/// throws (or none) and what the message names. A row without a case below
/// fails: every row is run.
/// </summary>
static class ContractTests {
  /// <summary>A row's input on the files of <see cref="Files"/>.</summary>
  delegate void Case(Dictionary<string, string> files);

  static Run Fixture(Dictionary<string, string> f) => Run.Load(f["run"]);

  static Case LoadOf(string key) => f => Run.Load(f[key]);

  static readonly Dictionary<string, Case> Cases = new Dictionary<string, Case> {
    {"negative_device", f => { new Context(-1).Dispose(); }},
    {"no_device", f => { new Context(0).Dispose(); }},
    {"null", f => { Run.Load(null); }},
    {"empty_path", f => { Run.Load(""); }},
    {"missing_file", LoadOf("missing")},
    {"empty_file", LoadOf("empty")},
    {"not_json", LoadOf("not_json")},
    {"truncated_file", LoadOf("truncated")},
    {"zstd_file", f => {
      Check.Equal(string.Join(",", Fixture(f).Experiments), string.Join(",", Run.Load(f["run_zst"]).Experiments), "the zstd run's experiments");
    }},
    {"experiment_not_in_run", f => { Fixture(f).Result("no_such_experiment"); }},
    {"unknown_experiment", f => { Library.DescribeExperiment("no_such_experiment"); }},
    {"index_out_of_range", f => { Fixture(f).Result(99); }},
    {"series_out_of_range", f => {
      using (Result r = Fixture(f).Result("stream")) r.PointValue(99, 0, "x");
    }},
    {"use_after_close", f => {
      Result r = Fixture(f).Result("stream");
      r.Dispose();
      var unused = r.Experiment;
    }},
    {"results_independent", f => {
      Run run = Fixture(f);
      run.Result("stream").Dispose();
      using (Result again = run.Result("stream"))
      using (Result next = run.Result("matmul_ab")) {
        Check.Equal("stream", again.Experiment, "the same result asked again");
        Check.Equal("matmul_ab", next.Experiment, "the next result");
      }
    }},
  };

  // The file each row's message names.
  static readonly Dictionary<string, string> FileOf = new Dictionary<string, string> {
    {"missing_file", "missing"}, {"empty_file", "empty"}, {"not_json", "not_json"}, {"truncated_file", "truncated"},
    {"zstd_file", "run_zst"}, {"experiment_not_in_run", "run"}, {"index_out_of_range", "run"},
  };

  static string Bindings(params string[] parts) {
    string root = Environment.GetEnvironmentVariable("GMLAB_SOURCE_DIR");
    if (string.IsNullOrEmpty(root))
      throw new CheckFailed("GMLAB_SOURCE_DIR is not set: it names the source tree (CTest sets it)");
    return Path.Combine(new[] {root, "bindings"}.Concat(parts).ToArray());
  }

  static List<IReadOnlyDictionary<string, object>> Rows() {
    var table = global::Gmlab.Json.Object(global::Gmlab.Json.Parse(File.ReadAllText(Bindings("contract.json")), "contract.json"), "contract.json");
    return ((IReadOnlyList<object>)table["rows"]).Select(r => global::Gmlab.Json.Object(r, "a row")).ToList();
  }

  static Dictionary<string, string> Files() {
    string folder = Path.Combine(Path.GetTempPath(), "gmlab-contract-" + Guid.NewGuid().ToString("N"));
    Directory.CreateDirectory(folder);
    byte[] run = File.ReadAllBytes(Bindings("testdata", "run.json"));
    var f = new Dictionary<string, string>();
    Action<string, byte[]> write = (key, data) => {
      f[key] = Path.Combine(folder, key + ".json");
      if (data != null) File.WriteAllBytes(f[key], data);
    };
    write("run", run);
    write("run_zst", File.ReadAllBytes(Bindings("testdata", "run.json.zst")));
    write("missing", null);
    write("empty", new byte[0]);
    write("not_json", System.Text.Encoding.UTF8.GetBytes("this is not JSON"));
    write("truncated", run.Take(run.Length / 2).ToArray());
    return f;
  }

  static IEnumerable<string> Strings(IReadOnlyDictionary<string, object> o, string key) {
    return o.TryGetValue(key, out object v) && v != null ? ((IReadOnlyList<object>)v).Cast<string>() : Enumerable.Empty<string>();
  }

  // "NO_DEVICE" as the enum names it: NoDevice.
  static Status StatusNamed(string table) {
    string name = string.Concat(table.ToLowerInvariant().Split('_').Select(w => char.ToUpperInvariant(w[0]) + w.Substring(1)));
    return (Status)Enum.Parse(typeof(Status), name);
  }

  static void CheckRow(IReadOnlyDictionary<string, object> row, Dictionary<string, string> files, int devices) {
    string id = (string)row["id"];
    if (!Cases.TryGetValue(id, out Case run)) throw new CheckFailed("row " + id + " of the table has no case in C#");
    if (row.TryGetValue("needs", out object needs) && (string)needs == "no_device" && devices > 0) return;
    var expected = global::Gmlab.Json.Object(row["csharp"], id);
    object error = expected["error"];
    Exception thrown = null;
    try {
      run(files);
    } catch (Exception e) {
      thrown = e;
    }
    if (error == null) {
      if (thrown != null) throw new CheckFailed(id + ": want no exception, got " + thrown);
      return;
    }
    if (thrown == null) throw new CheckFailed(id + ": want " + error + ", got no exception");
    Check.Equal((string)error, thrown.GetType().Name, id + ": the exception (" + thrown.Message + ")");
    if (thrown is GmlabException g && row.TryGetValue("status", out object status))
      Check.Equal(StatusNamed((string)status), g.Status, id + ": the status");
    string file = FileOf.TryGetValue(id, out string key) ? files[key] : null;
    foreach (string want in Strings(row, "contains").Concat(Strings(expected, "contains"))) {
      string w = file == null ? want : want.Replace("{file}", file);
      Check.Contains(w, thrown.Message, id);
    }
    foreach (string absent in Strings(row, "absent"))
      Check.True(!thrown.Message.Contains(absent), id + ": \"" + thrown.Message + "\" has \"" + absent + "\"");
  }

  [Test]
  static void EveryRowOfTheTable() {
    var files = Files();
    int devices = Library.DeviceCount;
    var failures = new List<string>();
    var rows = Rows();
    foreach (var row in rows) {
      try {
        CheckRow(row, files, devices);
        Console.WriteLine("  contract: " + row["id"] + " ok");
      } catch (CheckFailed e) {
        failures.Add(e.Message);
      }
    }
    Check.Equal(string.Join(",", rows.Select(r => (string)r["id"]).OrderBy(s => s, StringComparer.Ordinal)),
                string.Join(",", Cases.Keys.OrderBy(s => s, StringComparer.Ordinal)), "the table's rows and the cases");
    if (failures.Count > 0) throw new CheckFailed(string.Join("\n", failures));
  }
}

}
