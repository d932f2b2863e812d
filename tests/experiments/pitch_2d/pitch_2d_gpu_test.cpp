// pitch_2d on small inputs.
#include <string>

#include "gpu_fixture.hpp"

using nlohmann::json;

TEST_F(GpuTest, PitchedAndPackedRowsGiveTheSameArray) {
    json doc = run("pitch_2d", R"({"widths": [1, 31, 33, 1025, 32769], "height": 37})");
    ASSERT_FALSE(doc.is_null());
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    auto v = by_variant(doc);
    ASSERT_EQ(v["pitched"]["points"].size(), 5u);
    for (const json &p : v["pitched"]["points"]) {
        EXPECT_EQ(static_cast<long long>(p["values"]["pitch_bytes"].get<double>()) % 128, 0);
        EXPECT_GE(p["values"]["pitch_bytes"].get<double>(), p["x"].get<double>() * 4);
        EXPECT_EQ(p["predicted"]["misaligned_row_fraction"].get<double>(), 0);
    }
    EXPECT_GT(v["packed"]["points"][4]["predicted"]["misaligned_row_fraction"].get<double>(), 0.5);
    EXPECT_TRUE(doc["summary"].contains("pitched_over_packed_w32769"));
    gm_result *r = nullptr;
    EXPECT_EQ(gm_run(&r, ctx, "pitch_2d", R"({"widths": [1073741824], "height": 1})"), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gm_context_last_error(ctx)).find("largest pitch"), std::string::npos) << gm_context_last_error(ctx);
    EXPECT_EQ(gm_run(&r, ctx, "pitch_2d", R"({"widths": [65536], "height": 2147483648})"), GM_ERROR_OUT_OF_MEMORY);
    // The context stays usable after the errors.
    json again = run("pitch_2d", R"({"widths": [33], "height": 5})");
    EXPECT_FALSE(again.is_null());
}
