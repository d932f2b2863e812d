package org.gmlab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.NoSuchElementException;
import java.util.zip.GZIPOutputStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Run.load: a saved run from a file, plain or gzip-compressed, read by experiment name. */
class RunTest {
    @TempDir
    Path folder;

    private static byte[] committedRun() throws IOException {
        return Files.readAllBytes(Expect.sourceDir().resolve("results").resolve("nvidia-h200.json"));
    }

    private static byte[] gzipped(byte[] data) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
            gzip.write(data);
        }
        return out.toByteArray();
    }

    @Test
    void loadsPlainAndGzipFilesByExperimentName() throws IOException {
        byte[] text = committedRun();
        for (String name : new String[] {"run.json", "run.json.gz", "gzipped-without-a-suffix"}) {
            Path file = folder.resolve(name);
            Files.write(file, name.equals("run.json") ? text : gzipped(text));
            Run run = Run.load(file);
            assertEquals(file.toString(), run.source(), name);
            assertTrue(run.size() > 20, name + ": " + run.size() + " results");
            try (Result stride = run.result("stride_copy")) {
                assertEquals("stride_copy", stride.experiment(), name);
            }
            try (Result byIndex = run.result(run.experiments().indexOf("stream"))) {
                assertEquals("stream", byIndex.experiment(), name);
            }
        }
    }

    @Test
    void namesWhatIsMissingOrUnreadable() throws IOException {
        Path file = folder.resolve("run.json");
        Files.write(file, committedRun());
        Run run = Run.load(file);
        NoSuchElementException missing = assertThrows(NoSuchElementException.class, () -> run.result("nope"));
        assertTrue(missing.getMessage().startsWith("experiment nope is not in " + file + "; it holds stream, "),
                   missing.getMessage());
        IndexOutOfBoundsException past = assertThrows(IndexOutOfBoundsException.class, () -> run.result(99));
        assertEquals("index must be in 0.." + (run.size() - 1) + ", got 99 (" + file + " holds " + run.size()
                     + " results)", past.getMessage());
        Path zstd = folder.resolve("run.json.zst");
        Files.write(zstd, new byte[] {0x28, (byte) 0xb5, 0x2f, (byte) 0xfd, 0});
        Expect.error(Status.NOT_SUPPORTED, "decompress it first: zstd -d " + zstd, () -> Run.load(zstd));
        assertThrows(NoSuchFileException.class, () -> Run.load(folder.resolve("missing.json")));
        assertEquals("path must not be null", assertThrows(NullPointerException.class, () -> Run.load(null)).getMessage());
        Path broken = folder.resolve("broken.json");
        Files.writeString(broken, "{");
        Expect.error(Status.INVALID_ARGUMENT, broken + ": not valid JSON", () -> Run.load(broken));
    }

    @Test
    void parsesARunGivenAsText() throws IOException {
        Run run = Run.parse(new String(committedRun(), java.nio.charset.StandardCharsets.UTF_8));
        assertEquals("the run", run.source());
        try (Result stream = run.result("stream")) {
            assertEquals("stream", stream.experiment());
        }
    }
}
