package org.gmlab;

import java.nio.charset.StandardCharsets;

/**
 * A gmlab call failed. {@link #getStatus()} is one of the {@link Status} codes
 * (never {@link Status#OK}); the message is the library's own, naming the
 * argument and its allowed range, for example "strides must be in 1..32, got 0".
 */
public class GmlabException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;

    public GmlabException(int status, String message) {
        super(message);
        this.status = status;
    }

    /* Called from the native layer, which hands the library's UTF-8 message over as bytes. */
    GmlabException(int status, byte[] utf8Message) {
        this(status, new String(utf8Message, StandardCharsets.UTF_8));
    }

    /** The status code, as numbered in {@link Status} and gmlab.h. */
    public int getStatus() {
        return status;
    }
}
