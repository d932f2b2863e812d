// tma_copy on small inputs: every path verified, the references beside it,
// bad sizes refused with the range; not applicable below compute capability 9.0.
#include <cmath>
#include <string>

#include "gpu_fixture.hpp"

using nlohmann::json;

namespace {

bool hopper_or_newer(gm_context *ctx) { return compute_capability_major(ctx) >= 9; }

}  // namespace

TEST_F(GpuTest, TmaCopyVerifiesEveryPathAgainstTheReferences) {
    json doc = run("tma_copy", R"({"array_bytes": "16MiB", "sizes": [1024, 16384], "stages": [1, 2]})");
    ASSERT_FALSE(doc.is_null());
    if (!hopper_or_newer(ctx)) {
        EXPECT_EQ(doc["applicable"], false);
        EXPECT_NE(doc["notes"][0].get<std::string>().find("compute capability 9.0"), std::string::npos);
        return;
    }
    expect_sane_points(doc);
    // bulk, tensor and cp.async at 1 and 2 stages, registers at 1; then the stream copy and cudaMemcpy.
    std::map<std::string, int> variants;
    for (const json &s : doc["series"]) ++variants[s["variant"].get<std::string>()];
    const bool tensor = variants.count("tensor") > 0;
    EXPECT_EQ(variants["bulk"], 2);
    EXPECT_EQ(variants["cp_async"], 2);
    EXPECT_EQ(variants["registers"], 1);
    EXPECT_EQ(variants["copy"], 1);
    EXPECT_EQ(variants["cudaMemcpy"], 1);
    if (tensor) EXPECT_EQ(variants["tensor"], 2);
    for (const json &s : doc["series"]) {
        if (s["variant"] == "copy" || s["variant"] == "cudaMemcpy") continue;
        ASSERT_EQ(s["points"].size(), 2u) << s["name"];
        EXPECT_DOUBLE_EQ(s["points"][0]["x"].get<double>(), 1.0);   // KiB
        EXPECT_DOUBLE_EQ(s["points"][1]["x"].get<double>(), 16.0);
        for (const json &p : s["points"]) {
            EXPECT_GE(p["values"]["blocks_per_sm"].get<double>(), 1);
            EXPECT_GT(p["predicted"]["inst_per_byte_floor"].get<double>(), 0);
        }
    }
    const json &sum = doc["summary"];
    for (const char *k : {"tma_gbs", "stream_copy_gbs", "memcpy_gbs", "tma_over_memcpy", "tma_over_stream_copy",
                          "bulk_best_gbs", "cp_async_best_gbs", "registers_best_gbs", "tma_over_cp_async_inst_floor"})
        EXPECT_TRUE(sum.contains(k)) << k << " " << sum.dump();
    EXPECT_DOUBLE_EQ(sum["tma_over_memcpy"].get<double>(), sum["tma_gbs"].get<double>() / sum["memcpy_gbs"].get<double>());
    EXPECT_EQ(sum["array_bytes"].get<double>(), 16.0 * 1024 * 1024);
}

TEST_F(GpuTest, TmaCopyRefusesSizesBeyondSharedMemory) {
    if (!hopper_or_newer(ctx)) GTEST_SKIP() << "not applicable below compute capability 9.0";
    gm_result *r = nullptr;
    EXPECT_EQ(gm_run(&r, ctx, "tma_copy", R"({"array_bytes": "4MiB", "sizes": [65536], "stages": [4]})"), GM_ERROR_INVALID_ARGUMENT);
    std::string e = gm_context_last_error(ctx);
    EXPECT_NE(e.find("stages x sizes: 4 stages of 65536 bytes"), std::string::npos) << e;
    EXPECT_NE(e.find("sizes must be in 16.."), std::string::npos) << e;
    EXPECT_EQ(gm_run(&r, ctx, "tma_copy", R"({"array_bytes": "4MiB", "sizes": [131072], "stages": [1], "paths": ["tensor"]})"),
              GM_ERROR_INVALID_ARGUMENT);
    e = gm_context_last_error(ctx);
    EXPECT_NE(e.find("at most 256 rows"), std::string::npos) << e;
    EXPECT_EQ(gm_run(&r, ctx, "tma_copy", R"({"array_bytes": "4MiB", "sizes": [65536], "stages": [1], "paths": ["tensor"]})"),
              GM_ERROR_INVALID_ARGUMENT);
    e = gm_context_last_error(ctx);
    // 4 MiB is 128 rows of 8192 elements: a 64 KiB tile of 256 rows does not divide it.
    EXPECT_NE(e.find("the tile does not divide the array"), std::string::npos) << e;
}

// grid = one_pass: each TMA block copies `stages` consecutive chunks once (3
// stages do not divide the chunks: the last block has fewer), verified like
// the persistent ring; the thread paths keep their persistent grid.
TEST_F(GpuTest, TmaCopyOnePassGridCoversTheArray) {
    if (!hopper_or_newer(ctx)) GTEST_SKIP() << "not applicable below compute capability 9.0";
    json doc = run("tma_copy", R"({"array_bytes": "16MiB", "sizes": [4096, 16384], "stages": [1, 3],
                                   "paths": ["bulk", "tensor", "cp_async"], "grid": "one_pass"})");
    ASSERT_FALSE(doc.is_null());
    expect_sane_points(doc);
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    int one_pass = 0;
    for (const json &s : doc["series"]) {
        const std::string v = s["variant"].get<std::string>();
        if (v != "bulk" && v != "tensor" && v != "cp_async") continue;
        const bool tma = v != "cp_async";
        EXPECT_EQ(s["attributes"]["grid"], tma ? "one_pass" : "persistent") << s["name"];
        if (!tma) continue;
        ++one_pass;
        const int stages = s["attributes"]["stages"].get<int>();
        for (const json &p : s["points"]) {
            // One block per `stages` chunks (tiles) of the array.
            const double chunks = 16.0 * 1024 * 1024 / p["values"]["size_bytes"].get<double>();
            EXPECT_DOUBLE_EQ(p["values"]["blocks"].get<double>(), std::ceil(chunks / stages)) << s["name"];
        }
    }
    EXPECT_GE(one_pass, 2);
}
