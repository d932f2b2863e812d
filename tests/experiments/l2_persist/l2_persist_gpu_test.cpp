// The L2 persisting-access controls and the l2_persist experiment.
#include "gpu_fixture.hpp"

using nlohmann::json;

class L2Test : public GpuTest {
protected:
    void SetUp() override {
        GpuTest::SetUp();
        char *text = nullptr;
        ASSERT_EQ(gm_device_info_json(&text, ctx), GM_OK);
        device = json::parse(text);
        gm_free_string(text);
        const std::string cc = device["compute_capability"];
        supported = std::stoi(cc.substr(0, cc.find('.'))) >= 8;
    }
    json state() {
        char *text = nullptr;
        EXPECT_EQ(gm_l2_state_json(&text, ctx), GM_OK) << gm_context_last_error(ctx);
        json s = json::parse(text ? text : "null");
        gm_free_string(text);
        return s;
    }
    json device;
    bool supported = false;
};

TEST_F(L2Test, OlderDevicesSayNotSupported) {
    if (supported) GTEST_SKIP() << "compute capability 8.0 or later";
    size_t granted = 0;
    EXPECT_EQ(gm_set_l2_persisting_size(&granted, ctx, 1 << 20), GM_ERROR_NOT_SUPPORTED);
    EXPECT_NE(std::string(gm_context_last_error(ctx)).find("compute capability 8.0"), std::string::npos);
}

TEST_F(L2Test, SetAsideIsClampedAndReported) {
    if (!supported) GTEST_SKIP() << "needs compute capability 8.0";
    const size_t max = device["persisting_l2_max_bytes"];
    size_t granted = 0;
    ASSERT_EQ(gm_set_l2_persisting_size(&granted, ctx, max * 4), GM_OK) << gm_context_last_error(ctx);
    EXPECT_GT(granted, 0u);
    EXPECT_LE(granted, max);
    EXPECT_EQ(state()["persisting_set_aside_bytes"].get<size_t>(), granted);
    ASSERT_EQ(gm_set_l2_persisting_size(&granted, ctx, 0), GM_OK);
    EXPECT_EQ(granted, 0u);
}

TEST_F(L2Test, WindowIsAppliedToTheStreamAndReset) {
    if (!supported) GTEST_SKIP() << "needs compute capability 8.0";
    gm_buffer *buf = nullptr;
    ASSERT_EQ(gm_buffer_create(&buf, ctx, 8 << 20), GM_OK);
    size_t granted = 0;
    ASSERT_EQ(gm_set_l2_persisting_size(&granted, ctx, 4 << 20), GM_OK);
    ASSERT_EQ(gm_set_l2_window(ctx, buf, 4096, 2 << 20, 0.75, GM_ACCESS_PERSISTING, GM_ACCESS_STREAMING), GM_OK)
        << gm_context_last_error(ctx);
    json s = state();
    ASSERT_FALSE(s["window"].is_null());
    EXPECT_EQ(s["window"]["num_bytes"].get<size_t>(), size_t(2) << 20);
    EXPECT_NEAR(s["window"]["hit_ratio"].get<double>(), 0.75, 1e-6);
    EXPECT_EQ(s["window"]["hit_property"], "persisting");
    EXPECT_EQ(s["window"]["miss_property"], "streaming");
    // Operations run under it and still compute the right thing.
    json doc = run("offset_copy", R"({"elements": 65536, "offsets": [0, 1], "variants": ["guide"]})");
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    ASSERT_EQ(gm_reset_l2_window(ctx), GM_OK);
    EXPECT_TRUE(state()["window"].is_null());
    gm_set_l2_persisting_size(&granted, ctx, 0);
    gm_buffer_destroy(buf);
}

