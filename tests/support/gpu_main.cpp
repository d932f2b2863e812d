// GPU tests exit 77 (CTest's SKIP_RETURN_CODE) where there is no CUDA device.
#include <cstdio>

#include <gtest/gtest.h>

#include "gmlab.h"

int main(int argc, char **argv) {
    int count = 0;
    if (gm_device_count(&count) != GM_OK || count == 0) {
        std::printf("no CUDA device (%s): skipping the GPU tests\n", gm_last_error());
        return 77;
    }
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
