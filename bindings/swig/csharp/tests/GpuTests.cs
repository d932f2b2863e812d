using System;
using System.Linq;

namespace Gmlab.Tests {

/// <summary>Everything that needs a CUDA device (skipped where there is none).</summary>
static class GpuTests {
  [GpuTest]
  static void ContextReportsItsDevice() {
    using (var context = new Context()) {
      Check.Equal(0, context.Device, "Device()");
      DeviceInfo info = context.DeviceInfo;
      Check.Equal(0, info.Ordinal, "DeviceInfo.Ordinal");
      Check.True(info.GlobalMemoryBytes > 0, "DeviceInfo.GlobalMemoryBytes");
      Check.True(info.L2CacheBytes > 0 && info.Multiprocessors > 0, "DeviceInfo's L2 and multiprocessors");
      Check.Contains(".", info.ComputeCapability, "DeviceInfo.ComputeCapability");
      Check.True(info.Values.ContainsKey("host_link"), "DeviceInfo.Values holds the whole document");
      context.Synchronize();
    }
    int count = Library.DeviceCount;
    Check.Throws(Status.InvalidArgument, "device must be in 0.." + (count - 1) + ", got " + count,
                 () => new Context(count), "new Context(DeviceCount())");
  }

  [GpuTest]
  static void KernelResourcesComeFromTheDevice() {
    using (var context = new Context()) {
      string local = Json.Compact(context.KernelResourcesJson("local_memory"));
      Check.Contains("\"local_bytes\":0", local, "the register version has no local memory");
      Check.Contains("\"local_bytes\":256", local, "the run-time indexed versions have 256 bytes");
      Check.Contains("\"experiment\":null", Json.Compact(context.KernelResourcesJson("")), "every kernel");
      Check.Throws(Status.UnknownExperiment, "unknown experiment 'nope'", () => context.KernelResourcesJson("nope"),
                   "KernelResourcesJson(nope)");
    }
  }

  [GpuTest]
  static void BuffersRoundTripEveryElementType() {
    using (var context = new Context())
    using (var buffer = new DeviceBuffer(context, 4096)) {
      Check.Equal(4096L, buffer.Size, "Size()");

      var floats = Enumerable.Range(0, 300).Select(i => i * 0.25f - 7).ToArray();
      buffer.UploadFloats(16, floats);
      var floatsBack = new float[floats.Length];
      buffer.DownloadFloats(16, floatsBack);
      Check.True(floats.SequenceEqual(floatsBack), "floats round trip at offset 16");

      var doubles = Enumerable.Range(0, 500).Select(i => Math.Sqrt(i) - 3.5).ToArray();
      buffer.UploadDoubles(8, doubles);
      var doublesBack = new double[doubles.Length];
      buffer.DownloadDoubles(8, doublesBack);
      Check.True(doubles.SequenceEqual(doublesBack), "doubles round trip at offset 8");

      var ints = Enumerable.Range(0, 1024).Select(i => i * 7919 - 1000000).ToArray();
      buffer.UploadInts(0, ints);
      var intsBack = new int[ints.Length];
      buffer.DownloadInts(0, intsBack);
      Check.True(ints.SequenceEqual(intsBack), "ints round trip filling the buffer");

      // Bytes land exactly where the offset says: fill, overwrite a window, read all.
      buffer.Fill(0xAB);
      var window = Enumerable.Range(0, 100).Select(i => unchecked((byte)(i - 50))).ToArray();
      buffer.UploadBytes(1000, window);
      var all = new byte[4096];
      buffer.DownloadBytes(0, all);
      for (int i = 0; i < all.Length; ++i) {
        byte expected = i >= 1000 && i < 1100 ? window[i - 1000] : (byte)0xAB;
        if (all[i] != expected) Check.Equal(expected, all[i], "byte " + i);
      }

      // Empty arrays are no-ops.
      buffer.UploadFloats(0, new float[0]);
      buffer.DownloadInts(4096, new int[0]);
    }
  }

