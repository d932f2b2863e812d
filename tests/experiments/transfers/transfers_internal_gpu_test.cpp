// Errors in the middle of the transfer experiments leave no page-locked memory
// behind, and peer leaves the devices' peer access and the current device as
// it found them. Reads internal state, so it links the internal static library.
#include <string>

#include <cuda_runtime_api.h>

#include "core/device/host_memory.hpp"
#include "gpu_fixture.hpp"

using gmlab::PinnedHostBuffer;

namespace {

// Turns the failure hook off again whatever the test does.
struct TransfersHookOff {
    ~TransfersHookOff() { PinnedHostBuffer::fail_after_for_testing(-1); }
};

}  // namespace

TEST_F(GpuTest, PinnedMemoryIsFreedWhenAnExperimentFailsMidway) {
    const char *small[][2] = {
        {"transfer", R"({"min_size": 4096, "max_size": "64KiB", "memory": "pinned"})"},
        {"transfer_batching", R"({"counts": [1, 4], "chunk_sizes": [4096]})"},
        {"zero_copy", R"({"bytes": "256KiB"})"},
        {"copy_overlap", R"({"bytes": "1MiB", "streams": [1, 2], "iterations": 4})"},
    };
    TransfersHookOff off;
    ASSERT_EQ(PinnedHostBuffer::live_count(), 0);
    for (const auto &e : small) {
        // The second pinned allocation fails: the first is already held.
        PinnedHostBuffer::fail_after_for_testing(1);
        gm_result *r = nullptr;
        EXPECT_EQ(gm_run(&r, ctx, e[0], e[1]), GM_ERROR_OUT_OF_MEMORY) << e[0];
        EXPECT_EQ(r, nullptr);
        const std::string msg = gm_context_last_error(ctx);
        EXPECT_NE(msg.find("page-locked host memory"), std::string::npos) << msg;
        EXPECT_EQ(PinnedHostBuffer::live_count(), 0) << e[0] << " left pinned memory after its error";
        // The same run without the failure succeeds, and frees everything too.
        PinnedHostBuffer::fail_after_for_testing(-1);
        nlohmann::json doc = run(e[0], e[1]);
        ASSERT_FALSE(doc.is_null()) << e[0];
        EXPECT_TRUE(doc["verification"]["passed"].get<bool>()) << e[0];
        EXPECT_EQ(PinnedHostBuffer::live_count(), 0) << e[0];
    }
}

TEST_F(GpuTest, PinnedMemoryIsFreedAfterAPlanBeyondTheBudget) {
    gm_result *r = nullptr;
    EXPECT_EQ(gm_run(&r, ctx, "transfer", R"({"max_size": "1024GiB"})"), GM_ERROR_OUT_OF_MEMORY);
    EXPECT_EQ(PinnedHostBuffer::live_count(), 0);
}

TEST(PeerState, LeftAsFound) {
    int count = 0;
    ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
    if (count < 2) GTEST_SKIP() << "peer state needs two or more GPUs; this machine has " << count;
    // A context on device 1: peer must leave device 1 current and every peer
    // access it enabled disabled again.
    gm_context *ctx = nullptr;
    ASSERT_EQ(gm_context_create(&ctx, 1), GM_OK) << gm_last_error();
    ASSERT_EQ(gm_context_set(ctx, GM_SETTING_MIN_REPETITIONS, 2), GM_OK);
    ASSERT_EQ(gm_context_set(ctx, GM_SETTING_MIN_TIME_MS, 0), GM_OK);
    gm_result *r = nullptr;
    ASSERT_EQ(gm_run(&r, ctx, "peer", R"({"bytes": "1MiB", "latency_copies": 4})"), GM_OK) << gm_context_last_error(ctx);
    gm_result_destroy(r);
    int current = -1;
    ASSERT_EQ(cudaGetDevice(&current), cudaSuccess);
    EXPECT_EQ(current, 1);
    for (int a = 0; a < count; ++a) {
        for (int b = 0; b < count; ++b) {
            int can = 0;
            if (a == b || cudaDeviceCanAccessPeer(&can, a, b) != cudaSuccess || !can) continue;
            ASSERT_EQ(cudaSetDevice(a), cudaSuccess);
            // Enabling succeeds only if the experiment disabled it again.
            EXPECT_EQ(cudaDeviceEnablePeerAccess(b, 0), cudaSuccess) << a << " -> " << b << " was left enabled";
            cudaDeviceDisablePeerAccess(b);
            (void)cudaGetLastError();
        }
    }
    cudaSetDevice(1);
    gm_context_destroy(ctx);
}
