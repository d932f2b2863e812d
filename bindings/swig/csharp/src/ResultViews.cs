using System.Collections.Generic;

namespace Gmlab {

public partial class Result {
  /// <summary>
  /// The series of this result, in order. The views read from the result each
  /// time they are asked, so they see exactly what the accessor methods see and
  /// throw ObjectDisposedException ("this Result is closed") once it is disposed.
  /// </summary>
  public IReadOnlyList<ResultSeries> Series {
    get {
      int count = SeriesCount;
      var series = new List<ResultSeries>((int)count);
      for (int i = 0; i < count; ++i) series.Add(new ResultSeries(this, i));
      return series;
    }
  }
}

/// <summary>One series of a <see cref="Result"/>: its name and its points.</summary>
public sealed class ResultSeries {
  readonly Result result;

  internal ResultSeries(Result result, int index) {
    this.result = result;
    Index = index;
    Name = result.SeriesName(index);
  }

  public int Index { get; }
  public string Name { get; }

  public IReadOnlyList<ResultPoint> Points {
    get {
      int count = result.PointCount(Index);
      var points = new List<ResultPoint>((int)count);
      for (int i = 0; i < count; ++i) points.Add(new ResultPoint(result, Index, i));
      return points;
    }
  }
}

/// <summary>One point of a series: typed shortcuts over <see cref="Result.PointValue"/>.</summary>
public sealed class ResultPoint {
  readonly Result result;

  internal ResultPoint(Result result, int series, int index) {
    this.result = result;
    Series = series;
    Index = index;
  }

  public int Series { get; }
  public int Index { get; }

  /// <summary>Any field the point has: "x", "median_ms", "bandwidth_gbs", "predicted.&lt;name&gt;",
  /// "counters.&lt;name&gt;", ...</summary>
  public double Value(string field) {
    return result.PointValue(Series, Index, field);
  }

  /// <summary>A prediction the experiment makes, such as "sectors_per_request".</summary>
  public double Predicted(string name) {
    return Value(name == null ? null : "predicted." + name);
  }

  /// <summary>A hardware counter of one more, untimed launch, or a figure derived from
  /// counters, such as "sectors_per_request_ld" or "dram__bytes_read.sum" (schema 1.2).</summary>
  public double Counter(string name) {
    return Value(name == null ? null : "counters." + name);
  }

  public double X { get { return Value("x"); } }
  public double Bytes { get { return Value("bytes"); } }
  public double MedianMs { get { return Value("median_ms"); } }
  public double BandwidthGbs { get { return Value("bandwidth_gbs"); } }
}

}
