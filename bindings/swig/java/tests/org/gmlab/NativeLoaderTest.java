package org.gmlab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The native libraries load from where CTest expects (the jar, or java.library.path). */
class NativeLoaderTest {
    @Test
    void librariesCameFromTheExpectedPlace() {
        assertEquals(Expect.property("gmlab.test.version"), Gmlab.version());  // the first native call loads them
        assertEquals(Expect.property("gmlab.test.loader"), NativeLoader.loadedFrom());
    }

    @Test
    void resourceFolderIsTheOneTheBuildFills() {
        assertEquals("/native/" + Expect.property("gmlab.test.platform") + "/", NativeLoader.resourceFolder());
    }

    @Test
    void jarListsLibgmlabThenTheJniLibrary() throws IOException {
        String folder = NativeLoader.resourceFolder();
        List<String> names;
        try (InputStream in = NativeLoader.class.getResourceAsStream(folder + "libraries.txt")) {
            assertNotNull(in, folder + "libraries.txt is in the jar");
            names = List.of(new String(in.readAllBytes(), StandardCharsets.UTF_8).strip().split("\n"));
        }
        assertEquals(2, names.size(), names::toString);
        assertTrue(names.get(0).startsWith("libgmlab.so."), names.get(0));
        assertEquals(System.mapLibraryName(NativeLoader.JNI_LIBRARY), names.get(1));
        for (String name : names) {
            try (InputStream library = NativeLoader.class.getResourceAsStream(folder + name)) {
                assertNotNull(library, folder + name + " is in the jar");
                assertTrue(library.readAllBytes().length > 0, name);
            }
        }
    }
}
