// The cache_hints experiment on small sizes: every variant verified, the
// sector model's predictions exact, the L2 window and set-aside left as found,
// bad input refused, older GPUs told what they lack.
#include <set>
#include <string>

#include "gpu_fixture.hpp"

using nlohmann::json;

namespace {

constexpr const char *kSmall =
    R"({"reused_over_l2": 0.25, "stream_over_l2": 1.0, "strided_bytes": "8MiB", "strides": [64, 256]})";

class CacheHintsTest : public GpuTest {
protected:
    void SetUp() override {
        GpuTest::SetUp();
        if (HasFatalFailure()) return;
        cc80 = compute_capability_major(ctx) >= 8;
    }
    bool cc80 = false;
};

}  // namespace

TEST_F(CacheHintsTest, EveryVariantIsVerifiedAndTimed) {
    json doc = run("cache_hints", kSmall);
    ASSERT_FALSE(doc.is_null());
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    const auto s = by_variant(doc);
    std::set<std::string> hints = {"default", "stream_cs", "stream_l1_no_allocate"};
    if (cc80)
        hints.insert({"stream_evict_first", "reused_evict_last", "evict_first_last", "evict_first_last_set_aside",
                      "window_streaming", "window_persisting"});
    for (const std::string &h : hints) {
        ASSERT_TRUE(s.count(h)) << h << " missing; notes: " << doc["notes"].dump(1);
        const json &p = s.at(h)["points"][0];
        EXPECT_GT(p["time_ms"]["median"].get<double>(), 0) << h;
        EXPECT_GT(p["bandwidth_gbs"].get<double>(), 0) << h;
        EXPECT_GE(p["predicted"]["dram_bytes_unprotected"].get<double>(), p["predicted"]["dram_bytes_protected"].get<double>());
        if (h != "default") EXPECT_TRUE(doc["summary"].contains(h + "_speedup")) << h;
    }
    if (cc80) {
        // The window over the reused set asks no more lines to persist than the set-aside holds.
        const json &w = s.at("window_persisting")["points"][0]["values"];
        EXPECT_GT(w["set_aside_bytes"].get<double>(), 0);
        EXPECT_LE(w["hit_ratio"].get<double>(), 1.0);
        EXPECT_GT(w["hit_ratio"].get<double>(), 0.0);
    } else {
        EXPECT_FALSE(s.count("evict_first_last"));
        bool said = false;
        for (const json &n : doc["notes"]) said |= n.get<std::string>().find("compute capability 8.0") != std::string::npos;
        EXPECT_TRUE(said) << doc["notes"].dump(1);
    }
    // Strided reads: the model's DRAM bytes are exact arithmetic on the stride and the unit.
    for (const char *v : {"plain", "prefetch_l2", "prefetch_size_64", "prefetch_size_128"}) {
        ASSERT_TRUE(s.count(v)) << v;
        ASSERT_EQ(s.at(v)["points"].size(), 2u) << v;
    }
    if (s.count("granularity_32")) {
        for (const json &p : s.at("granularity_32")["points"]) {
            const double reads = p["values"]["reads"].get<double>();
            EXPECT_EQ(reads, (8 << 20) / p["x"].get<double>());
            EXPECT_EQ(p["predicted"]["sector_bytes"].get<double>(), reads * 32);
        }
    }
    if (s.count("prefetch_size_128")) {
        const json &p = s.at("prefetch_size_128")["points"][1];  // stride 256: a 128-byte unit per read
        EXPECT_EQ(p["x"].get<double>(), 256);
        EXPECT_EQ(p["predicted"]["dram_bytes_per_read"].get<double>(), 128);
    }
    EXPECT_TRUE(doc["summary"].contains("default_ms"));
}

TEST_F(CacheHintsTest, DramBytesAreAtLeastTheSectorsTouched) {
    std::string why;
    if (!count_every_point(ctx, &why)) GTEST_SKIP() << "counters not available: " << why;
    json doc = run("cache_hints", R"({"hints": ["default"], "prefetch": ["plain", "granularity_32", "granularity_128"],
                                      "strided_bytes": "16MiB", "strides": [256]})");
    ASSERT_FALSE(doc.is_null());
    for (const json &series : doc["series"])
        for (const json &p : series["points"]) {
            ASSERT_TRUE(p.contains("counters")) << series["variant"];
            if (p["predicted"].contains("sector_bytes"))
                EXPECT_GE(p["counters"]["dram__bytes_read.sum"].get<double>(), 0.9 * p["predicted"]["sector_bytes"].get<double>())
                    << series["variant"] << ": every read needs its sector from DRAM after the flush";
            else
                EXPECT_TRUE(p["counters"].contains("reused_hit_share"));
        }
}

TEST_F(CacheHintsTest, LeavesTheL2AsItFoundIt) {
    if (!cc80) GTEST_SKIP() << "L2 controls need compute capability 8.0";
    size_t granted = 0;
    ASSERT_EQ(gm_set_l2_persisting_size(&granted, ctx, 1 << 20), GM_OK);
    const size_t before = l2_state(ctx)["persisting_set_aside_bytes"];
    for (int i = 0; i < 2; ++i) {
        json doc = run("cache_hints", R"({"reused_over_l2": 0.25, "stream_over_l2": 1.0, "strided_bytes": "4MiB", "strides": [256],
                                          "prefetch": ["plain", "granularity_64"]})");
        ASSERT_FALSE(doc.is_null());
        EXPECT_EQ(doc["summary"]["set_aside_found_bytes"].get<double>(), static_cast<double>(before));
        const json after = l2_state(ctx);
        EXPECT_TRUE(after["window"].is_null()) << "run " << i;
        EXPECT_EQ(after["persisting_set_aside_bytes"].get<size_t>(), before) << "run " << i;
    }
    gm_set_l2_persisting_size(&granted, ctx, 0);
}

TEST_F(CacheHintsTest, RefusesBadInputAndStaysUsable) {
    gm_result *r = nullptr;
    EXPECT_EQ(gm_run(&r, ctx, "cache_hints", R"({"strides": [6]})"), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gm_context_last_error(ctx)).find("strides must be multiples of 4 bytes"), std::string::npos)
        << gm_context_last_error(ctx);
    EXPECT_EQ(gm_run(&r, ctx, "cache_hints", R"({"reused_over_l2": 1.0, "stream_over_l2": 0.5})"), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gm_context_last_error(ctx)).find("must be at least reused_over_l2"), std::string::npos)
        << gm_context_last_error(ctx);
    EXPECT_EQ(gm_run(&r, ctx, "cache_hints", R"({"hints": ["evict_all"]})"), GM_ERROR_INVALID_ARGUMENT);
    json doc = run("cache_hints", R"({"hints": ["default"], "prefetch": ["plain"], "reused_over_l2": 0.1, "stream_over_l2": 0.5,
                                      "strided_bytes": "2MiB", "strides": [64]})");
    ASSERT_FALSE(doc.is_null());
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    if (cc80) EXPECT_TRUE(l2_state(ctx)["window"].is_null());
}
