package org.gmlab;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The committed run measured on an NVIDIA H200 (results/nvidia-h200.json), read without a device. */
class ResultFileTest {
    private static final List<String> STRIDE_COPY_SERIES = List.of(
        "guide, 4-byte words", "ilp4, 4-byte words", "guide, 8-byte words",
        "ilp4, 8-byte words", "guide, 16-byte words", "ilp4, 16-byte words");

    private static String runDocument;

    @BeforeAll
    static void readTheRun() throws IOException {
        runDocument = Files.readString(Expect.sourceDir().resolve("results").resolve("nvidia-h200.json"));
    }

    /** The run's result of this experiment (the caller closes it). */
    private static Result resultOf(String experiment) {
        int count = Result.runResultCount(runDocument);
        for (int i = 0; i < count; ++i) {
            Result r = Result.fromRunJson(runDocument, i);
            if (r.experiment().equals(experiment)) return r;
            r.close();
        }
        return fail("the run has no " + experiment + " result");
    }

    @Test
    void runHoldsTheDefaultSuite() {
        int count = Result.runResultCount(runDocument);
        List<String> experiments = new ArrayList<>();
        for (int i = 0; i < count; ++i) {
            try (Result r = Result.fromRunJson(runDocument, i)) {
                experiments.add(r.experiment());
            }
        }
        assertEquals(List.of("stream", "offset_copy", "stride_copy"), experiments.subList(0, 3));
        assertEquals(experiments.size(), new HashSet<>(experiments).size(), experiments::toString);
        Expect.error(Status.INVALID_ARGUMENT, "index must be in 0.." + (count - 1) + ", got " + count,
                     () -> Result.fromRunJson(runDocument, count));
        Expect.error(Status.INVALID_ARGUMENT, "index must be >= 0, got -1", () -> Result.fromRunJson(runDocument, -1));
    }

    @Test
    void everyPointHasPositiveBandwidthAndConsistentTimes() {
        int count = Result.runResultCount(runDocument);
        for (int i = 0; i < count; ++i) {
            try (Result r = Result.fromRunJson(runDocument, i)) {
                // Only a result that was not applicable (peer on one GPU) has no series.
                if (Expect.compact(r.toJson()).contains("\"applicable\":false")) {
                    assertEquals(0, r.seriesCount(), r::toString);
                    continue;
                }
                assertTrue(r.seriesCount() > 0, r::toString);
                for (int s = 0; s < r.seriesCount(); ++s) {
                    assertTrue(r.pointCount(s) > 0, r.seriesName(s));
                    for (int p = 0; p < r.pointCount(s); ++p) {
                        String where = r.experiment() + " / " + r.seriesName(s) + " / point " + p;
                        // The headline of the series: a bandwidth, a time per access, an error (0 at best), ...
                        double headline = r.pointValue(s, p, r.seriesInfo(s, "y.field"));
                        assertTrue(Double.isFinite(headline) && headline >= 0, where);
                        if (r.seriesInfo(s, "y.field").equals("bandwidth_gbs")) assertTrue(headline > 0, where);
                        double min = r.pointValue(s, p, "min_ms");
                        double median = r.pointValue(s, p, "median_ms");
                        double max = r.pointValue(s, p, "max_ms");
                        assertTrue(0 < min && min <= median && median <= max, where);
                    }
                }
            }
        }
    }

    @Test
    void strideCopyPredictsSectorsPerRequest() {
        try (Result r = resultOf("stride_copy")) {
            assertEquals(STRIDE_COPY_SERIES, r.seriesNames());
            Pattern wordSize = Pattern.compile("(\\d+)-byte words");
            for (int s = 0; s < STRIDE_COPY_SERIES.size(); ++s) {
                Matcher m = wordSize.matcher(STRIDE_COPY_SERIES.get(s));
                assertTrue(m.find());
                int bytes = Integer.parseInt(m.group(1));
                double[] stride = r.values(s, "x");
                double[] sectors = r.values(s, "predicted.sectors_per_request");
                // The standard sweep: 1..8, then every 2nd to 16 and every 4th to 32.
                assertEquals(16, stride.length);
                assertEquals(1, stride[0]);
                assertEquals(32, stride[stride.length - 1]);
                for (int p = 0; p < stride.length; ++p) {
                    if (p > 0) assertTrue(stride[p] > stride[p - 1], "strides rise");
                    // A warp's 32 words span stride * bytes sectors of 32 bytes, at most one per thread.
                    assertEquals(Math.min(32, stride[p] * bytes), sectors[p], STRIDE_COPY_SERIES.get(s) + ", stride " + stride[p]);
                }
            }
            double[] guide4 = r.values(0, "bandwidth_gbs");
            // The committed document's numbers carry 7 significant digits.
            double ratio = guide4[1] / guide4[0];
            assertEquals(ratio, r.summaryValue("guide_w4_stride2_over_stride1"), 1e-6 * ratio);
            assertTrue(guide4[guide4.length - 1] < guide4[0], "stride 32 is slower than contiguous");
        }
    }

