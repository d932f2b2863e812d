package org.gmlab;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * transpose, matmul and the L2 window controls: their argument checks on
 * closed handles everywhere, and the operations themselves on a device.
 */
class OperationsTest {
    private static Context closedContext() {
        Context ctx = new Context(0L, false);
        ctx.close();
        return ctx;
    }

    @Test
    void closedContextRefusesTheOperations() {
        Context ctx = closedContext();
        String closed = "this Context is closed";
        Expect.error(Status.INVALID_ARGUMENT, closed, () -> ctx.transpose(null, null, 4, 4, 4));
        Expect.error(Status.INVALID_ARGUMENT, closed, () -> ctx.matmul(null, null, null, 1, 1, 1));
        Expect.error(Status.INVALID_ARGUMENT, closed, () -> ctx.setL2PersistingSize(1 << 20));
        Expect.error(Status.INVALID_ARGUMENT, closed, () -> ctx.setL2Window(null, 0, 1024, 1.0));
        Expect.error(Status.INVALID_ARGUMENT, closed, ctx::resetL2Window);
        Expect.error(Status.INVALID_ARGUMENT, closed, ctx::l2StateJson);
        Expect.error(Status.INVALID_ARGUMENT, closed, () -> ctx.stencilConstant(null, null, 4, new float[4]));
        Expect.error(Status.INVALID_ARGUMENT, closed, () -> ctx.stencilReadonly(null, null, 4, new float[4]));
        assertEquals(4, Transpose.AUTO.code());
        assertEquals(2, Matmul.SHARED_AB.code());
        assertEquals(2, AccessProperty.PERSISTING.code());
    }

    @Test
    void transposeMatchesAJavaModel() {
        Expect.device();
        try (Context ctx = new Context(); Buffer in = new Buffer(ctx, 37 * 50 * 4); Buffer out = new Buffer(ctx, 37 * 50 * 4)) {
            int[] values = new Random(3).ints(37 * 50).toArray();
            in.uploadInts(0, values);
            for (Transpose variant : new Transpose[] {Transpose.NAIVE, Transpose.SHARED, Transpose.SHARED_PADDED, Transpose.AUTO}) {
                out.fill(0);
                ctx.transpose(in, out, 37, 50, 4, variant);
                int[] got = new int[values.length];
                out.downloadInts(0, got);
                for (int r = 0; r < 37; ++r)
                    for (int c = 0; c < 50; ++c) assertEquals(values[r * 50 + c], got[c * 37 + r], "variant " + variant);
            }
            Expect.error(Status.INVALID_ARGUMENT, "rows and cols must be at least 1", () -> ctx.transpose(in, out, 0, 5, 4));
            Expect.error(Status.INVALID_ARGUMENT, "rows must be >= 0, got -1", () -> ctx.transpose(in, out, -1, 5, 4));
            Expect.error(Status.INVALID_ARGUMENT, "GM_TRANSPOSE_WIDE", () -> ctx.transpose(in, out, 37, 50, 4, Transpose.WIDE));
            Expect.error(Status.INVALID_ARGUMENT, "needs", () -> ctx.transpose(in, out, 370, 50, 4));
        }
    }

