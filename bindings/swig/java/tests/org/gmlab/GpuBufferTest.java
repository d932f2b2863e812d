package org.gmlab;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;

/** Buffers and copyStrided on a real device; skipped where there is none. */
class GpuBufferTest extends DeviceTestBase {
    @Test
    void arraysOfEveryTypeRoundTripAtByteOffsets() {
        Random random = new Random(1);
        try (Buffer buf = new Buffer(ctx, 4096)) {
            assertEquals(4096, buf.size());
            buf.fill(0xAB);

            float[] floats = new float[100];
            for (int i = 0; i < floats.length; ++i) floats[i] = (float) random.nextGaussian();
            buf.uploadFloats(16, floats);  // bytes 16..415
            float[] floatsBack = new float[floats.length];
            buf.downloadFloats(16, floatsBack);
            assertArrayEquals(floats, floatsBack);

            // The same bytes seen as ints are the floats' bit patterns.
            int[] bits = new int[floats.length];
            buf.downloadInts(16, bits);
            for (int i = 0; i < floats.length; ++i) assertEquals(Float.floatToRawIntBits(floats[i]), bits[i]);

            double[] doubles = random.doubles(256).toArray();
            buf.uploadDoubles(1024, doubles);  // bytes 1024..3071
            double[] doublesBack = new double[doubles.length];
            buf.downloadDoubles(1024, doublesBack);
            assertArrayEquals(doubles, doublesBack);

            int[] ints = random.ints(200).toArray();
            buf.uploadInts(3072, ints);  // bytes 3072..3871
            int[] intsBack = new int[ints.length];
            buf.downloadInts(3072, intsBack);
            assertArrayEquals(ints, intsBack);

            byte[] bytes = new byte[100];
            random.nextBytes(bytes);
            buf.uploadBytes(3900, bytes);  // bytes 3900..3999
            byte[] bytesBack = new byte[bytes.length];
            buf.downloadBytes(3900, bytesBack);
            assertArrayEquals(bytes, bytesBack);

            // Bytes no upload touched keep the fill value.
            byte[] fill = new byte[16];
            Arrays.fill(fill, (byte) 0xAB);
            byte[] head = new byte[16];
            buf.downloadBytes(0, head);
            assertArrayEquals(fill, head);
            byte[] gap = new byte[16];
            buf.downloadBytes(3872, gap);
            assertArrayEquals(fill, gap);

            buf.uploadFloats(4096, new float[0]);  // an empty array at the very end is fine
        }
    }

    @Test
    void rangesOutsideTheBufferAreRefused() {
        try (Buffer buf = new Buffer(ctx, 64)) {
            Expect.error(Status.INVALID_ARGUMENT, "must not exceed the buffer size 64",
                         () -> buf.uploadFloats(4, new float[16]));
            float[] untouched = new float[4];
            Arrays.fill(untouched, 42f);
            Expect.error(Status.INVALID_ARGUMENT, "must not exceed the buffer size 64",
                         () -> buf.downloadFloats(56, untouched));
            assertArrayEquals(new float[] {42f, 42f, 42f, 42f}, untouched, "a failed download leaves the array as it was");
            Expect.error(Status.INVALID_ARGUMENT, "offset must be >= 0, got -1", () -> buf.downloadInts(-1, new int[1]));
            Expect.error(Status.INVALID_ARGUMENT, "values must not be null", () -> buf.uploadDoubles(0, null));
            Expect.error(Status.INVALID_ARGUMENT, "value must be in 0..255, got 256", () -> buf.fill(256));
        }
        Expect.error(Status.INVALID_ARGUMENT, "bytes must be at least 1, got 0", () -> new Buffer(ctx, 0));
        Expect.error(Status.INVALID_ARGUMENT, "bytes must be >= 0, got -8", () -> new Buffer(ctx, -8));
        Expect.error(Status.OUT_OF_MEMORY, "cannot allocate", () -> new Buffer(ctx, 1L << 50));
    }

    @Test
    void copyStridedMatchesAJavaModel() {
        final int wordsIn = 5000, wordsOut = 7000, count = 1234;
        final int srcOffset = 7, srcStride = 3, dstOffset = 11, dstStride = 5;
        for (int wordSize : new int[] {1, 2, 4, 8, 16}) {
            try (Buffer src = new Buffer(ctx, (long) wordsIn * wordSize);
                 Buffer dst = new Buffer(ctx, (long) wordsOut * wordSize)) {
                byte[] in = new byte[wordsIn * wordSize];
                new Random(wordSize).nextBytes(in);
                byte[] expected = new byte[wordsOut * wordSize];
                Arrays.fill(expected, (byte) 0x5A);
                src.uploadBytes(0, in);
                dst.uploadBytes(0, expected);

                ctx.copyStrided(dst, dstOffset, dstStride, src, srcOffset, srcStride, count, wordSize);
                for (int i = 0; i < count; ++i)
                    System.arraycopy(in, (srcOffset + i * srcStride) * wordSize, expected,
                                     (dstOffset + i * dstStride) * wordSize, wordSize);
                byte[] got = new byte[expected.length];
                dst.downloadBytes(0, got);
                assertArrayEquals(expected, got, "word size " + wordSize);

                // The last of 11 words 700 apart would land one past the end of dst.
                Expect.error(Status.INVALID_ARGUMENT, "dst: offset 0",
                             () -> ctx.copyStrided(dst, 0, wordsOut / 10, src, 0, 1, 11, wordSize));
            }
        }
    }

    @Test
    void copyStridedGathersFloats() {
        float[] values = new float[1000];
        for (int i = 0; i < values.length; ++i) values[i] = i * 0.25f;
        try (Buffer src = new Buffer(ctx, 4L * values.length); Buffer dst = new Buffer(ctx, 4L * 250)) {
            src.uploadFloats(0, values);
            ctx.copyStrided(dst, 0, 1, src, 3, 4, 250, 4);  // every 4th float from the 4th on
            float[] got = new float[250];
            dst.downloadFloats(0, got);
            for (int i = 0; i < got.length; ++i) assertEquals(values[3 + 4 * i], got[i]);
        }
    }

    @Test
    void copyStridedRefusesBadArguments() {
        try (Buffer a = new Buffer(ctx, 1024); Buffer b = new Buffer(ctx, 1024)) {
            Expect.error(Status.INVALID_ARGUMENT, "word_size must be one of 1, 2, 4, 8, 16, got 3",
                         () -> ctx.copyStrided(a, 0, 1, b, 0, 1, 4, 3));
            Expect.error(Status.INVALID_ARGUMENT, "", () -> ctx.copyStrided(a, 0, 0, b, 0, 1, 4, 4));
            Expect.error(Status.INVALID_ARGUMENT, "", () -> ctx.copyStrided(a, 0, 1, a, 0, 1, 4, 4));
            Expect.error(Status.INVALID_ARGUMENT, "src must not be null", () -> ctx.copyStrided(a, 0, 1, null, 0, 1, 4, 4));
            Expect.error(Status.INVALID_ARGUMENT, "dst must not be null", () -> ctx.copyStrided(null, 0, 1, b, 0, 1, 4, 4));
            Expect.error(Status.INVALID_ARGUMENT, "srcStride must be >= 0, got -1",
                         () -> ctx.copyStrided(a, 0, 1, b, 0, -1, 4, 4));
            ctx.copyStrided(a, 0, 1, b, 0, 1, 0, 4);  // nothing to copy
        }
    }
}
