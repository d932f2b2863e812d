package org.gmlab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.function.Executable;

/**
 * The bindings' shared behaviour table (bindings/contract.json, explained in
 * bindings/CONTRACT.md), row by row, in Java: each row's input, the exception
 * it throws (or none) and what the message names. A row without a case below
 * fails: every row is run.
 */
class ContractTest {
    /** A row's input, run on the files of {@link #files}. */
    interface Case {
        void run(Map<String, Path> files) throws Exception;
    }

    @TempDir
    static Path dir;

    private static final Map<String, Case> CASES = new HashMap<>();

    private static Run fixture(Map<String, Path> f) throws Exception {
        return Run.load(f.get("run"));
    }

    private static Case load(String key) {
        return f -> Run.load(f.get(key));
    }

    static {
        CASES.put("negative_device", f -> { new Context(-1).close(); });
        CASES.put("no_device", f -> { new Context(0).close(); });
        CASES.put("null", f -> { Run.load(null); });
        CASES.put("empty_path", f -> { Run.load(Path.of("")); });
        CASES.put("missing_file", load("missing"));
        CASES.put("empty_file", load("empty"));
        CASES.put("not_json", load("not_json"));
        CASES.put("truncated_file", load("truncated"));
        CASES.put("zstd_file", load("run_zst"));
        CASES.put("experiment_not_in_run", f -> { fixture(f).result("no_such_experiment"); });
        CASES.put("unknown_experiment", f -> { Gmlab.describe("no_such_experiment"); });
        CASES.put("index_out_of_range", f -> { fixture(f).result(99); });
        CASES.put("series_out_of_range", f -> {
            try (Result r = fixture(f).result("stream")) {
                r.pointValue(99, 0, "x");
            }
        });
        CASES.put("use_after_close", f -> {
            Result r = fixture(f).result("stream");
            r.close();
            r.experiment();
        });
        CASES.put("results_independent", f -> {
            Run run = fixture(f);
            run.result("stream").close();
            try (Result again = run.result("stream"); Result next = run.result("matmul_ab")) {
                assertEquals("stream", again.experiment());
                assertEquals("matmul_ab", next.experiment());
            }
        });
    }

    private static Path bindings() {
        return Expect.sourceDir().resolve("bindings");
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> rows() throws Exception {
        String text = Files.readString(bindings().resolve("contract.json"), StandardCharsets.UTF_8);
        Map<String, Object> table = Json.object(Json.parse(text, "contract.json"), "contract.json");
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Object row : (List<Object>) table.get("rows")) rows.add((Map<String, Object>) row);
        return rows;
    }

    private static Map<String, Path> files() throws Exception {
        Map<String, Path> f = new HashMap<>();
        byte[] run = Files.readAllBytes(bindings().resolve("testdata/run.json"));
        f.put("run", Files.write(dir.resolve("run.json"), run));
        f.put("run_zst", Files.write(dir.resolve("run.json.zst"), Files.readAllBytes(bindings().resolve("testdata/run.json.zst"))));
        f.put("missing", dir.resolve("no_such_run.json"));
        f.put("empty", Files.write(dir.resolve("empty.json"), new byte[0]));
        f.put("not_json", Files.writeString(dir.resolve("not_json.json"), "this is not JSON"));
        f.put("truncated", Files.write(dir.resolve("truncated.json"), java.util.Arrays.copyOf(run, run.length / 2)));
        return f;
    }

    @SuppressWarnings("unchecked")
    private static List<String> strings(Object list) {
        return list == null ? List.of() : (List<String>) (List<?>) list;
    }

    @SuppressWarnings("unchecked")
    private static void check(Map<String, Object> row, Map<String, Path> files) {
        String id = (String) row.get("id");
        Case c = CASES.get(id);
        assertNotNull(c, "row " + id + " of the table has no case in Java");
        if ("no_device".equals(row.get("needs")) && Gmlab.deviceCount() > 0) return;  // a device: nothing to check
        Map<String, Object> java = (Map<String, Object>) row.get("java");
        Object error = java.get("error");
        Executable call = () -> c.run(files);
        if (error == null) {
            try {
                call.execute();
            } catch (Throwable t) {
                fail(id + ": want no exception, got " + t, t);
            }
            return;
        }
        Throwable thrown = assertThrows(Throwable.class, call);
        assertEquals(error, thrown.getClass().getSimpleName(), () -> id + ": " + thrown);
        if (thrown instanceof GmlabException && row.get("status") != null)
            assertEquals(Status.valueOf((String) row.get("status")), ((GmlabException) thrown).status(), id);
        String message = String.valueOf(thrown.getMessage());
        String file = fileOf(id, files);
        List<String> wanted = new ArrayList<>(strings(row.get("contains")));
        wanted.addAll(strings(java.get("contains")));
        for (String want : wanted) {
            String w = file == null ? want : want.replace("{file}", file);
            assertTrue(message.contains(w), () -> id + ": \"" + message + "\" lacks \"" + w + "\"");
        }
        for (String absent : strings(row.get("absent")))
            assertFalse(message.contains(absent), () -> id + ": \"" + message + "\" has \"" + absent + "\"");
    }

    /** The file a row's message names ({file} in the table), or null. */
    private static String fileOf(String id, Map<String, Path> files) {
        switch (id) {
            case "missing_file": return files.get("missing").toString();
            case "empty_file": return files.get("empty").toString();
            case "not_json": return files.get("not_json").toString();
            case "truncated_file": return files.get("truncated").toString();
            case "zstd_file": return files.get("run_zst").toString();
            case "experiment_not_in_run":
            case "index_out_of_range": return files.get("run").toString();
            default: return null;
        }
    }

    @TestFactory
    List<DynamicTest> everyRow() throws Exception {
        Map<String, Path> files = files();
        List<DynamicTest> tests = new ArrayList<>();
        for (Map<String, Object> row : rows())
            tests.add(DynamicTest.dynamicTest((String) row.get("id"), () -> check(row, files)));
        return tests;
    }

    @Test
    void everyCaseIsARow() throws Exception {
        TreeSet<String> ids = new TreeSet<>();
        for (Map<String, Object> row : rows()) ids.add((String) row.get("id"));
        assertEquals(ids, new TreeSet<>(CASES.keySet()));
    }
}