  [GpuTest]
  static void BuffersRefuseBadRanges() {
    using (var context = new Context())
    using (var buffer = new DeviceBuffer(context, 64)) {
      Check.Throws(Status.InvalidArgument, "must not exceed the buffer size 64", () => buffer.UploadFloats(4, new float[16]),
                   "16 floats at offset 4 into 64 bytes");
      Check.Throws(Status.InvalidArgument, "must not exceed the buffer size 64", () => buffer.DownloadDoubles(0, new double[9]),
                   "9 doubles out of 64 bytes");
      Check.Throws<ArgumentOutOfRangeException>("offset must be >= 0, got -4", () => buffer.DownloadInts(-4, new int[1]),
                   "negative offset");
      Check.Throws<ArgumentNullException>("values must not be null", () => buffer.UploadInts(0, null), "null ints");
      Check.Throws<ArgumentNullException>("values must not be null", () => buffer.DownloadFloats(0, null), "null floats");
      Check.Throws(Status.InvalidArgument, "value must be in 0..255, got 256", () => buffer.Fill(256), "Fill(256)");
      Check.Throws(Status.InvalidArgument, "bytes must be at least 1, got 0", () => new DeviceBuffer(context, 0), "Buffer of 0 bytes");
      Check.Throws<ArgumentOutOfRangeException>("bytes must be >= 0, got -5", () => new DeviceBuffer(context, -5), "Buffer of -5 bytes");
      Check.Throws<ArgumentNullException>("ctx must not be null", () => new DeviceBuffer(null, 16), "Buffer without a context");
      Check.Throws(Status.OutOfMemory, "cannot allocate", () => new DeviceBuffer(context, 1L << 50), "Buffer of 1 PiB");
      // The buffer still works after all that.
      var data = new[] {1, 2, 3, 4};
      buffer.UploadInts(48, data);
      var back = new int[4];
      buffer.DownloadInts(48, back);
      Check.True(data.SequenceEqual(back), "round trip after the errors");
    }
  }

  [GpuTest]
  static void CopyStridedMatchesTheCSharpModel() {
    const int wordsIn = 5000, wordsOut = 7000;
    const int count = 1234, srcOffset = 7, srcStride = 3, dstOffset = 11, dstStride = 5;
    using (var context = new Context())
    using (var src = new DeviceBuffer(context, wordsIn * 4))
    using (var dst = new DeviceBuffer(context, wordsOut * 4)) {
      var random = new Random(42);
      var input = Enumerable.Range(0, wordsIn).Select(i => random.Next()).ToArray();
      var expected = Enumerable.Repeat(-1, wordsOut).ToArray();
      src.UploadInts(0, input);
      dst.UploadInts(0, expected);

      context.CopyStrided(dst, dstOffset, dstStride, src, srcOffset, srcStride, count, 4);
      for (int i = 0; i < count; ++i) expected[dstOffset + i * dstStride] = input[srcOffset + i * srcStride];
      var got = new int[wordsOut];
      dst.DownloadInts(0, got);
      for (int i = 0; i < wordsOut; ++i)
        if (got[i] != expected[i]) Check.Equal(expected[i], got[i], "dst word " + i);

      // 8-byte words: pairs of ints move together.
      context.CopyStrided(dst, 0, 2, src, 1, 1, 100, 8);
      dst.DownloadInts(0, got);
      for (int i = 0; i < 100; ++i) {
        Check.Equal(input[2 + 2 * i], got[4 * i], "8-byte word " + i + ", low half");
        Check.Equal(input[3 + 2 * i], got[4 * i + 1], "8-byte word " + i + ", high half");
      }

      // The last word would land one past the end of dst.
      Check.Throws(Status.InvalidArgument, "dst: offset 0", () => context.CopyStrided(dst, 0, wordsOut / 10, src, 0, 1, 11, 4),
                   "copy past the end of dst");
      Check.Throws(Status.InvalidArgument, "dst and src must be different buffers",
                   () => context.CopyStrided(src, 0, 1, src, 0, 1, 4, 4), "copy within one buffer");
      Check.Throws(Status.InvalidArgument, "word_size must be one of 1, 2, 4, 8, 16, got 3",
                   () => context.CopyStrided(dst, 0, 1, src, 0, 1, 4, 3), "word size 3");
      Check.Throws(Status.InvalidArgument, "dst_stride must be at least 1, got 0",
                   () => context.CopyStrided(dst, 0, 0, src, 0, 1, 4, 4), "stride 0");
      Check.Throws<ArgumentOutOfRangeException>("srcStride must be >= 0, got -1",
                   () => context.CopyStrided(dst, 0, 1, src, 0, -1, 4, 4), "negative stride");
      Check.Throws<ArgumentNullException>("src must not be null",
                   () => context.CopyStrided(dst, 0, 1, null, 0, 1, 4, 4), "null src");
    }
  }

