package org.gmlab;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import org.junit.jupiter.api.Test;

/**
 * Handles in the state close() leaves them in (no native object behind them),
 * so that use after close is checked without a device: every method fails with
 * a clear GmlabException, none crashes.
 */
class ClosedHandleTest {
    private static Context closedContext() {
        Context ctx = new Context(0L, false);
        ctx.close();
        return ctx;
    }

    private static Buffer closedBuffer() {
        Buffer buf = new Buffer(0L, false);
        buf.close();
        return buf;
    }

    @Test
    void closedContextRefusesEveryCall() {
        Context ctx = closedContext();
        String closed = "this Context is closed";
        Expect.error(Status.INVALID_ARGUMENT, closed, ctx::device);
        Expect.error(Status.INVALID_ARGUMENT, closed, ctx::deviceInfoJson);
        Expect.error(Status.INVALID_ARGUMENT, closed, ctx::synchronize);
        Expect.error(Status.INVALID_ARGUMENT, closed, () -> ctx.set("warmup", 1));
        Expect.error(Status.INVALID_ARGUMENT, closed, () -> ctx.get("warmup"));
        Expect.error(Status.INVALID_ARGUMENT, closed, () -> ctx.run("stride_copy"));
        Expect.error(Status.INVALID_ARGUMENT, closed, () -> ctx.run("stride_copy", "{}"));
        Expect.error(Status.INVALID_ARGUMENT, closed,
                     () -> ctx.copyStrided(closedBuffer(), 0, 1, closedBuffer(), 0, 1, 1, 4));
        Expect.error(Status.INVALID_ARGUMENT, "ctx must not be null", () -> new Buffer(ctx, 16));
        Expect.error(Status.INVALID_ARGUMENT, "ctx must not be null", () -> new Buffer(null, 16));
    }

    @Test
    void closedBufferRefusesEveryCallAndLeavesArraysAlone() {
        Buffer buf = closedBuffer();
        String closed = "this Buffer is closed";
        Expect.error(Status.INVALID_ARGUMENT, closed, buf::size);
        Expect.error(Status.INVALID_ARGUMENT, closed, () -> buf.fill(0));
        Expect.error(Status.INVALID_ARGUMENT, closed, () -> buf.uploadBytes(0, new byte[4]));
        Expect.error(Status.INVALID_ARGUMENT, closed, () -> buf.uploadInts(0, new int[4]));
        Expect.error(Status.INVALID_ARGUMENT, closed, () -> buf.uploadFloats(0, new float[4]));
        Expect.error(Status.INVALID_ARGUMENT, closed, () -> buf.uploadDoubles(0, new double[4]));
        double[] doubles = {1.5, -2.5, 3.25};
        Expect.error(Status.INVALID_ARGUMENT, closed, () -> buf.downloadDoubles(0, doubles));
        assertArrayEquals(new double[] {1.5, -2.5, 3.25}, doubles, "a failed download leaves the array as it was");
        int[] ints = {7, 8, 9};
        Expect.error(Status.INVALID_ARGUMENT, closed, () -> buf.downloadInts(0, ints));
        assertArrayEquals(new int[] {7, 8, 9}, ints);
    }

    @Test
    void nullArraysAreRefusedBeforeReachingC() {
        Buffer buf = closedBuffer();
        String nullValues = "values must not be null";
        Expect.error(Status.INVALID_ARGUMENT, nullValues, () -> buf.uploadBytes(0, null));
        Expect.error(Status.INVALID_ARGUMENT, nullValues, () -> buf.uploadInts(0, null));
        Expect.error(Status.INVALID_ARGUMENT, nullValues, () -> buf.uploadFloats(0, null));
        Expect.error(Status.INVALID_ARGUMENT, nullValues, () -> buf.uploadDoubles(0, null));
        Expect.error(Status.INVALID_ARGUMENT, nullValues, () -> buf.downloadBytes(0, null));
        Expect.error(Status.INVALID_ARGUMENT, nullValues, () -> buf.downloadInts(0, null));
        Expect.error(Status.INVALID_ARGUMENT, nullValues, () -> buf.downloadFloats(0, null));
        Expect.error(Status.INVALID_ARGUMENT, nullValues, () -> buf.downloadDoubles(0, null));
    }

    @Test
    void closingTwiceIsSafe() {
        Context ctx = closedContext();
        ctx.close();
        Expect.error(Status.INVALID_ARGUMENT, "this Context is closed", ctx::device);
        Buffer buf = closedBuffer();
        buf.close();
        Expect.error(Status.INVALID_ARGUMENT, "this Buffer is closed", buf::size);
    }
}
