// cache_hints puts the device's L2 fetch granularity limit back, after a
// whole run and after a run that fails midway (its strided region beyond the
// memory budget, once the reused-set variants have run). Reads the limit
// through the CUDA runtime the library uses, so it links the internal library.
#include <cuda_runtime_api.h>

#include "gpu_fixture.hpp"

namespace {

size_t granularity() {
    size_t v = 0;
    EXPECT_EQ(cudaDeviceGetLimit(&v, cudaLimitMaxL2FetchGranularity), cudaSuccess);
    return v;
}

// A value other than the one in force, so that a run that leaves its own
// value behind is seen.
size_t other_than(size_t v) { return v == 32 ? 64 : 32; }

}  // namespace

TEST_F(GpuTest, CacheHintsPutsTheFetchGranularityBack) {
    size_t found = 0;
    if (cudaDeviceGetLimit(&found, cudaLimitMaxL2FetchGranularity) != cudaSuccess)
        GTEST_SKIP() << "cudaLimitMaxL2FetchGranularity is not offered here";
    const size_t mine = other_than(found);
    ASSERT_EQ(cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, mine), cudaSuccess);
    const size_t before = granularity();
    for (int i = 0; i < 2; ++i) {
        nlohmann::json doc = run("cache_hints", R"({"hints": ["default"], "reused_over_l2": 0.1, "stream_over_l2": 0.5,
                                                    "strided_bytes": "4MiB", "strides": [256]})");
        ASSERT_FALSE(doc.is_null());
        EXPECT_EQ(doc["summary"]["fetch_granularity_found"].get<double>(), static_cast<double>(before));
        EXPECT_EQ(granularity(), before) << "run " << i;
    }
    cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, found);
}

TEST_F(GpuTest, CacheHintsFailingMidwayLeavesTheDeviceAsFound) {
    size_t free_b = 0, total_b = 0;
    ASSERT_EQ(cudaMemGetInfo(&free_b, &total_b), cudaSuccess);
    const double l2 = device_info(ctx)["l2_cache_bytes"].get<double>();
    // The smallest budget (1% of the free memory) holds part one (1.25 x L2
    // and a little) but not the 4 GiB strided region of part two.
    const double budget = 0.01 * static_cast<double>(free_b);
    if (budget < 2 * 1.25 * l2 || budget >= 4.0 * (1 << 30)) GTEST_SKIP() << "no budget splits the two parts here";
    ASSERT_EQ(gm_context_set(ctx, GM_SETTING_MEMORY_FRACTION, 0.01), GM_OK);
    size_t found = 0;
    const bool limit = cudaDeviceGetLimit(&found, cudaLimitMaxL2FetchGranularity) == cudaSuccess;
    if (limit) ASSERT_EQ(cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, other_than(found)), cudaSuccess);
    const size_t before = limit ? granularity() : 0;
    size_t granted = 0;
    const bool cc80 = gm_set_l2_persisting_size(&granted, ctx, 1 << 20) == GM_OK;
    gm_result *r = nullptr;
    EXPECT_EQ(gm_run(&r, ctx, "cache_hints", R"({"reused_over_l2": 0.25, "stream_over_l2": 1.0, "strided_bytes": "4GiB"})"),
              GM_ERROR_OUT_OF_MEMORY)
        << gm_context_last_error(ctx);
    EXPECT_NE(std::string(gm_context_last_error(ctx)).find("strided region"), std::string::npos) << gm_context_last_error(ctx);
    if (limit) EXPECT_EQ(granularity(), before);
    if (cc80) {
        const nlohmann::json s = l2_state(ctx);
        EXPECT_TRUE(s["window"].is_null());
        EXPECT_EQ(s["persisting_set_aside_bytes"].get<size_t>(), granted);
        gm_set_l2_persisting_size(&granted, ctx, 0);
    }
    if (limit) cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, found);
    ASSERT_EQ(gm_context_set(ctx, GM_SETTING_MEMORY_FRACTION, 0.5), GM_OK);
    // The context is usable afterwards.
    nlohmann::json doc = run("cache_hints", R"({"hints": ["default"], "prefetch": ["plain"], "reused_over_l2": 0.1,
                                                "stream_over_l2": 0.5, "strided_bytes": "2MiB", "strides": [64]})");
    EXPECT_FALSE(doc.is_null());
}
