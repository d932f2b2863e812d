package org.gmlab;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** Contexts, settings and experiment runs on a real device; skipped where there is none. */
class GpuContextTest extends DeviceTestBase {
    private static final String SMALL_STRIDE_COPY = "{\"elements\": 100000, \"strides\": \"1..4\", \"word_sizes\": [4]}";

    @Test
    void contextDescribesItsDevice() {
        assertEquals(0, ctx.device());
        String info = Expect.compact(ctx.deviceInfoJson());
        assertTrue(info.contains("\"warp_size\":32"), info);
        Descriptions.Device device = ctx.deviceInfo();
        assertEquals(0, device.ordinal());
        assertTrue(device.globalMemoryBytes() > 0 && device.l2CacheBytes() > 0 && device.multiprocessors() > 0);
        assertTrue(device.computeCapability().contains("."), device.computeCapability());
        assertEquals(32.0, device.values().get("warp_size"));
        ctx.synchronize();
        Expect.error(Status.INVALID_ARGUMENT, "device must be in 0..", () -> new Context(4096));
        Expect.error(Status.INVALID_ARGUMENT, "got -1", () -> new Context(-1));
    }

    @Test
    void kernelResourcesComeFromTheDevice() {
        String local = Expect.compact(ctx.kernelResourcesJson("local_memory"));
        assertTrue(local.contains("\"local_bytes\":0"), local);    // the register version
        assertTrue(local.contains("\"local_bytes\":256"), local);  // the run-time indexed versions
        assertTrue(Expect.compact(ctx.kernelResourcesJson("")).contains("\"experiment\":null"));
        Expect.error(Status.UNKNOWN_EXPERIMENT, "unknown experiment 'nope'", () -> ctx.kernelResourcesJson("nope"));
    }

    @Test
    void settingsHaveTheDocumentedDefaultsAndAreChecked() {
        assertEquals(2, ctx.get("warmup"));
        assertEquals(5, ctx.get("min_repetitions"));
        assertEquals(100, ctx.get("max_repetitions"));
        assertEquals(10, ctx.get("min_time_ms"));
        assertEquals(1, ctx.get("flush_l2"));
        assertEquals(0.5, ctx.get("memory_fraction"));

        ctx.set("memory_fraction", 0.25);
        assertEquals(0.25, ctx.get("memory_fraction"));
        Expect.error(Status.INVALID_ARGUMENT, "0.01..0.95", () -> ctx.set("memory_fraction", 0.99));
        assertEquals(0.25, ctx.get("memory_fraction"), "a refused value changes nothing");
        ctx.set("min_repetitions", 5);
        Expect.error(Status.INVALID_ARGUMENT, "max_repetitions must be at least min_repetitions (5), got 3",
                     () -> ctx.set("max_repetitions", 3));
        Expect.error(Status.INVALID_ARGUMENT, "unknown setting 'bogus'", () -> ctx.set("bogus", 1));
        Expect.error(Status.INVALID_ARGUMENT, "setting must not be null", () -> ctx.get(null));
    }

    @Test
    void strideCopyRunMeasuresAndPredicts() {
        // Exactly five timed launches per point: at least five, and no minimum time.
        ctx.set("min_repetitions", 5);
        ctx.set("max_repetitions", 20);
        ctx.set("min_time_ms", 0);
        try (Result r = ctx.run("stride_copy", SMALL_STRIDE_COPY)) {
            assertEquals("stride_copy", r.experiment());
            assertEquals(List.of("guide, 4-byte words", "ilp4, 4-byte words"), r.seriesNames());
            for (int s = 0; s < r.seriesCount(); ++s) {
                assertArrayEquals(new double[] {1, 2, 3, 4}, r.values(s, "x"));
                assertArrayEquals(new double[] {4, 8, 12, 16}, r.values(s, "predicted.sectors_per_request"));
                assertArrayEquals(new double[] {5, 5, 5, 5}, r.values(s, "repetitions"));
                for (double gbs : r.values(s, "bandwidth_gbs")) assertTrue(gbs > 0, r.seriesName(s));
                for (double ms : r.values(s, "median_ms")) assertTrue(ms > 0, r.seriesName(s));
            }
            String json = Expect.compact(r.toJson());
            assertTrue(json.contains("\"schema\":\"gmlab.result/1.3\""), json);
            assertTrue(json.contains("\"max_repetitions\":20"), json);
            assertTrue(json.contains("\"passed\":true"), json);
            try (Result back = Result.fromJson(r.toJson())) {
                assertEquals(r.toJson(), back.toJson());
                assertArrayEquals(r.values(1, "median_ms"), back.values(1, "median_ms"));
            }
        }
    }

    @Test
    void runRefusesBadInputAndTheContextStaysUsable() {
        Expect.error(Status.INVALID_ARGUMENT, "strides must be in 1..32, got 0",
                     () -> ctx.run("stride_copy", "{\"strides\":[0]}"));
        Expect.error(Status.UNKNOWN_EXPERIMENT, "unknown experiment 'no_such_experiment'",
                     () -> ctx.run("no_such_experiment"));
        Expect.error(Status.INVALID_ARGUMENT, "experiment must not be null", () -> ctx.run(null));
        Expect.error(Status.INVALID_ARGUMENT, "experiment must not be empty", () -> ctx.run("", "{}"));
        assertEquals(0, ctx.device());
        try (Buffer buf = new Buffer(ctx, 16)) {
            assertEquals(16, buf.size());
        }
    }

    @Test
    void resultAndBufferOutliveTheirContext() {
        Result result;
        Buffer buffer;
        try (Context own = new Context()) {
            own.set("min_repetitions", 3);
            own.set("max_repetitions", 5);
            result = own.run("offset_copy",
                             "{\"elements\": 65536, \"offsets\": [0, 1], \"word_sizes\": [4], \"variants\": [\"guide\"]}");
            buffer = new Buffer(own, 256);
        }
        try (result; buffer) {
            assertEquals("offset_copy", result.experiment());
            assertEquals(List.of("guide, 4-byte words"), result.seriesNames());
            assertArrayEquals(new double[] {4, 5}, result.values(0, "predicted.sectors_per_request"));
            assertTrue(Expect.compact(result.toJson()).contains("\"name\":\"offset_copy\""));

            int[] in = new int[64];
            for (int i = 0; i < in.length; ++i) in[i] = i * i - 100;
            buffer.uploadInts(0, in);
            int[] out = new int[64];
            buffer.downloadInts(0, out);
            assertArrayEquals(in, out);
        }
        Expect.error(Status.INVALID_ARGUMENT, "this Result is closed", result::experiment);
        Expect.error(Status.INVALID_ARGUMENT, "this Buffer is closed", buffer::size);
    }

    @Test
    void closingTwiceThenUsingGivesACleanError() {
        Context other = new Context();
        Buffer buf = new Buffer(other, 32);
        other.close();
        other.close();
        Expect.error(Status.INVALID_ARGUMENT, "this Context is closed", other::device);
        Expect.error(Status.INVALID_ARGUMENT, "this Context is closed", () -> other.run("stride_copy", SMALL_STRIDE_COPY));
        Expect.error(Status.INVALID_ARGUMENT, "ctx must not be null", () -> new Buffer(other, 16));
        assertEquals(32, buf.size(), "a buffer keeps its device context alive");
        buf.close();
        buf.close();
        Expect.error(Status.INVALID_ARGUMENT, "this Buffer is closed", buf::size);
    }
}
