package org.gmlab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/** The hand-written enums hold the numbers gmlab.h gives (GM_..._NAME = number). */
class EnumsTest {
    private static Map<String, Integer> header() throws Exception {
        String text = Files.readString(Expect.sourceDir().resolve("include/gmlab.h"));
        Matcher m = Pattern.compile("\\b(GM_[A-Z0-9_]+)\\s*=\\s*(-?[0-9]+)").matcher(text);
        Map<String, Integer> values = new HashMap<>();
        while (m.find()) values.put(m.group(1), Integer.parseInt(m.group(2)));
        return values;
    }

    private static void check(Map<String, Integer> header, String prefix, Enum<?>[] values, int[] codes) {
        for (int i = 0; i < values.length; ++i) {
            String name = prefix + values[i].name();
            assertTrue(header.containsKey(name), name + " is not in gmlab.h");
            assertEquals(header.get(name).intValue(), codes[i], name);
        }
    }

    @Test
    void numbersAreTheHeaders() throws Exception {
        Map<String, Integer> h = header();
        // GM_OK, GM_ERROR_<NAME>
        assertEquals(h.get("GM_OK").intValue(), Status.OK.code());
        for (Status s : Status.values())
            if (s != Status.OK) assertEquals(h.get("GM_ERROR_" + s.name()).intValue(), s.code(), s.name());
        Transpose[] t = Transpose.values();
        int[] tc = new int[t.length];
        for (int i = 0; i < t.length; ++i) tc[i] = t[i].code();
        check(h, "GM_TRANSPOSE_", t, tc);
        Matmul[] m = Matmul.values();
        int[] mc = new int[m.length];
        for (int i = 0; i < m.length; ++i) mc[i] = m[i].code();
        check(h, "GM_MATMUL_", m, mc);
        AccessProperty[] a = AccessProperty.values();
        int[] ac = new int[a.length];
        for (int i = 0; i < a.length; ++i) ac[i] = a[i].code();
        check(h, "GM_ACCESS_", a, ac);
        assertEquals(Status.INTERNAL, Status.of(-99));
        assertEquals(Status.NO_DEVICE, Status.of(-2));
    }
}