    @Test
    void streamComparesItsCopyWithMemcpy() {
        try (Result r = resultOf("stream")) {
            assertEquals(List.of("copy", "scale", "add", "triad", "cudaMemcpy"), r.seriesNames());
            double copy = r.pointValue(0, 0, "bandwidth_gbs");
            double memcpy = r.pointValue(4, 0, "bandwidth_gbs");
            assertEquals(copy / memcpy, r.summaryValue("copy_over_memcpy"), 1e-6 * copy / memcpy);  // 7 significant digits
        }
    }

    @Test
    void jsonRoundTripKeepsEverything() {
        try (Result original = resultOf("offset_copy"); Result back = Result.fromJson(original.toJson())) {
            // As written now: 1.3 where the series declare their quantities, else 1.2.
            String compact = Expect.compact(original.toJson());
            assertTrue(compact.contains("\"schema\":\"gmlab.result/1.2\"") || compact.contains("\"schema\":\"gmlab.result/1.3\""), compact);
            assertEquals(original.toJson(), back.toJson());
            assertEquals("offset_copy", back.experiment());
            assertEquals(original.seriesNames(), back.seriesNames());
            for (int s = 0; s < original.seriesCount(); ++s) {
                assertArrayEquals(original.values(s, "median_ms"), back.values(s, "median_ms"));
                assertArrayEquals(original.values(s, "predicted.sectors_per_request"),
                                  back.values(s, "predicted.sectors_per_request"));
            }
        }
    }

    @Test
    void countersOfANewerDocumentAreRead() {
        // The committed stride_copy result as schema 1.2 writes it: one counter in its first point.
        String json;
        try (Result stride = resultOf("stride_copy")) {
            json = stride.toJson();
        }
        json = json.replaceFirst("\"predicted\":\\s*\\{", "\"counters\": {\"sectors_per_request_ld\": 4.0}, \"predicted\": {");
        try (Result newer = Result.fromJson(json)) {
            assertEquals(4.0, newer.pointValue(0, 0, "counters.sectors_per_request_ld"));
            Expect.error(Status.INVALID_ARGUMENT, "counters.sectors_per_request_ld",
                         () -> newer.pointValue(0, 0, "counters.no_such_counter"));
        }
    }

    @Test
    void malformedDocumentsAreRefused() {
        Expect.error(Status.INVALID_ARGUMENT, "json must not be null", () -> Result.fromJson(null));
        Expect.error(Status.INVALID_ARGUMENT, "json must not be empty", () -> Result.fromJson(""));
        Expect.error(Status.INVALID_ARGUMENT, "\"schema\" must be \"gmlab.result/1\"",
                     () -> Result.fromJson("{\"schema\": \"other\"}"));
        Expect.error(Status.INVALID_ARGUMENT, "runJson must not be null", () -> Result.runResultCount(null));
        Expect.error(Status.INVALID_ARGUMENT, "", () -> Result.runResultCount("[]"));
        Expect.error(Status.INVALID_ARGUMENT, "", () -> Result.fromJson("{"));
    }

    @Test
    void accessorsNameTheValidRange() {
        try (Result r = resultOf("stride_copy")) {
            Expect.error(Status.INVALID_ARGUMENT, "series must be in 0..5, got 6", () -> r.seriesName(6));
            Expect.error(Status.INVALID_ARGUMENT, "series must be in 0..5, got 6", () -> r.pointCount(6));
            Expect.error(Status.INVALID_ARGUMENT, "series must be >= 0, got -1", () -> r.pointValue(-1, 0, "x"));
            Expect.error(Status.INVALID_ARGUMENT, "it has:", () -> r.pointValue(0, 0, "no_such_field"));
            Expect.error(Status.INVALID_ARGUMENT, "field must not be empty", () -> r.pointValue(0, 0, ""));
            Expect.error(Status.INVALID_ARGUMENT, "it has:", () -> r.summaryValue("no_such_figure"));
        }
    }

    @Test
    void closingTwiceIsSafeAndUseAfterCloseFailsCleanly() {
        String json;
        try (Result fromRun = resultOf("stride_copy")) {
            json = fromRun.toJson();
        }
        Result r = Result.fromJson(json);
        r.close();
        r.close();
        Expect.error(Status.INVALID_ARGUMENT, "this Result is closed", r::seriesCount);
        Expect.error(Status.INVALID_ARGUMENT, "this Result is closed", r::toJson);
        Expect.error(Status.INVALID_ARGUMENT, "this Result is closed", () -> r.pointValue(0, 0, "x"));
        Expect.error(Status.INVALID_ARGUMENT, "this Result is closed", r::seriesNames);
        assertEquals("Result(closed)", r.toString());
        try (Result again = Result.fromJson(json)) {
            assertEquals(STRIDE_COPY_SERIES, again.seriesNames());
        }
    }
}
