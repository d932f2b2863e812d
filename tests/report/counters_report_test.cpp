// Hardware counters where people look: the text tables' counter columns and
// the model-vs-counters line, the HTML chart's markers on the model's dashed
// line and its agreement table, and compare's counter rows. Host only.
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "chart_specs.hpp"
#include "compare.hpp"
#include "counter_columns.hpp"
#include "html_report.hpp"
#include "text_report.hpp"

using nlohmann::json;

namespace {

// A stride_copy result as schema 1.2 writes it: stride 1 and 2 counted, the
// loads' sectors per request equal to the model (4, 8) at both.
json counted_result(double spr_at_stride2 = 8) {
    json points = json::array();
    for (int stride : {1, 2}) {
        const double spr = stride == 1 ? 4 : spr_at_stride2;
        points.push_back({{"x", stride},
                          {"time_ms", {{"median", 0.1 * stride}, {"min", 0.09 * stride}, {"max", 0.11 * stride}, {"mean", 0.1 * stride},
                                       {"stddev", 0.0}, {"n", 5}}},
                          {"bytes", 8e6},
                          {"bandwidth_gbs", 8e6 / (0.1 * stride * 1e6)},
                          {"bandwidth_gbs_min", 8e6 / (0.11 * stride * 1e6)},
                          {"bandwidth_gbs_max", 8e6 / (0.09 * stride * 1e6)},
                          {"values", json::object()},
                          {"predicted", {{"sectors_per_request", 4.0 * stride}, {"efficiency", 1.0 / stride}}},
                          {"counters", {{"sectors_per_request_ld", spr},
                                        {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", spr * 1000},
                                        {"dram__bytes_read.sum", 4e6 * stride}}}});
    }
    const int agreeing = spr_at_stride2 == 8 ? 2 : 1;
    json series = {{"name", "guide, 4-byte words"},
                   {"variant", "guide"},
                   {"x", {{"name", "stride"}, {"unit", "words"}}},
                   {"y", {{"field", "bandwidth_gbs"}, {"name", "effective bandwidth"}, {"unit", "GB/s"}}},
                   {"attributes", json::object()},
                   {"points", points},
                   {"agreement", {{"sectors_per_request_ld",
                                   {{"prediction", "sectors_per_request"}, {"tolerance", 0}, {"points", 2}, {"agreeing", agreeing},
                                    {"share", agreeing / 2.0}}}}}};
    return {{"schema", "gmlab.result/1.2"},
            {"experiment", {{"name", "stride_copy"}, {"summary", "strided copy"}, {"guide_section", "Strided Accesses"}}},
            {"series", json::array({series})},
            {"summary", {{"model_agreement", agreeing / 2.0}}},
            {"counters", {{"mode", "auto"}, {"available", true}, {"chip", "GH100"}, {"passes", 1}, {"seconds", 0.02}}},
            {"verification", {{"passed", true}, {"method", "compared"}, {"elements_checked", 10}, {"max_abs_error", 0}}},
            {"notes", json::array()}};
}

json run_of(const json &result) {
    return {{"schema", "gmlab.run/1.2"},
            {"library", {{"name", "gmlab"}, {"version", "0"}}},
            {"command", "gmlab run stride_copy"},
            {"created_at", "2026-11-23T00:00:00Z"},
            {"device", {{"name", "Test GPU"}, {"driver_version", "13.0"}}},
            {"settings", json::object()},
            {"results", json::array({result})}};
}

const json *dataset(const json &chart, const std::string &label_end) {
    for (const json &d : chart["datasets"]) {
        const std::string label = d["label"];
        if (label.size() >= label_end.size() && label.compare(label.size() - label_end.size(), label_end.size(), label_end) == 0)
            return &d;
    }
    return nullptr;
}

TEST(CountersReport, TextTableHasCounterColumnsAndTheAgreement) {
    std::ostringstream os;
    gmreport::write_result_text(os, counted_result(), false);
    const std::string text = os.str();
    EXPECT_NE(text.find("ctr sectors/req ld"), std::string::npos) << text;
    EXPECT_NE(text.find("ctr DRAM read"), std::string::npos) << text;
    // Raw sector counts stay in the JSON; their ratio is the column.
    EXPECT_EQ(text.find("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), std::string::npos) << text;
    EXPECT_NE(text.find("counters vs model: sectors_per_request_ld = pred. sectors_per_request at 2/2 points"), std::string::npos) << text;
}

TEST(CountersReport, TextSaysWhyCountersAreMissing) {
    json r = counted_result();
    r["counters"] = {{"mode", "auto"}, {"available", false}, {"reason", "profiling is restricted to admin users"}};
    for (json &p : r["series"][0]["points"]) p.erase("counters");
    r["series"][0].erase("agreement");
    std::ostringstream os;
    gmreport::write_result_text(os, r, false);
    EXPECT_NE(os.str().find("hardware counters: not available: profiling is restricted to admin users"), std::string::npos) << os.str();
    EXPECT_EQ(os.str().find("ctr "), std::string::npos) << os.str();
}

TEST(CountersReport, ChartMarkersSitOnTheModelLineWhereTheCounterEqualsIt) {
    const json chart = gmreport::chart_data(counted_result(), "c0");
    const json *model = dataset(chart, ": sector model");
    const json *counted = dataset(chart, ": hardware counters");
    ASSERT_NE(model, nullptr) << chart.dump();
    ASSERT_NE(counted, nullptr) << chart.dump();
    EXPECT_TRUE((*counted)["markers"].get<bool>());
    ASSERT_EQ((*counted)["data"].size(), (*model)["data"].size());
    for (std::size_t i = 0; i < (*model)["data"].size(); ++i)
        EXPECT_DOUBLE_EQ((*counted)["data"][i]["y"].get<double>(), (*model)["data"][i]["y"].get<double>()) << i;
}

TEST(CountersReport, ChartMarkerLeavesTheLineWhereTheCounterDiffers) {
    // 16 sectors counted where the model says 8: the efficiency the counter implies is half the line's.
    const json chart = gmreport::chart_data(counted_result(16), "c0");
    const json *model = dataset(chart, ": sector model");
    const json *counted = dataset(chart, ": hardware counters");
    ASSERT_NE(counted, nullptr);
    EXPECT_DOUBLE_EQ((*counted)["data"][1]["y"].get<double>(), 0.5 * (*model)["data"][1]["y"].get<double>());
}

TEST(CountersReport, NoMarkersWithoutAClaimOrWithoutCounters) {
    json r = counted_result();
    r["series"][0].erase("agreement");  // counters that explain, but do not claim to equal the model
    EXPECT_EQ(dataset(gmreport::chart_data(r, "c0"), ": hardware counters"), nullptr);
    json old = counted_result();
    old["schema"] = "gmlab.result/1.1";
    for (json &p : old["series"][0]["points"]) p.erase("counters");
    EXPECT_EQ(dataset(gmreport::chart_data(old, "c0"), ": hardware counters"), nullptr);
}

TEST(CountersReport, CompareFlagsACounterThatChanged) {
    const json cmp = gmreport::compare_runs(run_of(counted_result()), run_of(counted_result(9)));
    int counter_rows = 0, flagged = 0;
    for (const json &row : cmp["rows"]) {
        if (!row.value("counter", false)) continue;
        ++counter_rows;
        EXPECT_EQ(row["field"].get<std::string>().rfind("counters.", 0), 0u);
        if (row["flagged"].get<bool>()) {
            ++flagged;
            EXPECT_EQ(row["field"], "counters.sectors_per_request_ld");
            EXPECT_EQ(row["x"], 2);
        }
    }
    // sectors per request and DRAM read at two strides; the raw sector count is not compared.
    EXPECT_EQ(counter_rows, 4) << cmp.dump();
    EXPECT_EQ(flagged, 1) << cmp.dump();
    std::ostringstream os;
    gmreport::write_compare_text(os, run_of(counted_result()), run_of(counted_result(9)), cmp, false);
    EXPECT_NE(os.str().find("stride_copy / guide, 4-byte words (counters.sectors_per_request_ld)"), std::string::npos) << os.str();
}

TEST(CountersReport, HtmlShowsModelAgainstCounters) {
    if (!gmreport::html_available()) GTEST_SKIP() << "built without Chart.js";
    const std::string html = gmreport::html_report(run_of(counted_result(16)));
    EXPECT_NE(html.find("Model and hardware counters"), std::string::npos);
    EXPECT_NE(html.find("1 of 2"), std::string::npos);
    EXPECT_NE(html.find("hardware counters\",\"markers\":true"), std::string::npos);
    json missing = counted_result();
    missing["counters"] = {{"mode", "auto"}, {"available", false}, {"reason", "libcupti was not found"}};
    EXPECT_NE(gmreport::html_report(run_of(missing)).find("Hardware counters: not available: libcupti was not found"), std::string::npos);
}

}  // namespace

// A document written before the library left out-of-range figures out: its
// lts__t_sector_hit_rate.pct of 257.5 (a ratio CUPTI evaluated over a range of
// few L2 lookups) is shown as missing, the 50.9 beside it as measured.
TEST(CountersReport, APercentageAboveHundredIsNotShown) {
    json r = counted_result();
    r["series"][0]["points"][0]["counters"]["lts__t_sector_hit_rate.pct"] = 257.5;
    r["series"][0]["points"][1]["counters"]["lts__t_sector_hit_rate.pct"] = 50.9;
    std::ostringstream os;
    gmreport::write_result_text(os, r, false);
    const std::string text = os.str();
    EXPECT_NE(text.find("ctr L2 hit %"), std::string::npos) << text;
    EXPECT_EQ(text.find("257.5"), std::string::npos) << text;
    EXPECT_NE(text.find("50.9"), std::string::npos) << text;
    EXPECT_FALSE(gmreport::counter_in_range("lts__t_sector_hit_rate.pct", 257.5));
    EXPECT_FALSE(gmreport::counter_in_range("l2_hit_share", 1.5));
    EXPECT_TRUE(gmreport::counter_in_range("l2_hit_share", 1.0));
    EXPECT_TRUE(gmreport::counter_in_range("dram__bytes_read.sum", 4e6));
}
