// Every experiment on small inputs: output verified, statistics consistent,
// predictions where the guide makes them.
#include "gpu_fixture.hpp"

using nlohmann::json;

namespace {

void expect_sane_points(const json &doc) {
    ASSERT_TRUE(doc["verification"]["passed"].get<bool>());
    EXPECT_GT(doc["verification"]["elements_checked"].get<double>(), 0);
    EXPECT_GT(doc["memory"]["device_bytes_allocated"].get<double>(), 0);
    EXPECT_LE(doc["memory"]["device_bytes_allocated"].get<double>(), doc["memory"]["budget_bytes"].get<double>());
    EXPECT_GT(doc["reference"]["memcpy_d2d_gbs"].get<double>(), 0);
    for (const json &s : doc["series"]) {
        for (const json &p : s["points"]) {
            const json &t = p["time_ms"];
            EXPECT_GE(t["n"].get<int>(), 3);
            EXPECT_EQ(t["samples"].size(), t["n"].get<size_t>());
            // The deciles: nine, in order, between min and max.
            ASSERT_EQ(t["quantiles"].size(), 9u);
            for (std::size_t k = 0; k < 9; ++k) {
                EXPECT_GE(t["quantiles"][k].get<double>(), t["min"].get<double>() * (1 - 1e-5));
                EXPECT_LE(t["quantiles"][k].get<double>(), t["max"].get<double>() * (1 + 1e-5));
                if (k) {
                    EXPECT_LE(t["quantiles"][k - 1].get<double>(), t["quantiles"][k].get<double>());
                }
            }
            EXPECT_GT(t["min"].get<double>(), 0);
            EXPECT_LE(t["min"].get<double>(), t["median"].get<double>());
            EXPECT_LE(t["median"].get<double>(), t["max"].get<double>());
            EXPECT_GT(p["bandwidth_gbs"].get<double>(), 0);
        }
    }
}

json to_doc_form(const gm_result *r, gm_samples form) {
    char *text = nullptr;
    EXPECT_EQ(gm_result_to_json_samples(&text, r, form), GM_OK);
    json doc = json::parse(text);
    gm_free_string(text);
    return doc;
}

const json *series_named(const json &doc, const std::string &name) {
    for (const json &s : doc["series"])
        if (s["name"] == name) return &s;
    return nullptr;
}

}  // namespace

TEST_F(GpuTest, StreamVerifiesAndComparesWithMemcpy) {
    json doc = run("stream", R"({"array_bytes": "16MiB"})");
    ASSERT_FALSE(doc.is_null());
    expect_sane_points(doc);
    EXPECT_EQ(doc["series"].size(), 5u);  // copy, scale, add, triad, cudaMemcpy
    EXPECT_TRUE(doc["summary"].contains("copy_over_memcpy"));
    const json *add = series_named(doc, "add");
    ASSERT_NE(add, nullptr);
    EXPECT_EQ((*add)["points"][0]["bytes"].get<double>(), 3.0 * 16 * 1024 * 1024);
}

TEST_F(GpuTest, StreamHonoursKernelAndUnrollChoices) {
    for (int unroll : {1, 2, 8}) {
        json doc = run("stream", R"({"array_bytes": "4MiB", "kernels": "triad", "include_memcpy": false, "unroll": )" +
                                     std::to_string(unroll) + "}");
        ASSERT_FALSE(doc.is_null());
        ASSERT_EQ(doc["series"].size(), 1u);
        EXPECT_EQ(doc["series"][0]["attributes"]["unroll"].get<int>(), unroll);
    }
}

TEST_F(GpuTest, OffsetCopyPredictsOneMoreSectorWhenMisaligned) {
    json doc = run("offset_copy", R"({"elements": 1000003, "offsets": "0,1,8,31,32", "word_sizes": [4, 16]})");
    ASSERT_FALSE(doc.is_null());
    expect_sane_points(doc);
    EXPECT_EQ(doc["series"].size(), 4u);  // guide and ilp4 for two word sizes
    const json *s = series_named(doc, "guide, 4-byte words");
    ASSERT_NE(s, nullptr);
    EXPECT_EQ((*s)["points"][0]["predicted"]["sectors_per_request"].get<int>(), 4);
    EXPECT_EQ((*s)["points"][1]["predicted"]["sectors_per_request"].get<int>(), 5);
    EXPECT_EQ((*s)["points"][2]["predicted"]["sectors_per_request"].get<int>(), 4);  // 32 bytes: aligned again
    EXPECT_TRUE(doc["summary"].contains("guide_w4_offset1_over_offset0"));
}

TEST_F(GpuTest, StrideCopyCoversEveryWordSize) {
    json doc = run("stride_copy", R"({"elements": 500001, "strides": [1, 2, 7, 32]})");
    ASSERT_FALSE(doc.is_null());
    expect_sane_points(doc);
    EXPECT_EQ(doc["series"].size(), 6u);
    const json *s = series_named(doc, "guide, 4-byte words");
    ASSERT_NE(s, nullptr);
    EXPECT_EQ((*s)["points"][0]["predicted"]["sectors_per_request"].get<int>(), 4);
    EXPECT_EQ((*s)["points"][1]["predicted"]["sectors_per_request"].get<int>(), 8);
    EXPECT_EQ((*s)["points"][3]["predicted"]["sectors_per_request"].get<int>(), 32);
    // Striding by 32 words cannot be faster than the contiguous copy.
    EXPECT_LT((*s)["points"][3]["bandwidth_gbs"].get<double>(), (*s)["points"][0]["bandwidth_gbs"].get<double>());
}

