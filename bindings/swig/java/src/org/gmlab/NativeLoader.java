package org.gmlab;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Loads the native libraries once, before the first native call.
 *
 * <p>First through {@code java.library.path} ({@code System.loadLibrary}), so
 * that an installed or self-built library wins; its own RPATH ($ORIGIN) finds
 * libgmlab beside it. Otherwise from the jar: the folder
 * {@code /native/<os>-<arch>/} holds the libraries and {@code libraries.txt},
 * their file names in load order (libgmlab first, then the JNI library). They
 * are copied to a fresh temporary folder under their own names, so that the
 * JNI library's dependency on libgmlab's SONAME is met by the copy already
 * loaded, and loaded one after the other.
 */
final class NativeLoader {
    static final String JNI_LIBRARY = "gmlab_java";

    private static String loadedFrom;

    private NativeLoader() {
    }

    static synchronized void load() {
        if (loadedFrom != null) return;
        String from;
        try {
            System.loadLibrary(JNI_LIBRARY);
            from = "java.library.path";
        } catch (UnsatisfiedLinkError notOnPath) {
            try {
                loadFromJar();
                from = "jar";
            } catch (UnsatisfiedLinkError | IOException notInJar) {
                UnsatisfiedLinkError error = new UnsatisfiedLinkError(
                    "gmlab: cannot load the native library " + JNI_LIBRARY + " from java.library.path ("
                    + notOnPath.getMessage() + ") nor from the jar (" + notInJar.getMessage() + ")");
                error.addSuppressed(notOnPath);
                error.addSuppressed(notInJar);
                throw error;
            }
        }
        // The classes are made for one ABI of libgmlab; a library of another
        // ABI (found on java.library.path, say) is refused before any use.
        String problem = Gmlab.abiProblem(Gmlab.BINDING_ABI_VERSION);
        if (!problem.isEmpty()) throw new UnsatisfiedLinkError(problem);
        loadedFrom = from;
    }

    /** "java.library.path" or "jar": where the libraries came from; null before loading. */
    static synchronized String loadedFrom() {
        return loadedFrom;
    }

    /** The resource folder for this machine, such as "/native/linux-x86_64/". */
    static String resourceFolder() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).replaceAll("\\s+", "");
        if (os.startsWith("windows")) os = "windows";
        else if (os.startsWith("mac")) os = "darwin";
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (arch.equals("amd64") || arch.equals("x86-64")) arch = "x86_64";
        else if (arch.equals("arm64")) arch = "aarch64";
        return "/native/" + os + "-" + arch + "/";
    }

    /** The platforms whose libraries the jar holds ("linux-x86_64"), from native/platforms.txt. */
    static List<String> platformsInJar() throws IOException {
        try (InputStream in = NativeLoader.class.getResourceAsStream("/native/platforms.txt")) {
            if (in == null) return List.of();
            return lines(in);
        }
    }

    private static void loadFromJar() throws IOException {
        String folder = resourceFolder();
        List<String> names = libraryNames(folder);
        Path dir = Files.createTempDirectory("gmlab-native-");
        List<Path> copies = new ArrayList<>();
        try {
            for (String name : names) {
                Path copy = dir.resolve(name);
                try (InputStream in = NativeLoader.class.getResourceAsStream(folder + name)) {
                    if (in == null) throw new IOException("the jar lists " + folder + name + " but does not hold it");
                    Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
                }
                copies.add(copy);
            }
            for (Path copy : copies) System.load(copy.toAbsolutePath().toString());
        } finally {
            // A loaded library stays mapped once its file is gone; where the
            // system refuses (Windows), the files go when the JVM exits.
            for (Path copy : copies) removeNowOrAtExit(copy);
            removeNowOrAtExit(dir);
        }
    }

    private static List<String> libraryNames(String folder) throws IOException {
        try (InputStream in = NativeLoader.class.getResourceAsStream(folder + "libraries.txt")) {
            if (in == null) {
                String platform = folder.substring("/native/".length(), folder.length() - 1);
                List<String> held = platformsInJar();
                throw new IOException("this jar has no native libraries for this platform, " + platform
                    + " (os.name " + System.getProperty("os.name") + ", os.arch " + System.getProperty("os.arch")
                    + "); it holds them for " + (held.isEmpty() ? "no platform" : String.join(", ", held)));
            }
            List<String> names = lines(in);
            if (names.isEmpty()) throw new IOException(folder + "libraries.txt names no library");
            return names;
        }
    }

    private static List<String> lines(InputStream in) throws IOException {
        List<String> out = new ArrayList<>();
        for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
            String text = line.trim();
            if (!text.isEmpty()) out.add(text);
        }
        return out;
    }

    private static void removeNowOrAtExit(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException stillInUse) {
            path.toFile().deleteOnExit();
        }
    }
}
