package org.gmlab;

import java.nio.charset.StandardCharsets;

/**
 * Strings to and from the native layer as UTF-8 bytes. JNI's own string
 * functions speak modified UTF-8, which differs from the UTF-8 the library
 * reads and writes for NUL and characters outside the Basic Multilingual Plane.
 */
final class NativeText {
    private NativeText() {
    }

    /** null stays null, so that the native side reports the argument by name. */
    static byte[] encode(String text) {
        if (text == null) return null;
        if (text.indexOf('\0') >= 0)
            throw new GmlabException(Status.INVALID_ARGUMENT, "a string argument must not contain the NUL character");
        return text.getBytes(StandardCharsets.UTF_8);
    }

    static String decode(byte[] utf8) {
        return utf8 == null ? null : new String(utf8, StandardCharsets.UTF_8);
    }
}
