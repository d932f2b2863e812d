// Runs stride_copy with small parameters on GPU 0 and prints, per stride, the
// bandwidth measured and the 32-byte sectors per warp request the guide predicts.
// Without a CUDA device it prints the library's message and exits with status 3.
using System;
using Gmlab;

static class StrideCopyExample {
  static int Main() {
    try {
      using (var context = new Context())
      using (Result result = context.Run("stride_copy",
                 "{\"elements\": 4000000, \"strides\": \"1..8\", \"word_sizes\": [4], \"variants\": \"guide\"}")) {
        ResultSeries series = result.Series[0];
        Console.WriteLine(series.Name);
        Console.WriteLine("stride     GB/s  sectors/request");
        foreach (ResultPoint point in series.Points)
          Console.WriteLine("{0,6} {1,8:F1} {2,16}", point.X, point.BandwidthGbs, point.Predicted("sectors_per_request"));
      }
      return 0;
    } catch (GmlabException e) {
      Console.Error.WriteLine("gmlab: " + e.Message);
      return e.Status == Status.NoDevice ? 3 : 1;
    }
  }
}
