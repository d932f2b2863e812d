package org.gmlab;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

/** Where there is no CUDA device, opening a context says so with NO_DEVICE. */
class NoDeviceTest {
    @Test
    void openingAContextReportsNoDevice() {
        assumeTrue(Gmlab.deviceCount() == 0, "a CUDA device is present");
        Expect.error(Status.NO_DEVICE, "no CUDA device", () -> new Context());
        Expect.error(Status.NO_DEVICE, "no CUDA device", () -> new Context(0));
    }
}
