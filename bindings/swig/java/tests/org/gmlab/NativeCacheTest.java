package org.gmlab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jar's native libraries are extracted once into a versioned cache folder,
 * checked by their SHA-256 and reused by later starts; a damaged copy is
 * replaced. (CTest runs the JVM with -Dgmlab.native.cache under the build tree.)
 */
class NativeCacheTest {
    @TempDir
    Path root;

    @Test
    void extractsOnceAndReuses() throws IOException {
        List<Path> first = NativeLoader.extractInto(root);
        assertEquals(2, first.size(), first::toString);
        Path dir = first.get(0).getParent();
        assertEquals(root, dir.getParent());
        assertTrue(dir.getFileName().toString().startsWith(Expect.property("gmlab.test.version") + "-"
                   + Expect.property("gmlab.test.platform") + "-"), dir.toString());
        FileTime old = FileTime.fromMillis(1_000_000_000_000L);
        for (Path library : first) Files.setLastModifiedTime(library, old);

        List<Path> second = NativeLoader.extractInto(root);
        assertEquals(first, second);
        for (Path library : second)
            assertEquals(old, Files.getLastModifiedTime(library), library + " was extracted again");
        try (var entries = Files.list(dir)) {
            assertEquals(2, entries.count(), "only the libraries are in " + dir);
        }
    }

    @Test
    void replacesADamagedCopy() throws IOException {
        Path library = NativeLoader.extractInto(root).get(0);
        String good = NativeLoader.sha256(library);
        Files.write(library, new byte[] {1, 2, 3});
        assertNotEquals(good, NativeLoader.sha256(library));
        NativeLoader.extractInto(root);
        assertEquals(good, NativeLoader.sha256(library));
    }

    @Test
    void thisJvmLoadedFromTheNamedCache() {
        Gmlab.version();  // the first native call loads the libraries
        if (!"jar".equals(NativeLoader.loadedFrom())) return;  // java.library.path: no cache involved
        Path named = Path.of(System.getProperty(NativeLoader.CACHE_PROPERTY));
        assertEquals(named, NativeLoader.cacheRoot());
        assertTrue(Gmlab.libraryPath().startsWith(named.toString()), Gmlab.libraryPath());
    }
}