TEST_F(L2Test, BadWindowsAreRefusedWithTheLimit) {
    if (!supported) GTEST_SKIP() << "needs compute capability 8.0";
    gm_buffer *buf = nullptr, *other = nullptr;
    ASSERT_EQ(gm_buffer_create(&buf, ctx, 1 << 20), GM_OK);
    gm_context *ctx2 = nullptr;
    ASSERT_EQ(gm_context_create(&ctx2, 0), GM_OK);
    ASSERT_EQ(gm_buffer_create(&other, ctx2, 1 << 20), GM_OK);
    EXPECT_EQ(gm_set_l2_window(ctx, buf, 0, 1024, 1.5, GM_ACCESS_PERSISTING, GM_ACCESS_NORMAL), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gm_context_last_error(ctx)).find("hit_ratio must be in 0..1"), std::string::npos);
    EXPECT_EQ(gm_set_l2_window(ctx, buf, 0, 0, 1.0, GM_ACCESS_PERSISTING, GM_ACCESS_NORMAL), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gm_context_last_error(ctx)).find("accessPolicyMaxWindowSize"), std::string::npos);
    EXPECT_EQ(gm_set_l2_window(ctx, buf, 1 << 19, 1 << 20, 1.0, GM_ACCESS_PERSISTING, GM_ACCESS_NORMAL), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gm_context_last_error(ctx)).find("inside the buffer"), std::string::npos);
    EXPECT_EQ(gm_set_l2_window(ctx, nullptr, 0, 1024, 1.0, GM_ACCESS_PERSISTING, GM_ACCESS_NORMAL), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(gm_set_l2_window(ctx, other, 0, 1024, 1.0, GM_ACCESS_PERSISTING, GM_ACCESS_NORMAL), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gm_context_last_error(ctx)).find("must belong to the context"), std::string::npos);
    EXPECT_EQ(gm_set_l2_window(ctx, buf, 0, 1024, 1.0, GM_ACCESS_PERSISTING, GM_ACCESS_PERSISTING), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_TRUE(state()["window"].is_null());  // nothing was applied
    gm_buffer_destroy(other);
    gm_context_destroy(ctx2);
    gm_buffer_destroy(buf);
}

TEST_F(L2Test, ExperimentLeavesNoWindowBehind) {
    if (!supported) GTEST_SKIP() << "needs compute capability 8.0";
    size_t granted = 0;
    ASSERT_EQ(gm_set_l2_persisting_size(&granted, ctx, 1 << 20), GM_OK);
    const size_t before = state()["persisting_set_aside_bytes"];
    json doc = run("l2_persist", R"({"streaming_bytes": "64MiB", "sweep_points": 3})");
    ASSERT_FALSE(doc.is_null());
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    ASSERT_EQ(doc["series"].size(), 3u);
    for (const json &s : doc["series"]) EXPECT_EQ(s["points"].size(), 3u);
    EXPECT_TRUE(doc["summary"].contains("hit_ratio_1_speedup_best"));
    EXPECT_TRUE(doc["summary"].contains("tuned_speedup_best"));
    EXPECT_GT(doc["summary"]["set_aside_granted_bytes"].get<double>(), 0);
    // The tuned window's hit ratio never exceeds 1 and falls past the set-aside.
    const json &tuned = doc["series"][2]["points"];
    EXPECT_EQ(tuned[0]["values"]["hit_ratio"].get<double>(), 1.0);
    EXPECT_LT(tuned[2]["values"]["hit_ratio"].get<double>(), 1.0);
    json after = state();
    EXPECT_TRUE(after["window"].is_null());
    EXPECT_EQ(after["persisting_set_aside_bytes"].get<size_t>(), before);
    gm_set_l2_persisting_size(&granted, ctx, 0);
}

TEST_F(L2Test, FailedExperimentRestoresTheSetAside) {
    if (!supported) GTEST_SKIP() << "needs compute capability 8.0";
    size_t granted = 0;
    ASSERT_EQ(gm_set_l2_persisting_size(&granted, ctx, 0), GM_OK);
    ASSERT_EQ(gm_context_set(ctx, GM_SETTING_MEMORY_FRACTION, 0.01), GM_OK);
    gm_result *r = nullptr;
    // The set-aside is taken before the allocation fails.
    EXPECT_EQ(gm_run(&r, ctx, "l2_persist", R"({"streaming_bytes": "4GiB"})"), GM_ERROR_OUT_OF_MEMORY);
    ASSERT_EQ(gm_context_set(ctx, GM_SETTING_MEMORY_FRACTION, 0.5), GM_OK);
    json after = state();
    EXPECT_TRUE(after["window"].is_null());
    EXPECT_EQ(after["persisting_set_aside_bytes"].get<size_t>(), 0u);
    // A later experiment is unaffected.
    json doc = run("stride_copy", R"({"elements": 65536, "strides": [1, 2], "word_sizes": [4]})");
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
}
