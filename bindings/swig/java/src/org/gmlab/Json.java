package org.gmlab;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the JSON the library returns (descriptions, parameters, device info)
 * into plain Java values: objects as {@code Map<String, Object>}, arrays as
 * {@code List<Object>}, numbers as {@code Double}, strings, booleans and null.
 * The JDK has no JSON reader, and the jar takes no dependency for these few,
 * small, well-formed documents.
 */
final class Json {
    private final String text;
    private final String what;
    private int at;

    private Json(String text, String what) {
        this.text = text;
        this.what = what;
    }

    static Object parse(String text, String what) {
        Json reader = new Json(text, what);
        Object value = reader.value();
        reader.space();
        if (reader.at != text.length()) throw reader.fail("text after the value");
        return value;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> object(Object value, String what) {
        if (value instanceof Map) return (Map<String, Object>) value;
        throw new GmlabException(Status.INTERNAL, "gmlab: " + what + " is not a JSON object");
    }

    private Object value() {
        space();
        if (at >= text.length()) throw fail("a value");
        char c = text.charAt(at);
        if (c == '{') return objectValue();
        if (c == '[') return arrayValue();
        if (c == '"') return stringValue();
        if (word("true")) return Boolean.TRUE;
        if (word("false")) return Boolean.FALSE;
        if (word("null")) return null;
        return number();
    }

    private Map<String, Object> objectValue() {
        Map<String, Object> members = new LinkedHashMap<>();
        ++at;
        if (next('}')) return Collections.unmodifiableMap(members);
        do {
            space();
            if (at >= text.length() || text.charAt(at) != '"') throw fail("a member name");
            String name = stringValue();
            if (!next(':')) throw fail("':'");
            members.put(name, value());
        } while (next(','));
        if (!next('}')) throw fail("',' or '}'");
        return Collections.unmodifiableMap(members);
    }

    private List<Object> arrayValue() {
        List<Object> items = new ArrayList<>();
        ++at;
        if (next(']')) return Collections.unmodifiableList(items);
        do items.add(value()); while (next(','));
        if (!next(']')) throw fail("',' or ']'");
        return Collections.unmodifiableList(items);
    }

    private String stringValue() {
        StringBuilder s = new StringBuilder();
        ++at;
        while (at < text.length() && text.charAt(at) != '"') {
            char c = text.charAt(at++);
            if (c != '\\') {
                s.append(c);
                continue;
            }
            if (at >= text.length()) break;
            char e = text.charAt(at++);
            switch (e) {
                case 'n': s.append('\n'); break;
                case 't': s.append('\t'); break;
                case 'r': s.append('\r'); break;
                case 'b': s.append('\b'); break;
                case 'f': s.append('\f'); break;
                case 'u':
                    if (at + 4 > text.length()) throw fail("four hex digits");
                    s.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    at += 4;
                    break;
                default: s.append(e);  // \" \\ \/
            }
        }
        if (at >= text.length()) throw fail("the closing '\"'");
        ++at;
        return s.toString();
    }

    private Double number() {
        int start = at;
        while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) ++at;
        try {
            return Double.valueOf(text.substring(start, at));
        } catch (NumberFormatException e) {
            throw fail("a value");
        }
    }

    private boolean word(String w) {
        if (!text.startsWith(w, at)) return false;
        at += w.length();
        return true;
    }

    private boolean next(char c) {
        space();
        if (at < text.length() && text.charAt(at) == c) {
            ++at;
            return true;
        }
        return false;
    }

    private void space() {
        while (at < text.length() && Character.isWhitespace(text.charAt(at))) ++at;
    }

    private GmlabException fail(String expected) {
        return new GmlabException(Status.INTERNAL, "gmlab: " + what + " is not valid JSON: expected " + expected
            + " at offset " + at);
    }
}
