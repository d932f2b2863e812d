// Hardware counters against the guide's models, on the device: where the model
// is exact, the counter must equal it at every point.
#include <cmath>
#include <string>

#include "gpu_fixture.hpp"

namespace {

class CountersTest : public GpuTest {
protected:
    void SetUp() override {
        GpuTest::SetUp();
        if (HasFatalFailure()) return;
        int available = 0;
        char *reason = nullptr;
        ASSERT_EQ(gm_counters_available(&available, &reason, ctx), GM_OK) << gm_context_last_error(ctx);
        const std::string why = reason ? reason : "";
        gm_free_string(reason);
        if (!available) GTEST_SKIP() << "hardware counters are not available: " << why;
        ASSERT_EQ(gm_context_set(ctx, GM_SETTING_COUNTERS, GM_COUNTERS_ON), GM_OK);
        ASSERT_EQ(gm_context_set(ctx, GM_SETTING_MIN_REPETITIONS, 1), GM_OK);
        ASSERT_EQ(gm_context_set(ctx, GM_SETTING_WARMUP, 0), GM_OK);
    }

    // Every point of every series: counters.<counter> == predicted.<model>, and
    // the result's agreement figures say the same.
    void expect_exact(const nlohmann::json &doc, const std::string &counter, const std::string &model) {
        ASSERT_TRUE(doc["counters"]["available"].get<bool>()) << doc["counters"].dump();
        int points = 0;
        for (const auto &s : doc["series"]) {
            for (const auto &p : s["points"]) {
                ASSERT_TRUE(p.contains("counters")) << s["name"] << " x=" << p["x"];
                ASSERT_TRUE(p["counters"].contains(counter)) << p["counters"].dump();
                EXPECT_DOUBLE_EQ(p["counters"][counter].get<double>(), p["predicted"][model].get<double>())
                    << doc["experiment"]["name"] << " " << s["name"] << " x=" << p["x"] << " " << counter;
                ++points;
            }
            EXPECT_EQ(s["agreement"][counter]["agreeing"], s["agreement"][counter]["points"]) << s["name"];
        }
        EXPECT_GT(points, 0);
        EXPECT_DOUBLE_EQ(doc["summary"]["model_agreement"].get<double>(), 1.0);
    }
};

TEST_F(CountersTest, OffsetCopySectorsPerRequestEqualTheModelAtEveryOffsetAndWordSize) {
    const auto doc = run("offset_copy", R"({"offsets": "0..32", "word_sizes": [4, 8, 16], "elements": 1048576})");
    expect_exact(doc, "sectors_per_request_ld", "sectors_per_request");
    expect_exact(doc, "sectors_per_request_st", "sectors_per_request");
}

TEST_F(CountersTest, StrideCopySectorsPerRequestEqualTheModelAtEveryStrideAndWordSize) {
    const auto doc = run("stride_copy", R"({"strides": "1..32", "word_sizes": [4, 8, 16], "elements": 1048576})");
    expect_exact(doc, "sectors_per_request_ld", "sectors_per_request");
    expect_exact(doc, "sectors_per_request_st", "sectors_per_request");
}

TEST_F(CountersTest, CountsThroughTheCApiAndLeaveTimingAlone) {
    gm_result *r = nullptr;
    ASSERT_EQ(gm_run(&r, ctx, "stride_copy", R"({"strides": [1, 2], "word_sizes": [4], "variants": ["guide"], "elements": 4194304})"),
              GM_OK)
        << gm_context_last_error(ctx);
    double spr = 0, dram = 0, reps = 0;
    EXPECT_EQ(gm_result_point_value(&spr, r, 0, 1, "counters.sectors_per_request_ld"), GM_OK) << gm_last_error();
    EXPECT_EQ(spr, 8.0);
    EXPECT_EQ(gm_result_point_value(&dram, r, 0, 0, "counters.dram__bytes_read.sum"), GM_OK) << gm_last_error();
    // Stride 1 reads each of the 16 MiB once from DRAM (after the L2 flush), give or take a few lines.
    EXPECT_NEAR(dram, 4194304.0 * 4, 0.02 * 4194304.0 * 4);
    EXPECT_EQ(gm_result_point_value(&reps, r, 0, 0, "repetitions"), GM_OK);
    EXPECT_EQ(reps, 1.0);  // the counted launch is not a timed one
    gm_result_destroy(r);
}

// auto counts within a fifth of the experiment's other time: the first point
// always, then only while the budget allows; what was counted still agrees.
TEST_F(CountersTest, AutoCountsWithinItsShareOfTheTime) {
    ASSERT_EQ(gm_context_set(ctx, GM_SETTING_COUNTERS, GM_COUNTERS_AUTO), GM_OK);
    ASSERT_EQ(gm_context_set(ctx, GM_SETTING_MIN_TIME_MS, 2), GM_OK);
    const auto doc = run("offset_copy", R"({"offsets": "0..32", "word_sizes": [4], "elements": 1048576})");
    ASSERT_TRUE(doc["counters"]["available"].get<bool>()) << doc["counters"].dump();
    EXPECT_EQ(doc["counters"]["mode"], "auto");
    EXPECT_TRUE(doc["series"][0]["points"][0].contains("counters")) << "the first point is always counted";
    int points = 0, counted = 0;
    for (const auto &s : doc["series"]) {
        for (const auto &p : s["points"]) {
            ++points;
            if (!p.contains("counters")) continue;
            ++counted;
            EXPECT_EQ(p["counters"]["sectors_per_request_ld"].get<double>(), p["predicted"]["sectors_per_request"].get<double>());
        }
    }
    ASSERT_GE(points, 33);
    // A count (three replay passes) costs far more than timing a 2 ms point.
    EXPECT_LT(counted, points);
    EXPECT_EQ(doc["counters"]["points_skipped"].get<int>(), points - counted);
}

TEST_F(CountersTest, OffMeansNoCountersAndAReason) {
    ASSERT_EQ(gm_context_set(ctx, GM_SETTING_COUNTERS, GM_COUNTERS_OFF), GM_OK);
    const auto doc = run("offset_copy", R"({"offsets": [0, 1], "word_sizes": [4], "elements": 65536})");
    EXPECT_FALSE(doc["counters"]["available"].get<bool>());
    EXPECT_EQ(doc["counters"]["mode"], "off");
    EXPECT_FALSE(doc["series"][0]["points"][0].contains("counters"));
    EXPECT_FALSE(doc["summary"].contains("model_agreement"));
}

}  // namespace

