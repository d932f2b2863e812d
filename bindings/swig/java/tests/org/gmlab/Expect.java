package org.gmlab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;

import org.junit.jupiter.api.function.Executable;

/** Checks shared by the tests. */
final class Expect {
    private Expect() {
    }

    /** call must throw GmlabException with this status and a message containing messagePart. */
    static GmlabException error(Status status, String messagePart, Executable call) {
        GmlabException e = assertThrows(GmlabException.class, call);
        assertEquals(status, e.status(), () -> "status of \"" + e.getMessage() + "\"");
        assertTrue(e.getMessage().contains(messagePart),
                   () -> "message \"" + e.getMessage() + "\" lacks \"" + messagePart + "\"");
        return e;
    }

    /** JSON without whitespace, so that checks do not depend on its layout. */
    static String compact(String json) {
        return json.replaceAll("\\s+", "");
    }

    /** A system property CTest passes to the JVM. */
    static String property(String name) {
        String value = System.getProperty(name);
        assertNotNull(value, "system property " + name + " is not set (CTest passes it)");
        return value;
    }

    /** The repository root, from GMLAB_SOURCE_DIR. */
    static Path sourceDir() {
        String dir = System.getenv("GMLAB_SOURCE_DIR");
        assertNotNull(dir, "GMLAB_SOURCE_DIR (the repository root) is not set (CTest sets it)");
        return Path.of(dir);
    }

    /** Skips the calling test where there is no CUDA device. */
    static void device() {
        assumeTrue(Gmlab.deviceCount() > 0, "no CUDA device");
    }
}
