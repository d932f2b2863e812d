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
        const std::string schema = run["schema"];
        ASSERT_TRUE(schema == "gmlab.run/1" || schema == "gmlab.run/1.1" || schema == "gmlab.run/1.2" ||
                    schema == "gmlab.run/1.3")
            << entry.path();
        for (json r : run["results"]) {
            r["device"] = run["device"];
            gm_result *res = nullptr;
            ASSERT_EQ(gm_result_from_json(&res, r.dump().c_str()), GM_OK) << gm_last_error();
            // Only a result that says it was not applicable (peer on one GPU) has no series.
            const bool applicable = r.value("applicable", true);
            EXPECT_EQ(gm_result_series_count(res) > 0, applicable) << entry.path() << " " << r["experiment"]["name"];
            for (size_t s = 0; s < gm_result_series_count(res); ++s) {
                ASSERT_NE(gm_result_series_name(res, s), nullptr);
                // 1.3: the quantity through the C API, and a bandwidth only where it is one.
                const char *quantity = gm_result_series_info(res, s, "quantity.name");
                EXPECT_EQ(quantity != nullptr, r["schema"] == "gmlab.result/1.3") << entry.path();
                const bool bandwidth = quantity && std::string(quantity).find("bandwidth") != std::string::npos;
                if (quantity && !bandwidth && gm_result_point_count(res, s) > 0) {
                    double v = 0;
                    EXPECT_EQ(gm_result_point_value(&v, res, s, 0, "bandwidth_gbs"), GM_ERROR_INVALID_ARGUMENT)
                        << gm_result_series_name(res, s) << " is a " << quantity << " series";
                }
                for (size_t p = 0; p < gm_result_point_count(res, s); ++p) {
                    double median = 0, headline = 0;
                    ASSERT_EQ(gm_result_point_value(&median, res, s, p, "median_ms"), GM_OK);
                    EXPECT_GT(median, 0);
                    const char *field = gm_result_series_info(res, s, "y.field");
                    ASSERT_NE(field, nullptr);
                    ASSERT_EQ(gm_result_point_value(&headline, res, s, p, field), GM_OK) << field;
                    EXPECT_GE(headline, 0);  // bandwidths and times are positive; an error can be 0
                    if (std::string(field) == "bandwidth_gbs") {
                        EXPECT_GT(headline, 0);
                    }
                }
            }
            // Nothing lost on the way through: the full form gives back every
            // sample the file has, the compact one the statistics and deciles.
            char *text = nullptr;
            ASSERT_EQ(gm_result_to_json_samples(&text, res, GM_SAMPLES_ALL), GM_OK);
            const json full = json::parse(text);
            gm_free_string(text);
            ASSERT_EQ(gm_result_to_json(&text, res), GM_OK);
            const json compact = json::parse(text);
            gm_free_string(text);
            // Written as the current version only where every series declares its quantity.
            bool declared = true;
            for (const json &s : r["series"]) declared = declared && s.contains("quantity");
            EXPECT_EQ(compact["schema"], declared ? "gmlab.result/1.3" : "gmlab.result/1.2");
            EXPECT_EQ(compact["summary"], r["summary"]);
            for (size_t s = 0; s < r["series"].size(); ++s)
                for (size_t p = 0; p < r["series"][s]["points"].size(); ++p) {
                    const json &t = r["series"][s]["points"][p]["time_ms"];
                    const json &ft = full["series"][s]["points"][p]["time_ms"], &ct = compact["series"][s]["points"][p]["time_ms"];
                    if (t.contains("samples")) {
                        EXPECT_EQ(ft["samples"], t["samples"]);
                    }
                    EXPECT_FALSE(ct.contains("samples"));
                    for (const char *k : {"median", "min", "max", "mean", "stddev", "n"}) EXPECT_EQ(ct[k], t[k]) << k;
                    if (t.contains("samples") || t.contains("quantiles")) {
                        EXPECT_EQ(ct["quantiles"].size(), 9u);
                    }
                }
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
    EXPECT_NE(std::string(gm_last_error()).find("\"schema\" must be \"gmlab.result/1\", \"gmlab.result/1.1\", \"gmlab.result/1.2\" or \"gmlab.result/1.3\""), std::string::npos);
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

// The two forms of a point: /1 with every sample (deciles computed from them)
// and /1.1 compact (deciles kept, samples gone).
TEST(ResultFiles, BothSampleFormsAreRead) {
    const char *full = R"({"schema": "gmlab.result/1", "experiment": {"name": "demo"},
        "series": [{"name": "s0", "points": [{"x": 1,
        "time_ms": {"median": 5.5, "min": 1, "max": 10, "mean": 5.5, "stddev": 3.03, "n": 10,
                    "samples": [10, 9, 8, 7, 6, 5, 4, 3, 2, 1]}}]}]})";
    gm_result *r = nullptr;
    ASSERT_EQ(gm_result_from_json(&r, full), GM_OK) << gm_last_error();
    double v = 0;
    ASSERT_EQ(gm_result_point_value(&v, r, 0, 0, "p10_ms"), GM_OK) << gm_last_error();
    EXPECT_DOUBLE_EQ(v, 1.9);  // between the first and second of ten, 0.9 of the way
    ASSERT_EQ(gm_result_point_value(&v, r, 0, 0, "p50_ms"), GM_OK);
    EXPECT_DOUBLE_EQ(v, 5.5);  // the median
    ASSERT_EQ(gm_result_point_value(&v, r, 0, 0, "p90_ms"), GM_OK);
    EXPECT_DOUBLE_EQ(v, 9.1);
    char *text = nullptr;
    ASSERT_EQ(gm_result_to_json(&text, r), GM_OK);
    const json compact = json::parse(text);
    gm_free_string(text);
    EXPECT_EQ(compact["schema"], "gmlab.result/1.2");  // its series declare no quantity
    const json &t = compact["series"][0]["points"][0]["time_ms"];
    EXPECT_FALSE(t.contains("samples"));
    EXPECT_EQ(t["quantiles"], json::parse("[1.9, 2.8, 3.7, 4.6, 5.5, 6.4, 7.3, 8.2, 9.1]"));
    EXPECT_EQ(t["n"], 10);
    gm_result_destroy(r);

    // The compact document reads back with the same figures.
    ASSERT_EQ(gm_result_from_json(&r, compact.dump().c_str()), GM_OK) << gm_last_error();
    ASSERT_EQ(gm_result_point_value(&v, r, 0, 0, "p20_ms"), GM_OK);
    EXPECT_DOUBLE_EQ(v, 2.8);
    ASSERT_EQ(gm_result_point_value(&v, r, 0, 0, "median_ms"), GM_OK);
    EXPECT_EQ(v, 5.5);
    ASSERT_EQ(gm_result_to_json_samples(&text, r, GM_SAMPLES_ALL), GM_OK);
    EXPECT_FALSE(json::parse(text)["series"][0]["points"][0]["time_ms"].contains("samples"));  // none to give back
    gm_free_string(text);
    EXPECT_EQ(gm_result_to_json_samples(&text, r, static_cast<gm_samples>(7)), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(text, nullptr);
    EXPECT_NE(std::string(gm_last_error()).find("samples must be GM_SAMPLES_SUMMARY (0) or GM_SAMPLES_ALL (1), got 7"),
              std::string::npos) << gm_last_error();
    gm_result_destroy(r);

    // A /1 document trimmed of its samples has no deciles to give.
    const char *bare = R"({"schema": "gmlab.result/1", "experiment": {"name": "demo"},
        "series": [{"name": "s0", "points": [{"x": 1,
        "time_ms": {"median": 5.5, "min": 1, "max": 10, "mean": 5.5, "stddev": 3.03, "n": 10}}]}]})";
    ASSERT_EQ(gm_result_from_json(&r, bare), GM_OK) << gm_last_error();
    EXPECT_EQ(gm_result_point_value(&v, r, 0, 0, "p50_ms"), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gm_last_error()).find("neither time_ms.quantiles nor time_ms.samples"), std::string::npos);
    gm_result_destroy(r);

    // Malformed deciles are refused with the place named.
    json broken = compact;
    broken["series"][0]["points"][0]["time_ms"]["quantiles"] = json::array({1, 2, 3});
    EXPECT_EQ(gm_result_from_json(&r, broken.dump().c_str()), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gm_last_error()).find("series[0].points[0].time_ms.quantiles must be an array of 9 numbers"),
              std::string::npos) << gm_last_error();
    broken["schema"] = "gmlab.result/1.2x";
    EXPECT_EQ(gm_result_from_json(&r, broken.dump().c_str()), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(r, nullptr);
}

