package org.gmlab;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * Loads the native libraries once, before the first native call.
 *
 * <p>First through {@code java.library.path} ({@code System.loadLibrary}), so
 * that an installed or self-built library wins; its own RPATH ($ORIGIN) finds
 * libgmlab beside it. Otherwise from the jar: the folder
 * {@code /native/<os>-<arch>/} holds the libraries, {@code libraries.txt},
 * their file names in load order (libgmlab first, then the JNI library), and
 * {@code checksums.txt}, their SHA-256. They are extracted once into a cache
 * folder named after the release, the platform and those checksums, under
 * their own names (so that the JNI library's dependency on libgmlab's SONAME is
 * met by the copy already loaded), and loaded from there; later starts find
 * them there, check their checksums, and extract again only a file that is
 * missing or differs. The cache's root is the system property
 * {@code gmlab.native.cache} where set (for a home folder that is not
 * writable, say, or a /tmp mounted noexec), else $XDG_CACHE_HOME/gmlab or
 * ~/.cache/gmlab, else the temporary folder.
 */
final class NativeLoader {
    static final String JNI_LIBRARY = "gmlab_java";
    /** Releases the C handle of a Context, Buffer or Result never closed, once it is unreachable. */
    static final java.lang.ref.Cleaner CLEANER = java.lang.ref.Cleaner.create();
    /** The system property that names the cache's root folder. */
    static final String CACHE_PROPERTY = "gmlab.native.cache";

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
        for (Path library : extractInto(cacheRoot())) System.load(library.toAbsolutePath().toString());
    }

    /**
     * The jar's libraries for this platform in a folder of their own under
     * root (made where missing), in load order: each one extracted only where
     * the folder lacks it or holds a file whose SHA-256 differs from the jar's.
     */
    static List<Path> extractInto(Path root) throws IOException {
        String folder = resourceFolder();
        List<String> names = libraryNames(folder);
        Map<String, String> sums = checksums(folder);
        Path dir = root.resolve(cacheFolderName(folder, sums));
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new IOException("cannot make the cache folder " + dir + " (" + e + "); name another with -D"
                + CACHE_PROPERTY + "=<folder>", e);
        }
        List<Path> libraries = new ArrayList<>();
        for (String name : names) {
            String want = sums.get(name);
            if (want == null) throw new IOException(folder + "checksums.txt has no checksum for " + name);
            Path library = dir.resolve(name);
            if (!Files.isRegularFile(library) || !want.equals(sha256(library))) extract(folder + name, library, want);
            libraries.add(library);
        }
        return libraries;
    }

    /** The cache's root: the system property, else the user's cache folder, else the temporary folder. */
    static Path cacheRoot() {
        String chosen = System.getProperty(CACHE_PROPERTY, "");
        if (!chosen.isEmpty()) return Path.of(chosen);
        String xdg = System.getenv("XDG_CACHE_HOME");
        if (xdg != null && !xdg.isEmpty() && Path.of(xdg).isAbsolute()) return Path.of(xdg, "gmlab");
        String home = System.getProperty("user.home", "");
        if (!home.isEmpty() && Files.isWritable(Path.of(home))) return Path.of(home, ".cache", "gmlab");
        return Path.of(System.getProperty("java.io.tmpdir"), "gmlab-" + System.getProperty("user.name", "user"));
    }

    /** "0.1.0-linux-x86_64-<12 hex digits of the libraries' checksums>": one folder per release and build. */
    static String cacheFolderName(String folder, Map<String, String> sums) {
        String version = jarVersion();
        String platform = folder.substring("/native/".length(), folder.length() - 1);
        String digest = sha256(new TreeMap<>(sums).toString().getBytes(StandardCharsets.UTF_8));
        return version + "-" + platform + "-" + digest.substring(0, 12);
    }

    /** Implementation-Version of the jar that holds this class ("dev" outside a jar). */
    private static String jarVersion() {
        String version = NativeLoader.class.getPackage().getImplementationVersion();
        if (version != null) return version;
        // The package may have been defined from another class path entry first
        // (a test folder of the same package): read the jar's own manifest.
        try {
            Path jar = Path.of(NativeLoader.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (Files.isRegularFile(jar)) {
                try (JarFile file = new JarFile(jar.toFile())) {
                    Manifest manifest = file.getManifest();
                    if (manifest != null) version = manifest.getMainAttributes().getValue("Implementation-Version");
                }
            }
        } catch (IOException | URISyntaxException | SecurityException | NullPointerException notAJar) {
            version = null;
        }
        return version == null ? "dev" : version;
    }

    /** Copies a resource next to its place, checks its SHA-256, then moves it into place. */
    private static void extract(String resource, Path library, String want) throws IOException {
        Path partial = Files.createTempFile(library.getParent(), library.getFileName() + ".", ".part");
        try {
            try (InputStream in = NativeLoader.class.getResourceAsStream(resource)) {
                if (in == null) throw new IOException("the jar lists " + resource + " but does not hold it");
                Files.copy(in, partial, StandardCopyOption.REPLACE_EXISTING);
            }
            String got = sha256(partial);
            if (!want.equals(got))
                throw new IOException(resource + " in the jar has SHA-256 " + got + ", checksums.txt says " + want);
            try {
                Files.move(partial, library, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(partial, library, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(partial);
        }
    }

    private static Map<String, String> checksums(String folder) throws IOException {
        try (InputStream in = NativeLoader.class.getResourceAsStream(folder + "checksums.txt")) {
            if (in == null) throw new IOException("this jar has no " + folder + "checksums.txt");
            Map<String, String> sums = new HashMap<>();
            for (String line : lines(in)) {
                String[] fields = line.split("\\s+");
                if (fields.length != 2) throw new IOException(folder + "checksums.txt: not '<sha256> <file>': " + line);
                sums.put(fields[1], fields[0]);
            }
            return sums;
        }
    }

    static String sha256(Path file) throws IOException {
        MessageDigest digest = sha256();
        try (InputStream in = Files.newInputStream(file)) {
            byte[] chunk = new byte[1 << 16];
            for (int n; (n = in.read(chunk)) > 0; ) digest.update(chunk, 0, n);
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    private static String sha256(byte[] data) {
        return HexFormat.of().formatHex(sha256().digest(data));
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no SHA-256", e);  // every Java SE platform has it
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

}
