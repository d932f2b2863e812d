using System;
using System.Collections.Generic;
using System.IO;
using System.IO.Compression;
using System.Runtime.InteropServices;

namespace Gmlab.Tests {

/// <summary>Run.Load: a saved run from a file, plain or compressed as the CLI writes it, read by experiment name.</summary>
static class RunFileTests {
  [Test]
  static void LoadsPlainGzipAndZstdFiles() {
    byte[] text = File.ReadAllBytes(H200Path());
    string folder = TemporaryFolder();
    var files = new Dictionary<string, byte[]> {
      {"run.json", text},
      {"run.json.gz", Gzip(text)},
      {"run.json.zst", ZstdFrame(text)},
      {"compressed-without-a-suffix", Gzip(text)},
    };
    foreach (var file in files) {
      string path = Path.Combine(folder, file.Key);
      File.WriteAllBytes(path, file.Value);
      Run run = Run.Load(path);
      Check.Equal(path, run.Source, file.Key + " Source");
      Check.True(run.Count > 20, file.Key + " holds the default suite (" + run.Count + " results)");
      using (Result stride = run.Result("stride_copy")) {
        Check.Equal("stride_copy", stride.Experiment, file.Key + " stride_copy by name");
        Check.Equal(IndexOf(run, "stride_copy"), System.Linq.Enumerable.ToList(run.Experiments).IndexOf("stride_copy"), file.Key + " index");
      }
    }
  }

  [Test]
  static void NamesWhatIsMissing() {
    Run run = Run.Load(H200Path());
    var missing = Check.Throws<KeyNotFoundException>("experiment nope is not in " + H200Path() + "; it holds stream, ",
                                                     () => run.Result("nope"), "Result(nope)");
    Check.Contains("stride_copy", missing.Message, "the message lists what the run holds");
    Check.Throws<ArgumentOutOfRangeException>("index must be in 0.." + (run.Count - 1) + ", got 99 (" + H200Path() +
                                              " holds " + run.Count + " results)", () => run.Result(99), "Result(99)");
    Check.Throws<FileNotFoundException>("no-such-run.json", () => Run.Load("no-such-run.json"), "a missing file");
    string truncated = Path.Combine(TemporaryFolder(), "truncated.json.zst");
    byte[] frame = ZstdFrame(File.ReadAllBytes(H200Path()));
    File.WriteAllBytes(truncated, frame.Prefix(frame.Length / 2));
    Check.Throws<InvalidDataException>(truncated, () => Run.Load(truncated), "a truncated zstd file");
  }

  [Test]
  static void ParsesARunGivenAsText() {
    Run run = Run.Parse(File.ReadAllText(H200Path()));
    Check.Equal("the run", run.Source, "Source of a text");
    using (Result stream = run.Result("stream")) Check.Equal("stream", stream.Experiment, "stream by name");
  }

  static int IndexOf(Run run, string experiment) {
    for (int i = 0; i < run.Count; ++i)
      using (Result r = run.Result(i))
        if (r.Experiment == experiment) return i;
    return -1;
  }

  static string H200Path() {
    return Path.Combine(Environment.GetEnvironmentVariable("GMLAB_SOURCE_DIR") ?? ".", "results", "nvidia-h200.json");
  }

  static string TemporaryFolder() {
    string folder = Path.Combine(Path.GetTempPath(), "gmlab-cs-tests-" + Guid.NewGuid().ToString("N"));
    Directory.CreateDirectory(folder);
    AppDomain.CurrentDomain.ProcessExit += (sender, e) => Directory.Delete(folder, true);
    return folder;
  }

  static byte[] Gzip(byte[] data) {
    using (var output = new MemoryStream()) {
      using (var gzip = new GZipStream(output, CompressionMode.Compress)) gzip.Write(data, 0, data.Length);
      return output.ToArray();
    }
  }

  [DllImport("libzstd.so.1")] static extern UIntPtr ZSTD_compressBound(UIntPtr size);
  [DllImport("libzstd.so.1")] static extern UIntPtr ZSTD_compress(byte[] dst, UIntPtr capacity, byte[] src, UIntPtr size, int level);

  static byte[] ZstdFrame(byte[] data) {
    var frame = new byte[(ulong)ZSTD_compressBound((UIntPtr)data.Length)];
    ulong size = (ulong)ZSTD_compress(frame, (UIntPtr)frame.Length, data, (UIntPtr)data.Length, 3);
    Array.Resize(ref frame, (int)size);
    return frame;
  }

  static byte[] Prefix(this byte[] data, int length) {
    var prefix = new byte[length];
    Array.Copy(data, prefix, length);
    return prefix;
  }
}

}
