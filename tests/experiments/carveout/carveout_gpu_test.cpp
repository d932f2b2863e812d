// The carveout experiment on a short sweep: every block's reads verified, the
// model's L1 per carveout on known chips, L1 hits faster than L2 hits, the
// kernel's preference left as found, out-of-range carveouts refused.
#include <algorithm>
#include <string>

#include "gpu_fixture.hpp"

using nlohmann::json;

namespace {

constexpr const char *kCarveoutSmall = R"({"carveouts": [0, 100], "working_sets_kib": [16, 48, 320], "reads_per_sm": "16MiB"})";

}  // namespace

TEST_F(GpuTest, CarveoutSweepsEveryPreference) {
    json doc = run("carveout", kCarveoutSmall);
    ASSERT_FALSE(doc.is_null());
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    const auto s = by_variant(doc);
    ASSERT_TRUE(s.count("carveout0"));
    ASSERT_TRUE(s.count("carveout100"));
    for (const auto &[name, series] : s) {
        ASSERT_EQ(series["points"].size(), 3u) << name;
        if (name == "chase") continue;  // latency, checked below
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
        // The chase finds the same: 48 KiB misses the L1 of 100% and hits that of 0%.
        EXPECT_LT(sum["carveout0_chase_l1_cycles"].get<double>(), 100);
        for (const json &c : doc["series"]) {
            if (c["variant"] != "chase") continue;
            const json &pts = c["points"];
            const double at16 = pts[0]["values"]["latency_cycles"].get<double>(), at48 = pts[1]["values"]["latency_cycles"].get<double>();
            if (c["attributes"]["carveout_percent"] == 0) EXPECT_LT(at48, 1.2 * at16);
            if (c["attributes"]["carveout_percent"] == 100) EXPECT_GT(at48, 2 * at16);
        }
    }
}

// 50%: the L1 the preference leaves (124 KiB by the model) holds 96 KiB, by
// bandwidth and by latency; the same reads from a kernel with 256 bytes of
// static shared memory get the largest shared configuration instead (seen on
// an H200), so 96 KiB falls out of their L1.
TEST_F(GpuTest, CarveoutFiftyPercentLeavesItsL1) {
    json doc = run("carveout", R"({"carveouts": [50], "working_sets_kib": [16, 96, 320], "reads_per_sm": "16MiB"})");
    ASSERT_FALSE(doc.is_null());
    if (device_info(ctx)["compute_capability"] != "9.0") GTEST_SKIP() << "the model's sizes are Hopper's";
    const auto s = by_variant(doc);
    const json &reads = s.at("carveout50")["points"];
    EXPECT_GT(reads[1]["values"]["read_gbs"].get<double>(), 0.75 * reads[0]["values"]["read_gbs"].get<double>());
    const json &sum = doc["summary"];
    EXPECT_EQ(sum["carveout50_chase_fits_bytes"].get<double>(), 96 * 1024);
    ASSERT_TRUE(s.count("with_shared"));
    const json &shared = s.at("with_shared")["points"];
    EXPECT_LT(shared[1]["values"]["read_gbs"].get<double>(), 0.75 * shared[0]["values"]["read_gbs"].get<double>());
}

TEST_F(GpuTest, CarveoutLeavesThePreferenceAsFound) {
    json first = run("carveout", kCarveoutSmall);
    json second = run("carveout", kCarveoutSmall);
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
