package org.gmlab;

/**
 * The status of a failed gmlab call ({@link GmlabException#status()}), as
 * gmlab.h numbers {@code gm_status}: {@link #code()} is the C number.
 */
public enum Status {
    /** Success (never the status of an exception). */
    OK(0),
    /** A closed handle, a value out of range, malformed JSON. */
    INVALID_ARGUMENT(-1),
    /** No CUDA device, or no usable driver. */
    NO_DEVICE(-2),
    /** The device lacks the feature (the L2 window below compute capability 8.0, ...). */
    NOT_SUPPORTED(-3),
    /** Device or host memory exhausted, or a request past the memory budget. */
    OUT_OF_MEMORY(-4),
    /** A CUDA call failed; the message names it. */
    CUDA(-5),
    /** A kernel's output differed from the host's reference: no number is reported. */
    VERIFICATION_FAILED(-6),
    /** No experiment of that name. */
    UNKNOWN_EXPERIMENT(-7),
    /** A bug in gmlab, or a status newer than this binding. */
    INTERNAL(-8);

    private final int code;

    Status(int code) {
        this.code = code;
    }

    /** The number gmlab.h gives the status. */
    public int code() {
        return code;
    }

    /** The status of a gmlab.h number; {@link #INTERNAL} for a number this binding does not know. */
    public static Status of(int code) {
        for (Status s : values())
            if (s.code == code) return s;
        return INTERNAL;
    }
}
