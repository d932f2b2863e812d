using System;
using System.Collections.Generic;
using System.IO;
using System.IO.Compression;
using System.Text;

namespace Gmlab {

/// <summary>
/// A saved run: a gmlab.run/1 document (what <c>gmlab run --json</c> writes, the
/// files in results/), read from a file, plain or compressed as the CLI writes
/// them, or from its text. Its results are read by experiment name or index;
/// each is a new object, the caller's to dispose (disposing it disposes no other).
/// Needs no GPU.
/// </summary>
public sealed class Run {
  readonly List<string> experiments = new List<string>();

  Run(string json, string source) {
    Json = json;
    Source = source;
    try {
      int count = Gmlab.Result.RunResultCount(json);
      for (int i = 0; i < count; ++i)
        using (Gmlab.Result r = Gmlab.Result.FromRunJson(json, i)) experiments.Add(r.Experiment);
    } catch (GmlabException e) {
      // The library names its argument ("runJson is not valid JSON"); the caller
      // gave a file (or a text): that is what the message names.
      const string argument = "runJson is ";
      string message = e.Message.StartsWith(argument, StringComparison.Ordinal) ? e.Message.Substring(argument.Length) : e.Message;
      throw new GmlabException(e.Status, source + ": " + message);
    }
  }

  /// <summary>Reads a run document from a file: JSON text, or gzip (.json.gz) or zstd
  /// (.json.zst) compressed, told by its first bytes whatever the file is called.</summary>
  public static Run Load(string path) {
    if (path == null) throw new ArgumentNullException(nameof(path), "path must not be null");
    if (path.Length == 0) throw new ArgumentException("path must not be empty", nameof(path));
    byte[] data = File.ReadAllBytes(path);
    if (data.Length == 0) throw new GmlabException(Status.InvalidArgument, path + ": the file is empty");
    return new Run(Encoding.UTF8.GetString(Decompressed(data, path)), path);
  }

  /// <summary>A run document given as its text.</summary>
  public static Run Parse(string runJson) {
    if (runJson == null) throw new ArgumentNullException(nameof(runJson), "runJson must not be null");
    return new Run(runJson, "the run");
  }

  /// <summary>The document's text (decompressed).</summary>
  public string Json { get; }

  /// <summary>The file it was read from, or "the run" for a text.</summary>
  public string Source { get; }

  /// <summary>The experiment of each result, in the document's order.</summary>
  public IReadOnlyList<string> Experiments => experiments;

  public int Count => experiments.Count;

  /// <summary>The result at index (0 .. Count - 1).</summary>
  public Gmlab.Result Result(int index) {
    if (index < 0 || index >= experiments.Count)
      throw new ArgumentOutOfRangeException(nameof(index), "index must be in 0.." + (experiments.Count - 1) + ", got " +
                                            index + " (" + Source + " holds " + experiments.Count + " results)");
    return Gmlab.Result.FromRunJson(Json, index);
  }

  /// <summary>The first result of the named experiment ("stride_copy").</summary>
  public Gmlab.Result Result(string experiment) {
    if (experiment == null) throw new ArgumentNullException(nameof(experiment), "experiment must not be null");
    int index = experiments.IndexOf(experiment);
    if (index < 0)
      throw new KeyNotFoundException("experiment " + experiment + " is not in " + Source + "; it holds " +
                                      string.Join(", ", experiments));
    return Gmlab.Result.FromRunJson(Json, index);
  }

  static byte[] Decompressed(byte[] data, string path) {
    if (data.Length >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
      using (var gzip = new GZipStream(new MemoryStream(data), CompressionMode.Decompress))
      using (var text = new MemoryStream()) {
        try {
          gzip.CopyTo(text);
        } catch (InvalidDataException e) {
          throw new InvalidDataException(path + " is not a valid gzip file: " + e.Message, e);
        }
        return text.ToArray();
      }
    }
    if (data.Length >= 4 && data[0] == 0x28 && data[1] == 0xb5 && data[2] == 0x2f && data[3] == 0xfd)
      return Zstd.Decompress(data, path);
    return data;
  }
}

}