  [GpuTest]
  static void TransposeMatchesTheCSharpModel() {
    const int rows = 70, cols = 45;  // not whole 32x32 tiles
    var matrix = Enumerable.Range(0, rows * cols).Select(i => i * 3 + 1).ToArray();
    using (var context = new Context())
    using (var input = new DeviceBuffer(context, rows * cols * 4))
    using (var output = new DeviceBuffer(context, rows * cols * 4)) {
      input.UploadInts(0, matrix);
      foreach (TransposeVariant variant in new[] {TransposeVariant.Naive, TransposeVariant.Shared, TransposeVariant.SharedPadded, TransposeVariant.Auto}) {
        output.Fill(0);
        context.Transpose(input, output, rows, cols, 4, variant);
        CheckTransposed(matrix, rows, cols, output, "variant " + variant);
      }
      // The wide kernel takes 4-byte elements in multiples of 4 rows and columns.
      output.Fill(0);
      context.Transpose(input, output, 68, 44, 4, TransposeVariant.Wide);
      CheckTransposed(matrix, 68, 44, output, "WIDE");
      output.Fill(0);
      context.Transpose(input, output, rows, cols, 4);
      CheckTransposed(matrix, rows, cols, output, "the default variant");

      Check.Throws(Status.InvalidArgument, "GM_TRANSPOSE_WIDE needs 4-byte elements",
                   () => context.Transpose(input, output, rows, cols, 4, TransposeVariant.Wide), "WIDE on 70 x 45");
      Check.Throws(Status.InvalidArgument, "in and out must be different buffers",
                   () => context.Transpose(input, input, rows, cols, 4), "transpose in place");
      Check.Throws(Status.InvalidArgument, "needs " + (rows * cols * 8) + " bytes",
                   () => context.Transpose(input, output, rows, cols, 8), "8-byte elements in a 4-byte matrix's buffer");
      Check.Throws(Status.InvalidArgument, "variant must be 0..4", () => context.Transpose(input, output, rows, cols, 4, (TransposeVariant)9),
                   "variant 9");
      Check.Throws<ArgumentOutOfRangeException>("rows must be >= 0, got -1", () => context.Transpose(input, output, -1, cols, 4),
                   "negative rows");
      Check.Throws<ArgumentNullException>("output must not be null", () => context.Transpose(input, null, rows, cols, 4),
                   "null out");
    }
  }