    @Test
    void matmulMatchesAJavaModel() {
        Expect.device();
        int m = 33, n = 20, k = 40;
        float[] a = new float[m * k], b = new float[k * n];
        Random random = new Random(4);
        for (int i = 0; i < a.length; ++i) a[i] = (random.nextInt(9) - 4) * 0.25f;  // exact sums
        for (int i = 0; i < b.length; ++i) b[i] = (random.nextInt(9) - 4) * 0.25f;
        float[] want = new float[m * n];
        for (int r = 0; r < m; ++r)
            for (int c = 0; c < n; ++c) {
                float sum = 0;
                for (int i = 0; i < k; ++i) sum += a[r * k + i] * b[i * n + c];
                want[r * n + c] = sum;
            }
        try (Context ctx = new Context(); Buffer da = new Buffer(ctx, a.length * 4); Buffer db = new Buffer(ctx, b.length * 4);
             Buffer dc = new Buffer(ctx, want.length * 4)) {
            da.uploadFloats(0, a);
            db.uploadFloats(0, b);
            for (Matmul variant : Matmul.values()) {
                ctx.matmul(da, db, dc, m, n, k, variant);
                float[] got = new float[want.length];
                dc.downloadFloats(0, got);
                assertArrayEquals(want, got, "variant " + variant);
            }
            // Only C too small (one float short): A and B fit, so C is the argument named.
            try (Buffer small = new Buffer(ctx, (want.length - 1) * 4)) {
                Expect.error(Status.INVALID_ARGUMENT, "C (33 x 20 floats) needs", () -> ctx.matmul(da, db, small, m, n, k));
            }
        }
    }

    @Test
    void stencilMatchesAJavaModel() {
        Expect.device();
        int n = 1001;  // not a whole number of blocks
        float[] c = {0.5f, -0.25f, 0.125f, -0.0625f};
        float[] in = new float[n], want = new float[n];
        for (int i = 0; i < n; ++i) in[i] = i % 17 - 8;  // exact sums
        for (int i = 0; i < n; ++i) {
            double sum = 0;
            for (int r = 1; r <= 4; ++r) sum += c[r - 1] * ((i + r < n ? in[i + r] : 0.0) - (i - r >= 0 ? in[i - r] : 0.0));
            want[i] = (float) sum;
        }
        try (Context ctx = new Context(); Buffer din = new Buffer(ctx, n * 4); Buffer dout = new Buffer(ctx, n * 4)) {
            din.uploadFloats(0, in);
            for (boolean constant : new boolean[] {true, false}) {
                dout.fill(0xFF);
                if (constant) ctx.stencilConstant(din, dout, n, c);
                else ctx.stencilReadonly(din, dout, n, c);
                float[] got = new float[n];
                dout.downloadFloats(0, got);
                assertArrayEquals(want, got, constant ? "constant" : "readonly");
            }
            Expect.error(Status.INVALID_ARGUMENT, "coefficients must hold 4 values, got 3",
                         () -> ctx.stencilConstant(din, dout, n, new float[] {1, 2, 3}));
            Expect.error(Status.INVALID_ARGUMENT, "n must be at least 1, got 0", () -> ctx.stencilReadonly(din, dout, 0, c));
            Expect.error(Status.INVALID_ARGUMENT, "must not be null", () -> ctx.stencilReadonly(din, dout, n, null));
        }
    }

    @Test
    void l2WindowIsSetReportedAndReset() {
        Expect.device();
        try (Context ctx = new Context(); Buffer buf = new Buffer(ctx, 4 << 20)) {
            long granted;
            try {
                granted = ctx.setL2PersistingSize(2 << 20);
            } catch (GmlabException e) {
                assertEquals(Status.NOT_SUPPORTED, e.status(), e.getMessage());  // before compute capability 8.0
                return;
            }
            assertTrue(granted > 0);
            ctx.setL2Window(buf, 0, 1 << 20, 0.5, AccessProperty.PERSISTING, AccessProperty.STREAMING);
            String state = Expect.compact(ctx.l2StateJson());
            assertTrue(state.contains("\"num_bytes\":1048576"), state);
            Expect.error(Status.INVALID_ARGUMENT, "hit_ratio must be in 0..1", () -> ctx.setL2Window(buf, 0, 1024, 2.0));
            Expect.error(Status.INVALID_ARGUMENT, "inside the buffer", () -> ctx.setL2Window(buf, 4 << 20, 1024, 1.0));
            ctx.resetL2Window();
            assertTrue(Expect.compact(ctx.l2StateJson()).contains("\"window\":null"));
            ctx.setL2PersistingSize(0);
        }
    }
}
