package org.gmlab;

/** The kernels of {@link Context#matmul}, as gmlab.h numbers {@code gm_matmul_variant}. */
public enum Matmul {
    /** A and B from global memory. */
    SIMPLE(0),
    /** A tile of A in shared memory. */
    COALESCED_A(1),
    /** Tiles of A and B in shared memory. */
    SHARED_AB(2);

    private final int code;

    Matmul(int code) {
        this.code = code;
    }

    /** The number gmlab.h gives the variant. */
    public int code() {
        return code;
    }
}
