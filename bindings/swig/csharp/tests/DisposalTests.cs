using System;
namespace Gmlab.Tests {

/// <summary>Ownership: IDisposable proxies over handles, without a device.</summary>
static class DisposalTests {
  [Test]
  static void DisposingTwiceIsHarmless() {
    Result result = Sources.H200Result("stride_copy");
    result.Dispose();
    result.Dispose();
    using (Result other = Sources.H200Result("stream")) {
      other.Dispose();  // and once more when the using block ends
    }
  }

  [Test]
  static void UseAfterDisposeIsACleanError() {
    Result result = Sources.H200Result("stride_copy");
    ResultSeries series = result.Series[0];
    ResultPoint point = series.Points[0];
    Check.Equal(1.0, point.X, "point read before Dispose");
    result.Dispose();
    const string closed = "this Result is closed";
    Check.Throws<ObjectDisposedException>(closed, () => result.ToJson(), "ToJson()");
    Check.Throws<ObjectDisposedException>(closed, () => { var unused = result.Experiment; }, "Experiment()");
    Check.Throws<ObjectDisposedException>(closed, () => { var unused = result.SeriesCount; }, "SeriesCount()");
    Check.Throws<ObjectDisposedException>(closed, () => result.PointValue(0, 0, "x"), "PointValue()");
    Check.Throws<ObjectDisposedException>(closed, () => result.SummaryValue("x"), "SummaryValue()");
    Check.Throws<ObjectDisposedException>(closed, () => { var unused = result.Series; }, "Series");
    Check.Throws<ObjectDisposedException>(closed, () => { var unused = series.Points; }, "a series' Points");
    Check.Throws<ObjectDisposedException>(closed, () => { var unused = point.BandwidthGbs; }, "a point's BandwidthGbs");
  }

  [Test]
  static void ResultsAreIndependentOfEachOther() {
    Result first = Sources.H200Result("stride_copy");
    using (Result second = Sources.H200Result("stride_copy")) {
      first.Dispose();
      Check.Equal("stride_copy", second.Experiment, "a result read twice survives the other's Dispose");
    }
  }
}

}
