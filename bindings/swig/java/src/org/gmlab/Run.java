package org.gmlab;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * A saved run: a gmlab.run/1 document (what {@code gmlab run --json} writes, the
 * files in results/), read from a file or from its text, without a GPU. Its
 * results are read by experiment name or by index; each {@link Result} it
 * returns is a new object, the caller's to close (closing it closes no other).
 *
 * <pre>{@code
 * Run run = Run.load(Path.of("run.json.gz"));
 * try (Result r = run.result("stride_copy")) { ... }
 * }</pre>
 */
public final class Run {
    private final String json;
    private final String source;
    private final List<String> experiments;

    private Run(String json, String source) {
        this.json = json;
        this.source = source;
        List<String> names = new ArrayList<>();
        try {
            int count = Result.runResultCount(json);
            for (int i = 0; i < count; ++i) {
                try (Result r = Result.fromRunJson(json, i)) {
                    names.add(r.experiment());
                }
            }
        } catch (GmlabException e) {
            // The library names its argument ("runJson is not valid JSON"); the
            // caller gave a file (or a text): that is what the message names.
            String message = e.getMessage().startsWith("runJson is ") ? e.getMessage().substring(11) : e.getMessage();
            throw new GmlabException(e.status(), source + ": " + message);
        }
        this.experiments = Collections.unmodifiableList(names);
    }

    /**
     * Reads a run document from a file: JSON text, or gzip-compressed
     * (.json.gz), told by its first bytes whatever the file is called. A
     * zstd-compressed file (.json.zst) is refused ({@link Status#NOT_SUPPORTED})
     * with the command that decompresses it: the JDK has no zstd, and the one
     * zstd library Debian packages for Java needs a native library of its own.
     *
     * @throws IllegalArgumentException for an empty path
     * @throws GmlabException for a file that is empty or not a run document,
     *         naming the file
     */
    public static Run load(Path path) throws IOException {
        Objects.requireNonNull(path, "path must not be null");
        if (path.toString().isEmpty()) throw new IllegalArgumentException("path must not be empty");
        byte[] data = Files.readAllBytes(path);
        if (data.length == 0) throw new GmlabException(Status.INVALID_ARGUMENT, path + ": the file is empty");
        return new Run(new String(decompressed(data, path), StandardCharsets.UTF_8), path.toString());
    }

    /** A run document given as its text. */
    public static Run parse(String runJson) {
        Objects.requireNonNull(runJson, "runJson must not be null");
        return new Run(runJson, "the run");
    }

    /** The file the run was read from, or "the run" for a text. */
    public String source() {
        return source;
    }

    /** The document's text, decompressed. */
    public String json() {
        return json;
    }

    /** The experiment of each result, in the document's order. */
    public List<String> experiments() {
        return experiments;
    }

    /** The number of results. */
    public int size() {
        return experiments.size();
    }

    /** The first result of the named experiment ("stride_copy"). */
    public Result result(String experiment) {
        Objects.requireNonNull(experiment, "experiment must not be null");
        int index = experiments.indexOf(experiment);
        if (index < 0)
            throw new NoSuchElementException("experiment " + experiment + " is not in " + source + "; it holds "
                + String.join(", ", experiments));
        return Result.fromRunJson(json, index);
    }

    /** The result at index (0 .. size() - 1). */
    public Result result(int index) {
        if (index < 0 || index >= experiments.size())
            throw new IndexOutOfBoundsException("index must be in 0.." + (experiments.size() - 1) + ", got " + index
                + " (" + source + " holds " + experiments.size() + " results)");
        return Result.fromRunJson(json, index);
    }

    private static byte[] decompressed(byte[] data, Path path) throws IOException {
        if (data.length >= 2 && (data[0] & 0xff) == 0x1f && (data[1] & 0xff) == 0x8b) {
            try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(data))) {
                return in.readAllBytes();
            } catch (ZipException | java.io.EOFException e) {
                throw new IOException(path + " is not a valid gzip file: " + e.getMessage(), e);
            }
        }
        if (data.length >= 4 && (data[0] & 0xff) == 0x28 && (data[1] & 0xff) == 0xb5 && (data[2] & 0xff) == 0x2f
            && (data[3] & 0xff) == 0xfd)
            throw new GmlabException(Status.NOT_SUPPORTED, path + ": is zstd-compressed, which the JDK cannot read; "
                + "decompress it first: zstd -d " + path);
        return data;
    }
}