namespace {

TEST_F(CountersTest, BankConflictWavefrontsEqualTheModelAtEveryStride) {
    const auto doc = run("bank_conflicts", R"({"iterations": 64, "blocks_per_sm": 1})");
    ASSERT_TRUE(doc["counters"]["available"].get<bool>()) << doc["counters"].dump();
    int compared = 0;
    for (const auto &s : doc["series"]) {
        if (s["variant"] != "read") continue;
        for (const auto &p : s["points"]) {
            EXPECT_DOUBLE_EQ(p["counters"]["wavefronts_per_request_ld"].get<double>(), p["predicted"]["wavefronts"].get<double>())
                << s["name"] << " stride " << p["x"];
            ++compared;
        }
    }
    EXPECT_GT(compared, 30);
}

TEST_F(CountersTest, LocalSectorsEqualTheModel) {
    const auto doc = run("local_memory", "{}");
    ASSERT_TRUE(doc["counters"]["available"].get<bool>()) << doc["counters"].dump();
    for (const auto &s : doc["series"]) {
        const auto &p = s["points"][0];
        const double predicted = p["predicted"]["local_sectors_per_request"].get<double>();
        if (predicted == 0) {
            EXPECT_EQ(p["counters"]["l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum"].get<double>(), 0.0) << s["name"];
        } else if (s["variant"] == "uniform") {
            // One index for the whole warp: exactly the model.
            EXPECT_DOUBLE_EQ(p["counters"]["local_sectors_per_request_ld"].get<double>(), predicted) << s["name"];
            EXPECT_DOUBLE_EQ(p["counters"]["local_sectors_per_request_st"].get<double>(), predicted) << s["name"];
        } else {
            // An index per lane: the model is an upper bound (lanes may share a sector).
            const double ld = p["counters"]["local_sectors_per_request_ld"].get<double>();
            EXPECT_LE(ld, predicted) << s["name"];
            EXPECT_GE(ld, 0.9 * predicted) << s["name"];
        }
    }
}

}  // namespace
