using System;
using System.Collections.Generic;
using System.Linq;
using System.Text.RegularExpressions;

namespace Gmlab.Tests {

/// <summary>Reading the committed gmlab.run/1 document measured on an H200.</summary>
static class ResultFileTests {
  [Test]
  static void RunDocumentHoldsTheDefaultSuite() {
    string run = Sources.H200Run();
    int count = Result.RunResultCount(run);
    Check.True(count >= 3, "the run holds at least the 3 global-memory experiments, has " + count);
    var experiments = new List<string>();
    for (int i = 0; i < count; ++i) {
      using (Result result = Result.FromRunJson(run, i)) {
        experiments.Add(result.Experiment);
        // The run's device block is put back into each result.
        Check.Contains("\"name\":\"NVIDIA H200\"", Json.Compact(result.ToJson()), "result " + i + " device");
      }
    }
    foreach (string name in new[] {"stream", "offset_copy", "stride_copy"})
      Check.Equal(1, experiments.Count(e => e == name), name + " results in " + string.Join(", ", experiments));
    Check.Throws(Status.InvalidArgument, "index must be in 0.." + (count - 1) + ", got " + count,
                 () => Result.FromRunJson(run, count), "FromRunJson(run, count)");
    Check.Throws<ArgumentOutOfRangeException>("index must be >= 0, got -1", () => Result.FromRunJson(run, -1),
                 "FromRunJson(run, -1)");
  }

  [Test]
  static void StreamSeriesAndSummaryAgree() {
    using (Result stream = Sources.H200Result("stream")) {
      string[] names = stream.Series.Select(s => s.Name).ToArray();
      Check.Equal("copy,scale,add,triad,cudaMemcpy", string.Join(",", names), "stream series");
      foreach (ResultSeries series in stream.Series) {
        Check.Equal(1, series.Points.Count, series.Name + " points");
        Check.True(series.Points[0].BandwidthGbs > 0, series.Name + " bandwidth_gbs > 0");
      }
      // The summary's ratio is the quotient of the two series' bandwidths.
      double copy = stream.Series[0].Points[0].BandwidthGbs;
      double memcpy = stream.Series[4].Points[0].BandwidthGbs;
      Check.Near(copy / memcpy, stream.SummaryValue("copy_over_memcpy"), 1e-6, "copy_over_memcpy");  // the document keeps 7 significant digits
      Check.Throws(Status.InvalidArgument, "nope", () => stream.SummaryValue("nope"), "SummaryValue(nope)");
    }
  }

  [Test]
  static void CountersOfANewerDocumentAreRead() {
    // The committed stride_copy result as schema 1.2 writes it: one counter in its first point.
    string json;
    using (Result stride = Sources.H200Result("stride_copy")) json = stride.ToJson();
    json = new Regex("\"predicted\":\\s*\\{").Replace(json, "\"counters\": {\"sectors_per_request_ld\": 4.0}, \"predicted\": {", 1);
    using (Result newer = Result.FromJson(json)) {
      ResultPoint first = newer.Series[0].Points[0];
      Check.Equal(4.0, first.Counter("sectors_per_request_ld"), "counters.sectors_per_request_ld");
      Check.Equal(4.0, first.Value("counters.sectors_per_request_ld"), "the same through Value");
      Check.Throws(Status.InvalidArgument, "counters.sectors_per_request_ld", () => first.Counter("no_such_counter"),
                   "an unknown counter names the ones the point has");
    }
  }

