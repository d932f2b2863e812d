#include <fstream>
#include <regex>

#include "gpu_fixture.hpp"

using nlohmann::json;

TEST_F(GpuTest, DeviceInfoDescribesTheMemorySpaces) {
    char *text = nullptr;
    ASSERT_EQ(gm_device_info_json(&text, ctx), GM_OK);
    json d = json::parse(text);
    gm_free_string(text);
    EXPECT_FALSE(d["name"].get<std::string>().empty());
    EXPECT_GT(d["l2_cache_bytes"].get<double>(), 0);
    EXPECT_GT(d["global_memory_bytes"].get<double>(), d["free_memory_bytes"].get<double>() * 0.5);
    EXPECT_GT(d["theoretical_bandwidth_gbs"].get<double>(), 50.0);
    EXPECT_GE(d["shared_memory_per_block_optin_bytes"].get<double>(), d["shared_memory_per_block_bytes"].get<double>());
    EXPECT_EQ(d["constant_memory_bytes"].get<double>(), 65536.0);
    EXPECT_EQ(d["warp_size"].get<int>(), 32);
    EXPECT_TRUE(d.contains("persisting_l2_max_bytes"));
    EXPECT_FALSE(d["driver_cuda_version"].get<std::string>().empty());
    EXPECT_FALSE(d["runtime_version"].get<std::string>().empty());
    if (std::ifstream("/proc/driver/nvidia/version"))
        EXPECT_TRUE(std::regex_match(d["driver_version"].get<std::string>(), std::regex(R"(\d+\.\d+(\.\d+)?)")))
            << d["driver_version"];
    EXPECT_TRUE(d.contains("access_policy_max_window_bytes"));
}

TEST_F(GpuTest, SettingsAreValidatedAndKept) {
    EXPECT_EQ(gm_context_set(ctx, GM_SETTING_MEMORY_FRACTION, 0.99), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gm_context_last_error(ctx)).find("0.01..0.95"), std::string::npos);
    ASSERT_EQ(gm_context_set(ctx, GM_SETTING_MEMORY_FRACTION, 0.25), GM_OK);
    double v = 0;
    ASSERT_EQ(gm_context_get(&v, ctx, GM_SETTING_MEMORY_FRACTION), GM_OK);
    EXPECT_EQ(v, 0.25);
}

TEST(GpuContext, InvalidDeviceOrdinalIsAnArgumentError) {
    gm_context *ctx = reinterpret_cast<gm_context *>(0x1);
    EXPECT_EQ(gm_context_create(&ctx, 4096), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(ctx, nullptr);
    EXPECT_NE(std::string(gm_last_error()).find("device must be in 0.."), std::string::npos);
    EXPECT_EQ(gm_context_create(&ctx, -1), GM_ERROR_INVALID_ARGUMENT);
}

TEST(GpuContext, BufferMayOutliveItsContext) {
    gm_context *ctx = nullptr;
    ASSERT_EQ(gm_context_create(&ctx, 0), GM_OK);
    gm_buffer *buf = nullptr;
    ASSERT_EQ(gm_buffer_create(&buf, ctx, 1024), GM_OK);
    gm_context_destroy(ctx);  // a garbage collector may pick this order
    std::vector<unsigned char> in(1024, 7), out(1024, 0);
    EXPECT_EQ(gm_buffer_upload(buf, 0, in.data(), in.size()), GM_OK);
    EXPECT_EQ(gm_buffer_download(buf, 0, out.data(), out.size()), GM_OK);
    EXPECT_EQ(in, out);
    gm_buffer_destroy(buf);
}
