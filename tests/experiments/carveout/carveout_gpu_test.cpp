// The carveout experiment on a short sweep: every block's reads verified, the
// model's L1 per carveout on known chips, L1 hits faster than L2 hits, the
// kernel's preference left as found, out-of-range carveouts refused.
#include <algorithm>
#include <string>

#include "gpu_fixture.hpp"

using nlohmann::json;

namespace {

constexpr const char *kSmall = R"({"carveouts": [0, 100], "working_sets_kib": [16, 48, 320], "reads_per_sm": "16MiB"})";

}  // namespace

TEST_F(GpuTest, CarveoutSweepsEveryPreference) {
    json doc = run("carveout", kSmall);
    ASSERT_FALSE(doc.is_null());
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    const auto s = by_variant(doc);
    ASSERT_TRUE(s.count("carveout0"));
    ASSERT_TRUE(s.count("carveout100"));
    for (const auto &[name, series] : s) {
        ASSERT_EQ(series["points"].size(), 3u) << name;
        for (const json &p : series["points"]) {
            EXPECT_GT(p["values"]["read_gbs"].get<double>(), 0);
            EXPECT_GE(p["values"]["passes"].get<double>(), 1);
        }
        // 320 KiB fits no L1 of any GPU: reading it is slower than the fastest
        // working set that fits. (Not than 16 KiB itself: on an H100 at
        // carveout 0, one block per SM reads 16 KiB slower than 96 KiB, and
        // 320 KiB still hits L1 in part.)
        const json &pts = series["points"];
        double fastest = 0;
        for (const json &p : pts) fastest = std::max(fastest, p["values"]["read_gbs"].get<double>());
        EXPECT_LT(pts[2]["values"]["read_gbs"].get<double>(), 0.9 * fastest) << name;
    }
    const json &sum = doc["summary"];
    EXPECT_EQ(sum["carveout_preference_after"], sum["carveout_preference_found"]);
    if (device_info(ctx)["compute_capability"] == "9.0") {
        // 256 KiB per SM; 100% keeps 228 KiB of shared memory, 0% at least the
        // block's reserved kilobyte, which rounds up to 8 KiB.
        EXPECT_EQ(sum["unified_l1_shared_bytes"].get<double>(), 256 * 1024);
        EXPECT_EQ(sum["carveout100_l1_predicted_bytes"].get<double>(), 28 * 1024);
        EXPECT_EQ(sum["carveout0_l1_predicted_bytes"].get<double>(), 248 * 1024);
        // 48 KiB does not fit the 28 KiB that 100% leaves: it reads slower than 16 KiB.
        const json &full = s.at("carveout100")["points"];
        EXPECT_LT(full[1]["values"]["read_gbs"].get<double>(), 0.9 * full[0]["values"]["read_gbs"].get<double>());
        EXPECT_EQ(full[1]["predicted"]["fits"], 0);
        EXPECT_EQ(s.at("carveout0")["points"][1]["predicted"]["fits"], 1);
    }
}

TEST_F(GpuTest, CarveoutLeavesThePreferenceAsFound) {
    json first = run("carveout", kSmall);
    json second = run("carveout", kSmall);
    ASSERT_FALSE(first.is_null());
    ASSERT_FALSE(second.is_null());
    EXPECT_EQ(first["summary"]["carveout_preference_after"], first["summary"]["carveout_preference_found"]);
    EXPECT_EQ(second["summary"]["carveout_preference_found"], first["summary"]["carveout_preference_found"]);
}

TEST_F(GpuTest, CarveoutRefusesPreferencesOutsideZeroToHundred) {
    gm_result *r = nullptr;
    EXPECT_EQ(gm_run(&r, ctx, "carveout", R"({"carveouts": [50, 150]})"), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gm_context_last_error(ctx)).find("carveouts must be in 0..100, got 150"), std::string::npos)
        << gm_context_last_error(ctx);
    EXPECT_EQ(gm_run(&r, ctx, "carveout", R"({"carveouts": [-5]})"), GM_ERROR_INVALID_ARGUMENT);
    json doc = run("carveout", R"({"carveouts": [50], "working_sets_kib": [16], "reads_per_sm": "4MiB"})");
    ASSERT_FALSE(doc.is_null());
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
}
