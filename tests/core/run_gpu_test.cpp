// Any experiment through the C API: the typed wrappers equal the generic entry
// point, the repetition settings bound the sample count, a result survives a
// JSON round trip, and every experiment reports its kernel resources.
#include <string>

#include "gpu_fixture.hpp"

using nlohmann::json;

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
    EXPECT_EQ(compact["schema"], "gmlab.result/1.3");
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

TEST_F(GpuTest, EveryExperimentReportsItsKernelResources) {
    for (size_t i = 0; i < gm_experiment_count(); ++i) {
        const std::string name = gm_experiment_name(i);
        char *out = nullptr;
        ASSERT_EQ(gm_kernel_resources_json(&out, ctx, name.c_str()), GM_OK) << name << ": " << gm_context_last_error(ctx);
        const json d = json::parse(out);
        gm_free_string(out);
        // transfer and transfer_batching only copy: no kernel of their own.
        if (name == "transfer" || name == "transfer_batching") {
            EXPECT_TRUE(d["kernels"].empty()) << name;
            continue;
        }
        ASSERT_FALSE(d["kernels"].empty()) << name;
        for (const json &k : d["kernels"]) {
            EXPECT_GT(k["registers"].get<int>(), 0) << name << " " << k["name"];
            EXPECT_GT(k["max_threads_per_block"].get<int>(), 0) << name << " " << k["name"];
        }
    }
    char *out = nullptr;
    ASSERT_EQ(gm_kernel_resources_json(&out, ctx, "shared_alloc"), GM_OK);
    const json d = json::parse(out);
    gm_free_string(out);
    EXPECT_EQ(d["kernels"][0]["shared_static_bytes"].get<int>(), 1024);  // static_reverse: __shared__ int s[256]
    EXPECT_EQ(d["kernels"][1]["shared_static_bytes"].get<int>(), 0);
    ASSERT_EQ(gm_kernel_resources_json(&out, ctx, nullptr), GM_OK);
    gm_free_string(out);
    EXPECT_EQ(gm_kernel_resources_json(&out, ctx, "nope"), GM_ERROR_UNKNOWN_EXPERIMENT);
    EXPECT_EQ(out, nullptr);
    EXPECT_EQ(gm_kernel_resources_json(nullptr, ctx, "stream"), GM_ERROR_INVALID_ARGUMENT);
}
