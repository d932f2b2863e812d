package org.gmlab;

/** The kernels of {@link Context#transpose}, as gmlab.h numbers {@code gm_transpose_variant}. */
public enum Transpose {
    /** Reads coalesced, writes strided. */
    NAIVE(0),
    /** A 32x32 shared-memory tile (bank conflicts on the way out). */
    SHARED(1),
    /** The tile padded to 33 columns: conflict-free. */
    SHARED_PADDED(2),
    /** A 64x64 swizzled tile, 16-byte accesses (4-byte elements, rows and cols multiples of 4). */
    WIDE(3),
    /** The fastest that fits the shape. */
    AUTO(4);

    private final int code;

    Transpose(int code) {
        this.code = code;
    }

    /** The number gmlab.h gives the variant. */
    public int code() {
        return code;
    }
}
