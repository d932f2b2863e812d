package org.gmlab;

/** How the L2 treats the lines of an access policy window ({@link Context#setL2Window}), as gmlab.h numbers {@code gm_access_property}. */
public enum AccessProperty {
    /** No hint. */
    NORMAL(0),
    /** Lines likely to be evicted first. */
    STREAMING(1),
    /** Lines kept in the persisting set-aside of L2. */
    PERSISTING(2);

    private final int code;

    AccessProperty(int code) {
        this.code = code;
    }

    /** The number gmlab.h gives the property. */
    public int code() {
        return code;
    }
}