  [Test]
  static void StrideCopyPredictionsFollowTheSectorModel() {
    using (Result stride = Sources.H200Result("stride_copy")) {
      Check.Equal(6L, stride.SeriesCount, "stride_copy series (2 kernels x 3 word sizes)");
      foreach (ResultSeries series in stride.Series) {
        Match words = Regex.Match(series.Name, @"^(guide|ilp4), (\d+)-byte words$");
        Check.True(words.Success, "series name <" + series.Name + "> says kernel and word size");
        int wordBytes = int.Parse(words.Groups[2].Value);
        // The standard sweep: 1..8, then every 2nd to 16 and every 4th to 32.
        Check.Equal(16, series.Points.Count, series.Name + " points");
        Check.Equal(1.0, series.Points[0].X, series.Name + ": the first stride");
        Check.Equal(32.0, series.Points[series.Points.Count - 1].X, series.Name + ": the last stride");
        foreach (ResultPoint point in series.Points) {
          string at = series.Name + ", stride " + point.X;
          if (point.Index > 0) Check.True(point.X > series.Points[(int)point.Index - 1].X, at + ": strides rise");
          Check.True(point.BandwidthGbs > 0, at + ": bandwidth_gbs > 0");
          // A warp's 32 words span wordBytes x stride 32-byte sectors, at most one per thread.
          double sectors = Math.Min(32, wordBytes * point.X);
          Check.Equal(sectors, point.Predicted("sectors_per_request"), at + ": predicted sectors per request");
          Check.Near(wordBytes / sectors, point.Predicted("efficiency"), 1e-6, at + ": predicted efficiency");
        }
      }
      // Measured bandwidth falls with the stride, as the guide says.
      var guide4 = stride.Series[0].Points;
      var last = guide4[guide4.Count - 1];
      Check.True(last.BandwidthGbs < guide4[0].BandwidthGbs / 4,
                 "stride 32 is far slower than stride 1 (" + last.BandwidthGbs + " vs " + guide4[0].BandwidthGbs + " GB/s)");
    }
  }

  [Test]
  static void OffsetCopyPredictsOneMoreSectorWhenMisaligned() {
    using (Result offset = Sources.H200Result("offset_copy")) {
      Check.Equal("guide, 4-byte words", offset.SeriesName(0), "first offset_copy series");
      var points = offset.Series[0].Points;
      Check.Equal(33, points.Count, "offsets 0..32");
      foreach (ResultPoint point in points) {
        // 128 bytes per warp: 4 sectors when aligned to 32 bytes, 5 otherwise.
        double expected = point.X % 8 == 0 ? 4 : 5;
        Check.Equal(expected, point.Predicted("sectors_per_request"), "offset " + point.X + " sectors per request");
      }
    }
  }

  [Test]
  static void AccessorsNameWhatIsOutOfRange() {
    using (Result stride = Sources.H200Result("stride_copy")) {
      Check.Throws<ArgumentOutOfRangeException>("series must be in 0..5, got 99", () => stride.SeriesName(99), "SeriesName(99)");
      Check.Throws<ArgumentOutOfRangeException>("series must be in 0..5, got 6", () => stride.PointCount(6), "PointCount(6)");
      Check.Throws<ArgumentOutOfRangeException>("series must be >= 0, got -1", () => stride.PointCount(-1), "PointCount(-1)");
      Check.Throws<ArgumentOutOfRangeException>("point must be >= 0, got -2", () => stride.PointValue(0, -2, "x"),
                   "PointValue(0, -2, x)");
      Check.Throws(Status.InvalidArgument, "bandwidth_gbs", () => stride.PointValue(0, 0, "nope"),
                   "PointValue(0, 0, nope) names the fields the point has");
      Check.Throws<ArgumentNullException>("field must not be null", () => stride.Series[0].Points[0].Predicted(null),
                   "Predicted(null)");
    }
  }

  [Test]
  static void FromJsonRoundTripsEveryResult() {
    string run = Sources.H200Run();
    int count = Result.RunResultCount(run);
    for (int i = 0; i < count; ++i) {
      using (Result original = Result.FromRunJson(run, i)) {
        string json = original.ToJson();
        string what = "result " + i + " (" + original.Experiment + ")";
        string compact = Json.Compact(json);
        Check.True(compact.Contains("\"schema\":\"gmlab.result/1.2\"") || compact.Contains("\"schema\":\"gmlab.result/1.3\""),
                   what + " schema (as written now: 1.3 where the series declare their quantities, else 1.2)");
        using (Result copy = Result.FromJson(json)) {
          Check.Equal(json, copy.ToJson(), what + " ToJson after FromJson");
          Check.Equal(original.Experiment, copy.Experiment, what + " experiment");
          Check.Equal(original.SeriesCount, copy.SeriesCount, what + " series");
          if (copy.SeriesCount == 0) continue;  // not applicable (peer on one GPU): nothing measured
          int last = copy.PointCount(0) - 1;
          Check.Equal(original.PointValue(0, last, "median_ms"), copy.PointValue(0, last, "median_ms"),
                      what + " last point's median_ms");
        }
      }
    }
    Check.Throws(Status.InvalidArgument, "not valid JSON", () => Result.FromJson("not json"), "FromJson(not json)");
    Check.Throws(Status.InvalidArgument, "not a gmlab.result/1",
                 () => Result.FromJson("{\"schema\": \"gmlab.result/1\"}"), "FromJson of a document without its fields");
  }
}

}
