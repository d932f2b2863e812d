#include <fstream>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/experiment/result.hpp"
#include "run_document.hpp"

using namespace gmlab;
using nlohmann::json;

namespace {

// A result as an experiment would build it, with made-up device data.
Result sample() {
    Result r;
    r.experiment = "stride_copy";
    r.guide_section = "Strided Accesses";
    r.summary = "demo";
    r.device = {{"name", "Test GPU"}, {"compute_capability", "9.0"}, {"theoretical_bandwidth_gbs", 1000.0},
                {"l2_cache_bytes", 50 << 20}, {"global_memory_bytes", 80e9}, {"memory_bus_width_bits", 5120},
                {"multiprocessors", 132}, {"driver_version", "13.0"}, {"runtime_version", "13.0"}};
    r.settings = {{"warmup", 2}, {"min_repetitions", 10}, {"max_repetitions", 1000}, {"min_time_ms", 50.0},
                  {"flush_l2", true}, {"memory_fraction", 0.5}};
    r.parameters = {{"strides", {1, 2}}};
    r.theoretical_gbs = 1000;
    r.dram_theoretical_gbs = 1000;
    r.memcpy_gbs = 800;
    Series s;
    s.name = "guide, 4-byte words";
    s.variant = "guide";
    s.x_name = "stride";
    s.x_unit = "words";
    s.quantity = Quantity::DramBandwidth;
    for (int stride : {1, 2}) {
        Point p;
        p.x = stride;
        p.bytes = 8e6;
        p.time_ms = summarize({0.01 * stride, 0.011 * stride, 0.012 * stride});
        p.predicted["sectors_per_request"] = 4 * stride;
        // Counters as the harness records them (schema 1.2): the raw counts and the derived figure.
        p.counters["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] = 4.0 * stride * 1000;
        p.counters["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] = 1000;
        p.counters["sectors_per_request_ld"] = 4.0 * stride;
        p.counter_checks.push_back({"sectors_per_request_ld", "sectors_per_request", 0, 4.0 * stride, 4.0 * stride, true});
        s.points.push_back(p);
    }
    r.series.push_back(s);
    r.summary_values["guide_w4_stride2_over_stride1"] = 0.5;
    r.verified(1000, "compared");
    r.notes.push_back("a note");
    r.device_bytes_allocated = 1 << 20;
    r.memory_budget_bytes = 1 << 30;
    r.counters_mode = "auto";
    r.counters_available = true;
    r.counters_chip = "GH100";
    r.counter_passes = 1;
    r.counter_seconds = 0.01;
    r.counter_launch_seconds = 0.002;
    r.started_at = utc_now();
    r.finished_at = utc_now();
    return r;
}

}  // namespace

TEST(ResultDocument, CarriesBandwidthAndFractions) {
    json doc = to_json(sample());
    EXPECT_EQ(doc["schema"], "gmlab.result/1.3");
    EXPECT_EQ(doc["library"]["name"], "gmlab");
    const json &p = doc["series"][0]["points"][0];
    EXPECT_DOUBLE_EQ(p["bandwidth_gbs"].get<double>(), 8e6 / 0.011e-3 / 1e9);
    EXPECT_DOUBLE_EQ(p["fraction_of_theoretical"].get<double>(), p["bandwidth_gbs"].get<double>() / 1000);
    EXPECT_DOUBLE_EQ(p["fraction_of_memcpy"].get<double>(), p["bandwidth_gbs"].get<double>() / 800);
    EXPECT_LT(p["bandwidth_gbs_min"].get<double>(), p["bandwidth_gbs_max"].get<double>());
    EXPECT_FALSE(p["time_ms"].contains("samples"));  // compact by default
    EXPECT_EQ(p["time_ms"]["quantiles"].size(), 9u);
    EXPECT_EQ(to_json(sample(), SampleForm::All)["series"][0]["points"][0]["time_ms"]["samples"].size(), 3u);
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    EXPECT_NO_THROW(check_result_document(doc));
}

TEST(ResultDocument, PointValueLooksUpEveryField) {
    json doc = to_json(sample());
    EXPECT_EQ(point_value(doc, 0, 1, "x"), 2);
    EXPECT_DOUBLE_EQ(point_value(doc, 0, 1, "median_ms"), 0.022);
    EXPECT_EQ(point_value(doc, 0, 1, "repetitions"), 3);
    EXPECT_EQ(point_value(doc, 0, 1, "predicted.sectors_per_request"), 8);
    EXPECT_GT(point_value(doc, 0, 0, "bandwidth_gbs"), 0);
    try {
        point_value(doc, 0, 0, "nonsense");
        FAIL();
    } catch (const Error &e) {
        EXPECT_NE(std::string(e.what()).find("predicted.sectors_per_request"), std::string::npos) << e.what();
    }
    EXPECT_THROW(point_value(doc, 1, 0, "x"), Error);
    EXPECT_THROW(point_value(doc, 0, 2, "x"), Error);
}

TEST(ResultDocument, StructureCheckSaysWhatIsWrong) {
    json doc = to_json(sample());
    json bad = doc;
    bad["schema"] = "gmlab.result/2";
    EXPECT_THROW(check_result_document(bad), Error);
    json old = to_json(sample(), SampleForm::All);
    old["schema"] = "gmlab.result/1";  // the first version is still read
    EXPECT_NO_THROW(check_result_document(old));
    bad = doc;
    bad["series"][0]["points"][0]["time_ms"]["quantiles"] = "many";
    EXPECT_THROW(check_result_document(bad), Error);
    bad = old;
    bad["series"][0]["points"][0]["time_ms"]["samples"] = {1, "x"};
    EXPECT_THROW(check_result_document(bad), Error);
    bad = doc;
    bad["series"][0]["points"][0]["time_ms"].erase("median");
    try {
        check_result_document(bad);
        FAIL();
    } catch (const Error &e) {
        EXPECT_NE(std::string(e.what()).find("series[0].points[0].time_ms.median"), std::string::npos);
    }
}

// Writes documents made by the real serialiser for the schema test (CTest
// fixture "sample_documents"); the run document wraps the result the way
// `gmlab run --json` does.
TEST(ResultDocument, WritesSamples) {
    json result = to_json(sample());
    std::ofstream("sample_result.json") << result.dump(2);
    json run = gmcli::make_run_document(result["device"], result["settings"], {result}, "gmlab run stride_copy");
    EXPECT_FALSE(run["results"][0].contains("device"));
    EXPECT_EQ(run["schema"], kRunSchema);
    EXPECT_FALSE(run.contains("quick"));
    std::ofstream("sample_run.json") << run.dump(2);
    // The full form (--samples all), and a quick run (--quick), for the schema test too.
    json full = to_json(sample(), SampleForm::All);
    std::ofstream("sample_result_full.json") << full.dump(2);
    json quick = result;
    quick["quick"] = true;
    json quick_run = gmcli::make_run_document(result["device"], result["settings"], {quick}, "gmlab run --quick");
    EXPECT_TRUE(quick_run["quick"].get<bool>());
    std::ofstream("sample_run_quick.json") << quick_run.dump(2);
    // Both forms, the old version included, are read back.
    json old = gmcli::make_run_document(full["device"], full["settings"], {full}, "gmlab run stride_copy");
    old["schema"] = "gmlab.run/1";
    old["results"][0]["schema"] = "gmlab.result/1";
    for (json &p : old["results"][0]["series"][0]["points"]) p["time_ms"].erase("quantiles");
    std::ofstream("sample_run_v1.json") << old.dump(2);
}

TEST(ResultDocument, CompactNumbersKeepSevenSignificantDigits) {
    json doc = json::parse(R"({"median": 0.19209599494934082, "n": 53, "bytes": 503316480.0, "name": "guide",
                              "ok": true, "nested": [2620.1300039219122, -1.2345678912e-12, [4814.304]]})");
    gmcli::round_to_significant_digits(doc);
    EXPECT_EQ(doc["median"].get<double>(), 0.192096);
    EXPECT_EQ(doc["n"].get<int>(), 53);
    EXPECT_EQ(doc["bytes"].get<double>(), 503316480.0);  // integers stay exact
    EXPECT_EQ(doc["name"], "guide");
    EXPECT_EQ(doc["nested"][0].get<double>(), 2620.13);
    EXPECT_EQ(doc["nested"][1].get<double>(), -1.234568e-12);
    EXPECT_EQ(doc["nested"][2][0].get<double>(), 4814.304);
    EXPECT_EQ(doc.dump().find("0.19209599"), std::string::npos);
    EXPECT_NE(doc.dump().find("0.192096"), std::string::npos);
}

TEST(ResultDocument, SampleFormOfADocument) {
    json run = gmcli::make_run_document(json::object(), json::object(), {to_json(sample(), SampleForm::All)}, "x");
    set_sample_form_of_document(run, SampleForm::Summary);
    for (const json &p : run["results"][0]["series"][0]["points"]) {
        EXPECT_FALSE(p["time_ms"].contains("samples"));
        EXPECT_EQ(p["time_ms"]["quantiles"].size(), 9u);
    }
    EXPECT_TRUE(is_result_schema("gmlab.result/1"));
    EXPECT_TRUE(is_result_schema("gmlab.result/1.1"));
    EXPECT_TRUE(is_result_schema("gmlab.result/1.2"));
    EXPECT_FALSE(is_result_schema("gmlab.result/2"));
    EXPECT_TRUE(is_run_schema("gmlab.run/1"));
    EXPECT_TRUE(is_run_schema("gmlab.run/1.1"));
    EXPECT_TRUE(is_run_schema("gmlab.run/1.2"));
    EXPECT_TRUE(is_run_schema("gmlab.run/1.3"));
    EXPECT_TRUE(is_result_schema("gmlab.result/1.3"));
    EXPECT_FALSE(is_run_schema("gmlab.result/1.1"));
}

TEST(ResultDocument, PointValueReadsTheDeciles) {
    json doc = to_json(sample());
    EXPECT_DOUBLE_EQ(point_value(doc, 0, 0, "p50_ms"), 0.011);
    EXPECT_DOUBLE_EQ(point_value(doc, 0, 0, "p10_ms"), 0.0102);
    EXPECT_DOUBLE_EQ(point_value(doc, 0, 1, "p90_ms"), 0.0236);
    EXPECT_THROW(point_value(doc, 0, 0, "p95_ms"), Error);
}

// The CSV has a column per counter (schema 1.2), after the predictions.
TEST(ResultDocument, CsvCarriesTheCounters) {
    const std::string csv = gmcli::results_csv({to_json(sample())});
    const std::string header = csv.substr(0, csv.find('\n'));
    EXPECT_NE(header.find(",predicted_sectors_per_request,"), std::string::npos) << header;
    EXPECT_NE(header.find(",counters_sectors_per_request_ld"), std::string::npos) << header;
    EXPECT_NE(header.find(",counters_l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), std::string::npos) << header;
    // Stride 2: 8 sectors per request counted.
    EXPECT_NE(csv.find(",8\n"), std::string::npos) << csv;
}

// A series' quantity decides what the core derives from its bytes: a DRAM
// bandwidth gets the DRAM fractions, an on-chip bandwidth only its bytes per
// second, a link its link's fraction, and a latency or a call's cost nothing.
TEST(ResultDocument, QuantityDecidesTheDerivedFigures) {
    Result r = sample();
    r.dram_theoretical_gbs = 1000;
    r.link_theoretical_gbs = 50;
    const Series dram = r.series[0];
    r.series.clear();
    for (Quantity q : {Quantity::DramBandwidth, Quantity::L2Bandwidth, Quantity::L1Bandwidth, Quantity::LinkBandwidth,
                       Quantity::Latency, Quantity::Time, Quantity::Count, Quantity::Ratio, Quantity::Rate}) {
        Series s = dram;
        s.quantity = q;
        s.name = quantity_name(q);
        if (!is_bandwidth(q)) s.y_field = "us_per_call", s.y_unit = "us";
        r.series.push_back(s);
    }
    const json doc = to_json(r);
    for (const json &s : doc["series"]) {
        Quantity q{};
        ASSERT_TRUE(quantity_from_name(s["quantity"]["name"].get<std::string>(), &q)) << s["quantity"];
        const json &p = s["points"][0];
        EXPECT_EQ(p.contains("bandwidth_gbs"), is_bandwidth(q)) << s["name"];
        EXPECT_EQ(p.contains("bytes"), is_bandwidth(q)) << s["name"];
        EXPECT_EQ(p.contains("fraction_of_memcpy"), q == Quantity::DramBandwidth) << s["name"];
        EXPECT_EQ(p.contains("fraction_of_theoretical"), q == Quantity::DramBandwidth || q == Quantity::LinkBandwidth)
            << s["name"];
        EXPECT_EQ(s["quantity"]["unit"], is_bandwidth(q) ? "GB/s" : "us") << s["name"];
    }
    const json &link = doc["series"][3]["points"][0];
    EXPECT_DOUBLE_EQ(link["fraction_of_theoretical"].get<double>(), link["bandwidth_gbs"].get<double>() / 50);
    const json &dram_point = doc["series"][0]["points"][0];
    EXPECT_DOUBLE_EQ(dram_point["fraction_of_theoretical"].get<double>(), dram_point["bandwidth_gbs"].get<double>() / 1000);
}

TEST(ResultDocument, SeriesWithoutQuantityIsRefused) {
    Result r = sample();
    r.series[0].quantity = Quantity::Undeclared;
    try {
        to_json(r);
        FAIL() << "a series that declares no quantity must not be written";
    } catch (const Error &e) {
        EXPECT_EQ(e.status(), GM_ERROR_INTERNAL);
        EXPECT_NE(std::string(e.what()).find("declares no quantity"), std::string::npos);
    }
}

TEST(ResultDocument, QuantityNamesRoundTrip) {
    for (Quantity q : {Quantity::DramBandwidth, Quantity::L2Bandwidth, Quantity::L1Bandwidth, Quantity::LinkBandwidth,
                       Quantity::Latency, Quantity::Time, Quantity::Count, Quantity::Ratio, Quantity::Rate}) {
        Quantity back{};
        ASSERT_TRUE(quantity_from_name(quantity_name(q), &back));
        EXPECT_EQ(back, q);
    }
    Quantity none{};
    EXPECT_FALSE(quantity_from_name("undeclared", &none));
    EXPECT_FALSE(quantity_from_name("bandwidth", &none));
}
