// Host memory, without a device: the pinned buffer's failure path and
// counter, and the check of the host's free memory.
#include <gtest/gtest.h>

#include "core/device/host_memory.hpp"
#include "core/error.hpp"
#include "unit_checks.hpp"

using namespace gmlab;

TEST(PinnedHostBuffer, InjectedFailureIsAnErrorAndLeavesNothing) {
    ASSERT_EQ(PinnedHostBuffer::live_count(), 0);
    PinnedHostBuffer::fail_after_for_testing(0);
    try {
        PinnedHostBuffer b(4096, 0, "a test buffer");
        FAIL() << "the injected failure did not fire";
    } catch (const Error &e) {
        EXPECT_EQ(e.status(), GM_ERROR_OUT_OF_MEMORY);
        EXPECT_TRUE(contains(e.what(), "page-locked host memory for a test buffer")) << e.what();
    }
    EXPECT_EQ(PinnedHostBuffer::live_count(), 0);
    PinnedHostBuffer::fail_after_for_testing(-1);
}

TEST(HostMemory, AvailableAndTheBudget) {
    EXPECT_GT(host_available_bytes(), 0u);
    try {
        require_host_memory(static_cast<std::size_t>(1) << 62, 0.5, "a huge plan");
        FAIL() << "an impossible host allocation was accepted";
    } catch (const Error &e) {
        EXPECT_EQ(e.status(), GM_ERROR_OUT_OF_MEMORY);
        EXPECT_TRUE(contains(e.what(), "a huge plan needs")) << e.what();
    }
    EXPECT_NO_THROW(require_host_memory(4096, 0.5, "a small plan"));
    PageableHostBuffer p(12345, "pageable");
    EXPECT_EQ(static_cast<unsigned char *>(p.get())[12344], 0);
}