TEST(ResultFiles, RunDocumentsOfEveryVersionAreRead) {
    const std::string result = R"({"schema": "gmlab.result/1.1", "experiment": {"name": "demo"},
        "series": [{"name": "s0", "points": [{"x": 1,
        "time_ms": {"median": 2, "min": 1, "max": 3, "mean": 2, "stddev": 1, "n": 3, "quantiles": [1,1,1,2,2,2,3,3,3]}}]}]})";
    for (const char *schema : {"gmlab.run/1", "gmlab.run/1.1", "gmlab.run/1.2", "gmlab.run/1.3"}) {
        const std::string run = std::string(R"({"schema": ")") + schema + R"(", "device": {"name": "X"}, "results": [)" + result + "]}";
        size_t n = 0;
        ASSERT_EQ(gm_run_document_result_count(&n, run.c_str()), GM_OK) << gm_last_error();
        EXPECT_EQ(n, 1u);
        gm_result *r = nullptr;
        ASSERT_EQ(gm_result_from_run_json(&r, run.c_str(), 0), GM_OK) << gm_last_error();
        double v = 0;
        ASSERT_EQ(gm_result_point_value(&v, r, 0, 0, "p40_ms"), GM_OK);
        EXPECT_EQ(v, 2);
        gm_result_destroy(r);
    }
    size_t n = 0;
    EXPECT_EQ(gm_run_document_result_count(&n, R"({"schema": "gmlab.run/2", "results": []})"), GM_ERROR_INVALID_ARGUMENT);
}
