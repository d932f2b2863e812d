package org.gmlab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Parameters are checked without a device; errors carry the library's message. */
class ParamsTest {
    @Test
    void outOfRangeValueNamesItsRange() {
        Expect.error(Status.INVALID_ARGUMENT, "strides must be in 1..32, got 0",
                     () -> Gmlab.resolveParams("stride_copy", "{\"strides\":[0]}"));
    }

    @Test
    void resolvesGivenValuesAndFillsInDefaults() {
        String resolved = Expect.compact(Gmlab.resolveParams(
            "stride_copy", "{\"elements\": 100000, \"strides\": \"1..4\", \"word_sizes\": [4]}"));
        assertTrue(resolved.contains("\"strides\":[1,2,3,4]"), resolved);
        assertTrue(resolved.contains("\"elements\":100000"), resolved);
        assertTrue(resolved.contains("\"word_sizes\":[4]"), resolved);
        assertTrue(resolved.contains("\"variants\":[\"guide\",\"ilp4\"]"), resolved);
    }

    @Test
    void nullOrEmptyParametersMeanTheDefaults() {
        String defaults = Gmlab.resolveParams("stride_copy", "{}");
        assertTrue(Expect.compact(defaults).contains("\"word_sizes\":[4,8,16]"), defaults);
        assertEquals(defaults, Gmlab.resolveParams("stride_copy", null));
        assertEquals(defaults, Gmlab.resolveParams("stride_copy", ""));
    }

    @Test
    void unknownParameterIsNamed() {
        Expect.error(Status.INVALID_ARGUMENT, "unknown parameter 'bogus'",
                     () -> Gmlab.resolveParams("stride_copy", "{\"bogus\": 1}"));
    }

    @Test
    void malformedJsonIsRejected() {
        Expect.error(Status.INVALID_ARGUMENT, "not valid JSON", () -> Gmlab.resolveParams("stride_copy", "{"));
    }

    @Test
    void unknownExperimentHasItsOwnStatus() {
        Expect.error(Status.UNKNOWN_EXPERIMENT, "unknown experiment 'no_such_experiment'",
                     () -> Gmlab.resolveParams("no_such_experiment", "{}"));
    }

    @Test
    void nullAndEmptyNamesAreRefused() {
        Expect.error(Status.INVALID_ARGUMENT, "experiment must not be null", () -> Gmlab.resolveParams(null, "{}"));
        Expect.error(Status.INVALID_ARGUMENT, "experiment must not be empty", () -> Gmlab.resolveParams("", "{}"));
    }

    @Test
    void textOutsideAsciiSurvivesBothWays() {
        // e with acute accent and an emoji (outside the Basic Multilingual Plane):
        // the library quotes the value back in its message.
        String odd = "guid\u00e9\ud83d\ude00";
        Expect.error(Status.INVALID_ARGUMENT, "got '" + odd + "'",
                     () -> Gmlab.resolveParams("stride_copy", "{\"variants\": [\"" + odd + "\"]}"));
    }

    @Test
    void embeddedNulIsRefused() {
        Expect.error(Status.INVALID_ARGUMENT, "NUL", () -> Gmlab.resolveParams("stride_copy\0tail", "{}"));
    }
}
