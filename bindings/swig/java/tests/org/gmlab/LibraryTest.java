package org.gmlab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;

import org.junit.jupiter.api.Test;

/** Library-wide functions: version, status texts, the experiment registry. */
class LibraryTest {
    @Test
    void versionIsTheOneBuilt() {
        assertEquals(Expect.property("gmlab.test.version"), Gmlab.version());
        assertEquals(Integer.parseInt(Expect.property("gmlab.test.abiVersion")), Gmlab.abiVersion());
    }

    @Test
    void statusCodesReachTheLibrary() {
        assertEquals("ok", Gmlab.statusString(Status.OK));
        assertEquals("invalid argument", Gmlab.statusString(Status.INVALID_ARGUMENT));
        assertEquals("no CUDA device", Gmlab.statusString(Status.NO_DEVICE));
        assertEquals("unknown experiment", Gmlab.statusString(Status.UNKNOWN_EXPERIMENT));
        assertEquals("internal error", Gmlab.statusString(Status.INTERNAL));
    }

    @Test
    void listsTheExperiments() {
        List<String> names = Gmlab.experiments();
        int count = Gmlab.experimentCount();
        assertEquals(count, names.size());
        assertTrue(names.containsAll(List.of("stream", "offset_copy", "stride_copy")), names::toString);
        assertEquals(names.size(), new HashSet<>(names).size(), "names are unique");
        assertThrows(UnsupportedOperationException.class, () -> names.add("another"));
        Expect.error(Status.INVALID_ARGUMENT, "index must be >= 0, got -1", () -> Gmlab.experimentName(-1));
        Expect.error(Status.INVALID_ARGUMENT, "index must be in 0.." + (count - 1) + ", got " + count,
                     () -> Gmlab.experimentName(count));
    }

    @Test
    void describesEveryExperiment() {
        for (String name : Gmlab.experiments()) {
            String description = Expect.compact(Gmlab.describeExperiment(name));
            assertTrue(description.contains("\"name\":\"" + name + "\""), description);
            assertTrue(description.contains("\"parameters\":["), description);
        }
        String strideCopy = Expect.compact(Gmlab.describeExperiment("stride_copy"));
        assertTrue(strideCopy.contains("\"name\":\"strides\""), strideCopy);
        assertTrue(strideCopy.contains("\"name\":\"word_sizes\""), strideCopy);
        assertTrue(strideCopy.contains("\"default_suite\":true"), strideCopy);
        // The kernels' names need no device; their resources do (Context.kernelResourcesJson).
        String pitch = Expect.compact(Gmlab.describeExperiment("pitch_2d"));
        assertTrue(pitch.contains("\"kernels\":[\"row_copy"), pitch);
    }

    @Test
    void describingNeedsAKnownExperiment() {
        Expect.error(Status.UNKNOWN_EXPERIMENT, "unknown experiment 'no_such_experiment'",
                     () -> Gmlab.describeExperiment("no_such_experiment"));
        Expect.error(Status.INVALID_ARGUMENT, "experiment must not be null", () -> Gmlab.describeExperiment(null));
        Expect.error(Status.INVALID_ARGUMENT, "experiment must not be empty", () -> Gmlab.describeExperiment(""));
    }
}
