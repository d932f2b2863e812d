package org.gmlab;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** A fresh context on device 0 for every test; the test is skipped where there is no device. */
abstract class DeviceTestBase {
    protected Context ctx;

    @BeforeEach
    void open() {
        Expect.device();
        ctx = new Context();
    }

    @AfterEach
    void close() {
        if (ctx != null) ctx.close();
    }
}
