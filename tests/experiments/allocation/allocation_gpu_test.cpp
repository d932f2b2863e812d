// The allocation experiment on small sizes: every series verified and timed,
// the models beside the measurements, bad input refused before anything is
// allocated, the context usable after.
#include <string>

#include "gpu_fixture.hpp"

using nlohmann::json;

namespace {

bool contains(const std::string &s, const std::string &part) { return s.find(part) != std::string::npos; }

constexpr const char *kSmall = R"({"max_size": "1MiB", "host_min_size": "64KiB", "host_max_size": "1MiB", "points_per_octave": 0.25})";

}  // namespace

class Allocation : public GpuTest {
protected:
    void expect_error(gm_status want, const char *params, const std::string &part) {
        gm_result *r = reinterpret_cast<gm_result *>(0x1);
        EXPECT_EQ(gm_run(&r, ctx, "allocation", params), want) << gm_context_last_error(ctx);
        EXPECT_EQ(r, nullptr);
        EXPECT_TRUE(contains(gm_context_last_error(ctx), part)) << gm_context_last_error(ctx);
        json doc = run("allocation", R"({"max_size": 4096, "host_min_size": 4096, "host_max_size": 8192})");
        ASSERT_FALSE(doc.is_null());
        EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    }
};

TEST_F(Allocation, EverySeriesIsVerifiedAndModelled) {
    json doc = run("allocation", kSmall);
    ASSERT_FALSE(doc.is_null());
    expect_sane_points(doc);
    const auto series = by_variant(doc);
    // 256 B, 4 KiB, 64 KiB, 1 MiB on the device; 64 KiB and 1 MiB on the host.
    for (const char *v : {"malloc", "pool_default", "pool_threshold", "memset"}) {
        ASSERT_TRUE(series.count(v)) << v;
        EXPECT_EQ(series.at(v)["points"].size(), 4u) << v;
        EXPECT_EQ(series.at(v)["points"][0]["x"], 256) << v;
        EXPECT_EQ(series.at(v)["y"]["field"], "us_per_call") << v;
        for (const json &p : series.at(v)["points"]) EXPECT_GT(p["values"]["us_per_call"].get<double>(), 0) << v;
    }
    for (const char *v : {"malloc_host", "host_register", "first_touch"}) {
        ASSERT_TRUE(series.count(v)) << v;
        EXPECT_EQ(series.at(v)["points"].size(), 2u) << v;
        // The page-cost fit is beside every point, and its constants among the key figures.
        for (const json &p : series.at(v)["points"]) EXPECT_TRUE(p["predicted"].contains("model_us")) << v;
        EXPECT_TRUE(doc["summary"].contains(std::string(v) + "_ms_per_gib")) << v;
    }
    // The pooled model: one cost for every size.
    for (const json &p : series.at("pool_threshold")["points"])
        EXPECT_DOUBLE_EQ(p["predicted"]["model_us"].get<double>(), doc["summary"]["pool_threshold_us"].get<double>());
    EXPECT_GE(doc["summary"]["pool_threshold_max_over_min"].get<double>(), 1.0);
    EXPECT_EQ(doc["summary"]["pool_release_threshold_bytes"].get<double>(), 1 << 20);  // 0 asks for max_size
    EXPECT_TRUE(doc["summary"].contains("memset_gbs_largest"));
    EXPECT_TRUE(doc["summary"].contains("malloc_over_pool_threshold_largest"));
}

TEST_F(Allocation, OddSizesAreVerifiedByteForByte) {
    json doc = run("allocation", R"({"min_size": 1, "max_size": 1001, "points_per_octave": 0.5, "series": ["malloc", "memset"]})");
    ASSERT_FALSE(doc.is_null());
    const auto series = by_variant(doc);
    ASSERT_EQ(series.size(), 2u);
    const json &pts = series.at("memset")["points"];
    EXPECT_EQ(pts.front()["x"], 1);
    EXPECT_EQ(pts.back()["x"], 1001);
}

TEST_F(Allocation, BadInputIsRefusedNamingTheParameter) {
    // A threshold beyond the device's memory (the parameter's own bound allows 1 TiB).
    expect_error(GM_ERROR_INVALID_ARGUMENT, R"({"max_size": 4096, "pool_release_threshold": "1024GiB"})",
                 "pool_release_threshold must be in 0..");
    expect_error(GM_ERROR_INVALID_ARGUMENT, R"({"min_size": 8192, "max_size": 4096})", "min_size (8192) must not exceed max_size (4096)");
    expect_error(GM_ERROR_INVALID_ARGUMENT, R"({"host_min_size": "2MiB", "host_max_size": "1MiB"})",
                 "host_min_size (2097152) must not exceed host_max_size (1048576)");
    // More than the device or the host allows: said before anything is allocated.
    expect_error(GM_ERROR_OUT_OF_MEMORY, R"({"max_size": "1024GiB", "series": ["malloc"]})", "of device memory");
    expect_error(GM_ERROR_OUT_OF_MEMORY, R"({"host_max_size": "1024GiB", "series": ["malloc_host"]})", "of host memory");
}
