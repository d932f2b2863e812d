package org.gmlab;

import java.nio.charset.StandardCharsets;

/**
 * A gmlab call failed. {@link #status()} says how (never {@link Status#OK});
 * the message is the library's own, naming the argument and its allowed
 * range, for example "strides must be in 1..32, got 0", or the file a saved
 * run was read from.
 */
public class GmlabException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final Status status;

    /** An exception of this status and message. */
    public GmlabException(Status status, String message) {
        super(message);
        this.status = status;
    }

    /* Called from the native layer, which hands the library's UTF-8 message over as bytes. */
    GmlabException(int status, byte[] utf8Message) {
        this(Status.of(status), new String(utf8Message, StandardCharsets.UTF_8));
    }

    /** How the call failed. */
    public Status status() {
        return status;
    }
}