  [GpuTest]
  static void StencilMatchesTheCSharpModel() {
    const int n = 1001;  // not a whole number of blocks
    var coefficients = new float[] {0.5f, -0.25f, 0.125f, -0.0625f};
    var input = Enumerable.Range(0, n).Select(i => (float)(i % 17 - 8)).ToArray();  // exact sums
    var want = new float[n];
    for (int i = 0; i < n; ++i) {
      double sum = 0;
      for (int r = 1; r <= 4; ++r)
        sum += coefficients[r - 1] * ((i + r < n ? input[i + r] : 0.0) - (i - r >= 0 ? input[i - r] : 0.0));
      want[i] = (float)sum;
    }
    using (var context = new Context())
    using (var din = new DeviceBuffer(context, n * 4))
    using (var dout = new DeviceBuffer(context, n * 4)) {
      din.UploadFloats(0, input);
      foreach (bool constant in new[] {true, false}) {
        dout.Fill(0xFF);
        if (constant) context.StencilConstant(din, dout, n, coefficients);
        else context.StencilReadonly(din, dout, n, coefficients);
        var got = new float[n];
        dout.DownloadFloats(0, got);
        for (int i = 0; i < n; ++i)
          Check.True(got[i] == want[i], (constant ? "constant" : "readonly") + " element " + i + ": " + got[i] + ", want " + want[i]);
      }
      Check.Throws<ArgumentOutOfRangeException>("coefficients must hold 4 values, got 3",
                   () => context.StencilConstant(din, dout, n, new float[] {1, 2, 3}), "three coefficients");
      Check.Throws(Status.InvalidArgument, "n must be at least 1, got 0", () => context.StencilReadonly(din, dout, 0, coefficients),
                   "n = 0");
      Check.Throws(Status.InvalidArgument, "in holds 1001 floats, n is 1002",
                   () => context.StencilConstant(din, dout, n + 1, coefficients), "n past the buffer");
    }
  }

  static void CheckTransposed(int[] matrix, int rows, int cols, DeviceBuffer output, string what) {
    var got = new int[rows * cols];
    output.DownloadInts(0, got);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c)
        if (got[c * rows + r] != matrix[r * cols + c])
          Check.Equal(matrix[r * cols + c], got[c * rows + r], what + ": out[" + c + ", " + r + "]");
  }

