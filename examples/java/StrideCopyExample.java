import org.gmlab.Context;
import org.gmlab.GmlabException;
import org.gmlab.Result;
import org.gmlab.Status;

/**
 * Runs stride_copy on GPU 0 with small parameters and prints, per stride, the
 * measured bandwidth beside the sectors per warp request the guide predicts.
 * Exit status 3 where there is no CUDA device (as the gmlab command), 1 on
 * any other error.
 */
public final class StrideCopyExample {
    public static void main(String[] args) {
        String params = "{\"elements\": 1000000, \"strides\": \"1..8\", \"word_sizes\": [4], \"variants\": [\"guide\"]}";
        try (Context ctx = new Context(); Result result = ctx.run("stride_copy", params)) {
            double[] strides = result.values(0, "x");
            double[] gbs = result.values(0, "bandwidth_gbs");
            double[] sectors = result.values(0, "predicted.sectors_per_request");
            System.out.println(result.seriesName(0));
            System.out.printf("%6s  %9s  %15s%n", "stride", "GB/s", "sectors/request");
            for (int i = 0; i < strides.length; ++i)
                System.out.printf("%6.0f  %9.1f  %15.0f%n", strides[i], gbs[i], sectors[i]);
        } catch (GmlabException e) {
            System.err.println("gmlab: " + e.getMessage());
            System.exit(e.status() == Status.NO_DEVICE ? 3 : 1);
        }
    }
}