TEST_F(GpuTest, TypedWrappersMatchTheGenericEntryPoint) {
    gm_stride_copy_params p;
    gm_stride_copy_params_init(&p);
    p.elements = 100000;
    p.min_stride = 3;
    p.max_stride = 4;
    p.word_size = 8;
    p.variants = GM_COPY_GUIDE;
    gm_result *r = nullptr;
    ASSERT_EQ(gm_run_stride_copy(&r, ctx, &p), GM_OK) << gm_context_last_error(ctx);
    EXPECT_STREQ(gm_result_experiment(r), "stride_copy");
    ASSERT_EQ(gm_result_series_count(r), 1u);
    EXPECT_STREQ(gm_result_series_name(r, 0), "guide, 8-byte words");
    ASSERT_EQ(gm_result_point_count(r, 0), 2u);
    double x = 0, sectors = 0, bw = 0;
    EXPECT_EQ(gm_result_point_value(&x, r, 0, 1, "x"), GM_OK);
    EXPECT_EQ(x, 4);
    EXPECT_EQ(gm_result_point_value(&sectors, r, 0, 1, "predicted.sectors_per_request"), GM_OK);
    EXPECT_EQ(sectors, 32);
    EXPECT_EQ(gm_result_point_value(&bw, r, 0, 0, "bandwidth_gbs"), GM_OK);
    EXPECT_GT(bw, 0);
    gm_result_destroy(r);

    gm_offset_copy_params o;
    gm_offset_copy_params_init(&o);
    o.elements = 100000;
    o.max_offset = 1;
    ASSERT_EQ(gm_run_offset_copy(&r, ctx, &o), GM_OK) << gm_context_last_error(ctx);
    EXPECT_EQ(gm_result_series_count(r), 2u);
    gm_result_destroy(r);

    gm_stream_params s;
    gm_stream_params_init(&s);
    s.array_bytes = 1 << 20;
    s.include_memcpy = 0;
    ASSERT_EQ(gm_run_stream(&r, ctx, &s), GM_OK) << gm_context_last_error(ctx);
    EXPECT_EQ(gm_result_series_count(r), 4u);
    gm_result_destroy(r);
}

TEST_F(GpuTest, RepetitionSettingsBoundTheSampleCount) {
    ASSERT_EQ(gm_context_set(ctx, GM_SETTING_MIN_REPETITIONS, 5), GM_OK);
    ASSERT_EQ(gm_context_set(ctx, GM_SETTING_MAX_REPETITIONS, 5), GM_OK);
    ASSERT_EQ(gm_context_set(ctx, GM_SETTING_FLUSH_L2, 0), GM_OK);
    json doc = run("offset_copy", R"({"elements": 65536, "offsets": [0], "variants": ["guide"]})");
    ASSERT_FALSE(doc.is_null());
    EXPECT_EQ(doc["series"][0]["points"][0]["time_ms"]["n"].get<int>(), 5);
    EXPECT_EQ(doc["settings"]["flush_l2"].get<bool>(), false);
}

TEST_F(GpuTest, ResultSurvivesAJsonRoundTrip) {
    gm_result *r = nullptr;
    ASSERT_EQ(gm_run(&r, ctx, "offset_copy", R"({"elements": 65536, "offsets": "0..2"})"), GM_OK);
    char *text = nullptr;
    ASSERT_EQ(gm_result_to_json(&text, r), GM_OK);
    gm_result *back = nullptr;
    ASSERT_EQ(gm_result_from_json(&back, text), GM_OK) << gm_last_error();
    gm_free_string(text);
    double a = 0, b = 0;
    ASSERT_EQ(gm_result_point_value(&a, r, 1, 2, "median_ms"), GM_OK);
    ASSERT_EQ(gm_result_point_value(&b, back, 1, 2, "median_ms"), GM_OK);
    EXPECT_EQ(a, b);
    // Written compact by default: no samples, the deciles kept; the full form has both.
    const json compact = to_doc_form(back, GM_SAMPLES_SUMMARY), full = to_doc_form(r, GM_SAMPLES_ALL);
    EXPECT_EQ(compact["schema"], "gmlab.result/1.1");
    const json &ct = compact["series"][1]["points"][2]["time_ms"], &ft = full["series"][1]["points"][2]["time_ms"];
    EXPECT_FALSE(ct.contains("samples"));
    EXPECT_EQ(ft["samples"].size(), ft["n"].get<size_t>());
    EXPECT_EQ(ct["quantiles"], ft["quantiles"]);
    double p50 = 0;
    ASSERT_EQ(gm_result_point_value(&p50, back, 1, 2, "p50_ms"), GM_OK);
    EXPECT_NEAR(p50, b, 1e-5 * b);
    gm_result_destroy(r);
    gm_result_destroy(back);
}
