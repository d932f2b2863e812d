// Reading result documents: committed result files from real GPUs, and
// malformed input.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gmlab.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string read_file(const fs::path &p) {
    std::ifstream f(p);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

}  // namespace

TEST(ResultFiles, CommittedRunsLoadThroughTheCApi) {
    const fs::path dir = fs::path(GM_SOURCE_DIR) / "results";
    int results_seen = 0;
    if (!fs::is_directory(dir)) GTEST_SKIP() << "no results folder";
    for (const auto &entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() != ".json") continue;
        const json run = json::parse(read_file(entry.path()));
        ASSERT_EQ(run["schema"], "gmlab.run/1") << entry.path();
        for (json r : run["results"]) {
            r["device"] = run["device"];
            gm_result *res = nullptr;
            ASSERT_EQ(gm_result_from_json(&res, r.dump().c_str()), GM_OK) << gm_last_error();
            // Only a result that says it was not applicable (peer on one GPU) has no series.
            const bool applicable = r.value("applicable", true);
            EXPECT_EQ(gm_result_series_count(res) > 0, applicable) << entry.path() << " " << r["experiment"]["name"];
            for (size_t s = 0; s < gm_result_series_count(res); ++s) {
                ASSERT_NE(gm_result_series_name(res, s), nullptr);
                for (size_t p = 0; p < gm_result_point_count(res, s); ++p) {
                    double median = 0, headline = 0;
                    ASSERT_EQ(gm_result_point_value(&median, res, s, p, "median_ms"), GM_OK);
                    EXPECT_GT(median, 0);
                    const char *field = gm_result_series_info(res, s, "y.field");
                    ASSERT_NE(field, nullptr);
                    ASSERT_EQ(gm_result_point_value(&headline, res, s, p, field), GM_OK) << field;
                    EXPECT_GE(headline, 0);  // bandwidths and times are positive; an error can be 0
                    if (std::string(field) == "bandwidth_gbs") EXPECT_GT(headline, 0);
                }
            }
            char *text = nullptr;
            ASSERT_EQ(gm_result_to_json(&text, res), GM_OK);
            EXPECT_EQ(json::parse(text), r);  // nothing lost on the way through
            gm_free_string(text);
            gm_result_destroy(res);
            ++results_seen;
        }
    }
    if (results_seen == 0) GTEST_SKIP() << "no committed result files yet";
}

TEST(ResultFiles, RunDocumentsAreReadResultByResult) {
    const fs::path file = fs::path(GM_SOURCE_DIR) / "results" / "nvidia-h200.json";
    if (!fs::exists(file)) GTEST_SKIP() << "no committed H200 run";
    const std::string text = read_file(file);
    size_t n = 0;
    ASSERT_EQ(gm_run_document_result_count(&n, text.c_str()), GM_OK) << gm_last_error();
    ASSERT_GE(n, 3u);
    gm_result *r = nullptr;
    ASSERT_EQ(gm_result_from_run_json(&r, text.c_str(), 2), GM_OK) << gm_last_error();
    EXPECT_STREQ(gm_result_experiment(r), "stride_copy");  // the default suite's order
    char *doc = nullptr;
    ASSERT_EQ(gm_result_to_json(&doc, r), GM_OK);
    EXPECT_EQ(json::parse(doc)["device"]["name"], "NVIDIA H200");  // the run's device block is back
    gm_free_string(doc);
    gm_result_destroy(r);
    EXPECT_EQ(gm_result_from_run_json(&r, text.c_str(), n), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gm_last_error()).find("index must be in 0.." + std::to_string(n - 1) + ", got " + std::to_string(n)),
              std::string::npos);
    EXPECT_EQ(gm_result_from_run_json(&r, R"({"schema": "gmlab.result/1"})", 0), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(gm_run_document_result_count(&n, "[]"), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(gm_run_document_result_count(&n, nullptr), GM_ERROR_INVALID_ARGUMENT);
}

TEST(ResultFiles, MalformedDocumentsAreRejectedWithAReason) {
    gm_result *r = nullptr;
    EXPECT_EQ(gm_result_from_json(&r, "{"), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(gm_result_from_json(&r, R"({"schema": "other"})"), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gm_last_error()).find("\"schema\" must be \"gmlab.result/1\" or a minor version of it"), std::string::npos);
    EXPECT_EQ(gm_result_from_json(&r, R"({"schema": "gmlab.result/1", "experiment": {"name": "x"}, "series": [{"name": "s", "points": [{"x": 1}]}]})"),
              GM_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gm_last_error()).find("series[0].points[0].time_ms"), std::string::npos) << gm_last_error();
    EXPECT_EQ(r, nullptr);
}

TEST(ResultFiles, AccessorsOnAMinimalDocument) {
    const char *doc = R"({"schema": "gmlab.result/1", "experiment": {"name": "demo"}, "summary": {"k": 2.5},
        "series": [{"name": "s0", "points": [{"x": 3, "bytes": 1e6, "bandwidth_gbs": 100,
        "time_ms": {"median": 0.01, "min": 0.01, "max": 0.02, "mean": 0.012, "stddev": 0.001, "n": 4},
        "predicted": {"sectors_per_request": 5}}]}]})";
    gm_result *r = nullptr;
    ASSERT_EQ(gm_result_from_json(&r, doc), GM_OK) << gm_last_error();
    EXPECT_STREQ(gm_result_experiment(r), "demo");
    EXPECT_STREQ(gm_result_series_name(r, 0), "s0");
    EXPECT_EQ(gm_result_series_name(r, 1), nullptr);
    EXPECT_EQ(gm_result_point_count(r, 0), 1u);
    EXPECT_EQ(gm_result_point_count(r, 9), 0u);
    EXPECT_EQ(gm_result_series_info(r, 0, "y.field"), nullptr);  // this minimal document has no axes
    EXPECT_EQ(gm_result_series_info(r, 0, nullptr), nullptr);
    double v = 0;
    EXPECT_EQ(gm_result_point_value(&v, r, 0, 0, "repetitions"), GM_OK);
    EXPECT_EQ(v, 4);
    EXPECT_EQ(gm_result_point_value(&v, r, 0, 0, "predicted.sectors_per_request"), GM_OK);
    EXPECT_EQ(v, 5);
    EXPECT_EQ(gm_result_point_value(&v, r, 0, 0, "fraction_of_memcpy"), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gm_last_error()).find("it has: median_ms"), std::string::npos);
    EXPECT_EQ(gm_result_point_value(&v, r, 0, 1, "x"), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(gm_result_point_value(&v, r, 2, 0, "x"), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(gm_result_summary_value(&v, r, "k"), GM_OK);
    EXPECT_EQ(v, 2.5);
    EXPECT_EQ(gm_result_summary_value(&v, r, "nope"), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gm_last_error()).find("it has: k"), std::string::npos);
    gm_result_destroy(r);
}