  [GpuTest]
  static void MatmulMatchesTheCSharpModel() {
    const int m = 50, n = 70, k = 40;
    var random = new Random(7);
    // Small integers: every product and sum is exact in float, in any order.
    float[] a = Enumerable.Range(0, m * k).Select(i => (float)random.Next(-4, 5)).ToArray();
    float[] b = Enumerable.Range(0, k * n).Select(i => (float)random.Next(-4, 5)).ToArray();
    var expected = new float[m * n];
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        float sum = 0;
        for (int p = 0; p < k; ++p) sum += a[i * k + p] * b[p * n + j];
        expected[i * n + j] = sum;
      }
    using (var context = new Context())
    using (var bufferA = new DeviceBuffer(context, m * k * 4))
    using (var bufferB = new DeviceBuffer(context, k * n * 4))
    using (var bufferC = new DeviceBuffer(context, m * n * 4)) {
      bufferA.UploadFloats(0, a);
      bufferB.UploadFloats(0, b);
      var got = new float[m * n];
      foreach (MatmulVariant? variant in new MatmulVariant?[] {MatmulVariant.Simple, MatmulVariant.CoalescedA, MatmulVariant.SharedAB, null}) {
        bufferC.Fill(0);
        if (variant == null) context.Matmul(bufferA, bufferB, bufferC, m, n, k);
        else context.Matmul(bufferA, bufferB, bufferC, m, n, k, variant.Value);
        bufferC.DownloadFloats(0, got);
        string what = variant == null ? "the default variant" : "variant " + variant;
        for (int i = 0; i < got.Length; ++i)
          if (got[i] != expected[i]) Check.Equal(expected[i], got[i], what + ": C[" + i / n + ", " + i % n + "]");
      }
      Check.Throws(Status.InvalidArgument, "c must differ from a and b",
                   () => context.Matmul(bufferA, bufferB, bufferA, m, n, k), "C in A's buffer");
      Check.Throws(Status.InvalidArgument, "m, n and k must be at least 1",
                   () => context.Matmul(bufferA, bufferB, bufferC, m, n, 0), "k = 0");
      Check.Throws<ArgumentNullException>("b must not be null", () => context.Matmul(bufferA, null, bufferC, m, n, k),
                   "null b");
    }
  }

  [GpuTest]
  static void L2WindowCanBeSetAndReset() {
    using (var context = new Context())
    using (var buffer = new DeviceBuffer(context, 1 << 20)) {
      string state = Json.Compact(context.L2StateJson());
      if (state.Contains("\"persisting_max_bytes\":0,")) {
        Check.Throws(Status.NotSupported, "compute capability 8.0", () => context.SetL2PersistingSize(1 << 20),
                     "L2 controls on a device without them");
        return;
      }
      long granted = context.SetL2PersistingSize(1 << 20);
      Check.True(granted > 0, "a set-aside is granted, got " + granted);
      try {
        context.SetL2Window(buffer, 0, 1 << 19, 0.5);
        state = Json.Compact(context.L2StateJson());
        Check.Contains("\"num_bytes\":524288", state, "the window's size");
        Check.Contains("\"hit_property\":\"persisting\"", state, "the default hit property");
        Check.Contains("\"miss_property\":\"streaming\"", state, "the default miss property");

        Check.Throws(Status.InvalidArgument, "hit_ratio must be in 0..1, got 2", () => context.SetL2Window(buffer, 0, 1024, 2.0),
                     "hit ratio 2");
        Check.Throws(Status.InvalidArgument, "must lie inside the buffer",
                     () => context.SetL2Window(buffer, 1 << 20, 1024, 0.5), "a window past the buffer");
        Check.Throws(Status.InvalidArgument, "miss_property must be 0 (normal) or 1 (streaming), got 2",
                     () => context.SetL2Window(buffer, 0, 1024, 0.5, AccessProperty.Persisting, AccessProperty.Persisting),
                     "persisting misses");

        context.ResetL2Window();
        Check.Contains("\"window\":null", Json.Compact(context.L2StateJson()), "no window after ResetL2Window()");
      } finally {
        context.SetL2PersistingSize(0);  // the set-aside belongs to the device: give it back
      }
      Check.Contains("\"persisting_set_aside_bytes\":0", Json.Compact(context.L2StateJson()), "the set-aside is returned");
    }
  }

  [GpuTest]
  static void SettingsCanBeReadAndChanged() {
    using (var context = new Context()) {
      Check.Equal(2.0, context.Get("warmup"), "default warmup");
      Check.Equal(5.0, context.Get("min_repetitions"), "default min_repetitions");
      Check.Equal(100.0, context.Get("max_repetitions"), "default max_repetitions");
      Check.Equal(10.0, context.Get("min_time_ms"), "default min_time_ms");
      Check.Equal(1.0, context.Get("flush_l2"), "default flush_l2");
      Check.Equal(0.5, context.Get("memory_fraction"), "default memory_fraction");

      context.Set("warmup", 5);
      Check.Equal(5.0, context.Get("warmup"), "warmup after Set");
      context.Set("memory_fraction", 0.25);
      Check.Equal(0.25, context.Get("memory_fraction"), "memory_fraction after Set");

      Check.Throws(Status.InvalidArgument, "warmup must be an integer in 0..1000, got 2000", () => context.Set("warmup", 2000),
                   "warmup 2000");
      Check.Equal(5.0, context.Get("warmup"), "a refused Set changes nothing");
      Check.Throws(Status.InvalidArgument, "unknown setting 'nope'", () => context.Get("nope"), "Get(nope)");
      Check.Throws<ArgumentNullException>("setting must not be null", () => context.Set(null, 1), "Set(null)");
      Check.Throws<ArgumentException>("setting must not be empty", () => context.Get(""), "Get(\"\")");
    }
  }

  [GpuTest]
  static void RunsStrideCopy() {
    using (var context = new Context()) {
      context.Set("min_time_ms", 0);
      context.Set("min_repetitions", 3);
      context.Set("max_repetitions", 5);
      using (Result result = context.Run("stride_copy", SmallStrideCopy)) {
        Check.Equal("stride_copy", result.Experiment, "Experiment()");
        string[] names = result.Series.Select(s => s.Name).ToArray();
        Check.Equal("guide, 4-byte words|ilp4, 4-byte words", string.Join("|", names), "series");
        foreach (ResultSeries series in result.Series) {
          Check.Equal(4, series.Points.Count, series.Name + " points");
          foreach (ResultPoint point in series.Points) {
            string at = series.Name + ", stride " + point.X;
            Check.Equal((double)(point.Index + 1), point.X, at + ": x");
            Check.True(point.BandwidthGbs > 0, at + ": bandwidth_gbs > 0");
            Check.True(point.MedianMs > 0, at + ": median_ms > 0");
            Check.Equal(4 * point.X, point.Predicted("sectors_per_request"), at + ": predicted sectors per request");
            double repetitions = point.Value("repetitions");
            Check.True(repetitions >= 3 && repetitions <= 5, at + ": 3..5 repetitions as set, got " + repetitions);
          }
        }
        var guide = result.Series[0].Points;
        Check.Near(guide[1].BandwidthGbs / guide[0].BandwidthGbs, result.SummaryValue("guide_w4_stride2_over_stride1"), 1e-9,
                   "summary ratio of stride 2 to stride 1");

        string json = result.ToJson();
        Check.Contains("\"min_repetitions\":3", Json.Compact(json), "the settings travel with the result");
        using (Result copy = Result.FromJson(json))
          Check.Equal(json, copy.ToJson(), "FromJson(ToJson()) round trip");
      }
    }
  }

  [GpuTest]
  static void RunRefusesBadArguments() {
    using (var context = new Context()) {
      Check.Throws(Status.InvalidArgument, "strides must be in 1..32, got 0", () => context.Run("stride_copy", "{\"strides\":[0]}"),
                   "Run with strides 0");
      Check.Throws(Status.UnknownExperiment, "unknown experiment 'nope'", () => context.Run("nope"), "Run(nope)");
      Check.Throws<ArgumentNullException>("experiment must not be null", () => context.Run(null), "Run(null)");
      // The context is still usable.
      Check.Equal(0, context.Device, "Device() after the errors");
    }
  }

  [GpuTest]
  static void ResultsAndBuffersOutliveTheirContext() {
    var context = new Context();
    context.Set("min_time_ms", 0);
    context.Set("min_repetitions", 1);
    Result result = context.Run("stride_copy", SmallStrideCopy);
    var buffer = new DeviceBuffer(context, 64);
    buffer.UploadInts(0, new[] {7, 8, 9});
    context.Dispose();
    context.Dispose();

    Check.Equal("stride_copy", result.Experiment, "a result after its context is disposed");
    Check.True(result.Series[0].Points[3].BandwidthGbs > 0, "its points are still readable");
    var back = new int[3];
    buffer.DownloadInts(0, back);
    Check.True(back.SequenceEqual(new[] {7, 8, 9}), "a buffer keeps its device context alive");

    const string closed = "this Context is closed";
    Check.Throws<ObjectDisposedException>(closed, () => { var unused = context.Device; }, "Device() after Dispose");
    Check.Throws<ObjectDisposedException>(closed, () => context.Run("stride_copy", SmallStrideCopy), "Run() after Dispose");
    Check.Throws<ObjectDisposedException>(closed, () => context.Set("warmup", 1), "Set() after Dispose");
    Check.Throws<ObjectDisposedException>(closed, () => context.CopyStrided(buffer, 0, 1, buffer, 0, 1, 1, 4),
                 "CopyStrided() after Dispose");
    Check.Throws<ArgumentNullException>("ctx must not be null", () => new DeviceBuffer(context, 16), "a Buffer on a disposed context");

    buffer.Dispose();
    Check.Throws<ObjectDisposedException>("this DeviceBuffer is closed", () => { var unused = buffer.Size; }, "Size() after Dispose");
    Check.Throws<ObjectDisposedException>("this DeviceBuffer is closed", () => buffer.DownloadInts(0, back), "DownloadInts() after Dispose");
    result.Dispose();
  }

  const string SmallStrideCopy = "{\"elements\": 100000, \"strides\": \"1..4\", \"word_sizes\": [4]}";
}

}
