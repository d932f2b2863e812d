// What the report's tables divide by and how they print sizes: stream's
// "of memcpy" column against its own same-size cudaMemcpy, other experiments'
// against the context's reference copy (and labelled so), and compare's sizes
// printed as the report prints them. Host only.
#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "chart_specs.hpp"
#include "compare.hpp"
#include "gmlab.h"
#include "html_report.hpp"
#include "table.hpp"
#include "text_report.hpp"

using nlohmann::json;

namespace {

constexpr double kReferenceGbs = 4172.918;  // reference.memcpy_d2d_gbs: another size, another moment

json point(double x, double gbs, double bytes) {
    const double ms = bytes / (gbs * 1e6);
    return {{"x", x},
            {"time_ms", {{"median", ms}, {"min", ms}, {"max", ms}, {"mean", ms}, {"stddev", 0.0}, {"n", 5}}},
            {"bytes", bytes},
            {"bandwidth_gbs", gbs},
            {"bandwidth_gbs_min", gbs},
            {"bandwidth_gbs_max", gbs},
            {"fraction_of_theoretical", gbs / 4814.304},
            {"fraction_of_memcpy", gbs / kReferenceGbs},
            {"values", json::object()},
            {"predicted", json::object()}};
}

json series(const std::string &name, const std::string &x_name, const std::string &x_unit, json points) {
    return {{"name", name},
            {"variant", name},
            {"x", {{"name", x_name}, {"unit", x_unit}}},
            {"y", {{"field", "bandwidth_gbs"}, {"name", "effective bandwidth"}, {"unit", "GB/s"}}},
            {"attributes", json::object()},
            {"points", points}};
}

json result(const std::string &experiment, json all_series) {
    return {{"schema", "gmlab.result/1.2"},
            {"experiment", {{"name", experiment}, {"summary", experiment}, {"guide_section", ""}}},
            {"reference", {{"theoretical_bandwidth_gbs", 4814.304}, {"memcpy_d2d_gbs", kReferenceGbs}}},
            {"series", all_series},
            {"verification", {{"passed", true}, {"method", "compared"}, {"elements_checked", 10}, {"max_abs_error", 0}}},
            {"notes", json::array()}};
}

// stream at 2 GiB, as in the report that showed cudaMemcpy at 102.7 % "of memcpy":
// copy 1.003 times cudaMemcpy, both far from the reference taken at 256 MiB.
json stream_result(bool with_memcpy = true) {
    const double x = 2147483648.0;
    json s = json::array({series("copy", "array size", "bytes", json::array({point(x, 4300.0, 2 * x)})),
                          series("triad", "array size", "bytes", json::array({point(x, 4386.0, 3 * x)}))});
    if (with_memcpy) s.push_back(series("cudaMemcpy", "array size", "bytes", json::array({point(x, 4300.0 / 1.003, 2 * x)})));
    return result("stream", s);
}

json run_of(const json &r, const std::string &when = "2026-11-23T00:00:00Z") {
    return {{"schema", "gmlab.run/1.2"},
            {"library", {{"name", "gmlab"}, {"version", "0"}}},
            {"command", "gmlab run"},
            {"created_at", when},
            {"device", {{"name", "Test GPU"}, {"driver_version", "13.0"}}},
            {"settings", json::object()},
            {"results", json::array({r})}};
}

// The cells of the text table's row that starts with `first` cells, split on two or more spaces.
std::vector<std::string> row_after(const std::string &text, const std::string &section, const std::string &first) {
    const auto at = text.find(section);
    if (at == std::string::npos) return {};
    std::istringstream in(text.substr(at));
    std::string line;
    while (std::getline(in, line)) {
        const std::string trimmed = std::regex_replace(line, std::regex("^\\s+"), "");
        if (trimmed.rfind(first, 0) != 0) continue;
        std::vector<std::string> cells;
        const std::regex gap("\\s{2,}");
        for (std::sregex_token_iterator it(trimmed.begin(), trimmed.end(), gap, -1), end; it != end; ++it) cells.push_back(*it);
        return cells;
    }
    return {};
}

std::string text_of(const json &r) {
    std::ostringstream os;
    gmreport::write_result_text(os, r, false);
    return os.str();
}

TEST(MemcpyColumn, StreamReadsItsOwnSameSizeCudaMemcpy) {
    const std::string text = text_of(stream_result());
    EXPECT_NE(text.find("of same-size memcpy %"), std::string::npos) << text;
    EXPECT_EQ(text.find("of memcpy %"), std::string::npos) << text;
    // Columns: array size, median ms, stddev %, n, GB/s, min..max, of peak %, of same-size memcpy %.
    const auto memcpy_row = row_after(text, "\n  cudaMemcpy\n", "2 GiB");
    ASSERT_EQ(memcpy_row.size(), 8u) << text;
    EXPECT_EQ(memcpy_row[7], "100.0") << text;
    const auto copy_row = row_after(text, "\n  copy\n", "2 GiB");
    ASSERT_EQ(copy_row.size(), 8u) << text;
    EXPECT_EQ(copy_row[7], "100.3") << text;  // copy_over_memcpy, 1.003
    const auto triad_row = row_after(text, "\n  triad\n", "2 GiB");
    ASSERT_EQ(triad_row.size(), 8u) << text;
    EXPECT_EQ(triad_row[7], gmreport::fixed(100.0 * 4386.0 / (4300.0 / 1.003), 1)) << text;
    EXPECT_NE(text.find("of same-size memcpy %: bandwidth / that of this run's cudaMemcpy series at the same array size "
                        "(so cudaMemcpy itself is 100 %)."),
              std::string::npos)
        << text;
}

TEST(MemcpyColumn, OtherExperimentsSayTheyUseTheReference) {
    json r = result("stride_copy", json::array({series("guide, 4-byte words", "stride", "words",
                                                       json::array({point(1, 3000.0, 8e6), point(2, 1500.0, 8e6)}))}));
    const std::string text = text_of(r);
    EXPECT_NE(text.find("of ref. memcpy %"), std::string::npos) << text;
    EXPECT_NE(text.find("of ref. memcpy %: bandwidth / reference.memcpy_d2d_gbs (4172.9 GB/s), a device-to-device "
                        "cudaMemcpy timed once per context at a size of its own"),
              std::string::npos)
        << text;
    const auto row = row_after(text, "\n  guide, 4-byte words\n", "1  ");
    ASSERT_EQ(row.size(), 8u) << text;
    EXPECT_EQ(row[7], gmreport::fixed(100.0 * 3000.0 / kReferenceGbs, 1)) << text;
    // Said once per result, after its first table.
    json two = r;
    two["series"].push_back(series("ilp4, 4-byte words", "stride", "words", json::array({point(1, 3100.0, 8e6)})));
    const std::string both = text_of(two);
    EXPECT_EQ(both.find("of ref. memcpy %:"), both.rfind("of ref. memcpy %:")) << both;
}

TEST(MemcpyColumn, StreamWithoutItsCudaMemcpyFallsBackToTheReferenceAndSaysSo) {
    const std::string text = text_of(stream_result(false));
    EXPECT_NE(text.find("of ref. memcpy %"), std::string::npos) << text;
    EXPECT_EQ(text.find("same-size"), std::string::npos) << text;
    const auto copy_row = row_after(text, "\n  copy\n", "2 GiB");
    ASSERT_EQ(copy_row.size(), 8u) << text;
    EXPECT_EQ(copy_row[7], gmreport::fixed(100.0 * 4300.0 / kReferenceGbs, 1)) << text;
}

TEST(MemcpyColumn, MarkdownAndHtmlCarryTheSameLabel) {
    std::ostringstream md;
    gmreport::write_result_text(md, stream_result(), true);
    EXPECT_NE(md.str().find("| of same-size memcpy % |"), std::string::npos) << md.str();
    EXPECT_NE(md.str().find("| 100.0 |"), std::string::npos) << md.str();
    if (!gmreport::html_available()) GTEST_SKIP() << "built without Chart.js";
    const std::string html = gmreport::html_report(run_of(stream_result()));
    EXPECT_NE(html.find("of same-size memcpy %"), std::string::npos);
    EXPECT_EQ(html.find("of memcpy %"), std::string::npos);
}

TEST(XText, SizesAsTheReportPrintsThem) {
    EXPECT_EQ(gmreport::x_text(268435456, "bytes"), "256 MiB");
    EXPECT_EQ(gmreport::x_text(1536, "bytes"), "1.5 KiB");
    EXPECT_EQ(gmreport::x_text(32, "words"), "32");
    EXPECT_EQ(gmreport::x_text(0.25, "ratio"), "0.250");
}

TEST(CompareSizes, TextPrintsSizesAsTheReportDoes) {
    json a = stream_result(), b = stream_result();
    b["series"][0]["points"][0]["bandwidth_gbs"] = 4100.0;
    const json cmp = gmreport::compare_runs(run_of(a), run_of(b));
    ASSERT_FALSE(cmp["rows"].empty());
    EXPECT_EQ(cmp["rows"][0]["x_unit"], "bytes");
    std::ostringstream os;
    gmreport::write_compare_text(os, run_of(a), run_of(b), cmp, false);
    const std::string text = os.str();
    EXPECT_EQ(text.find("2147483648"), std::string::npos) << text;
    const auto row = row_after(text, "== stream / copy", "2 GiB");
    ASSERT_EQ(row.size(), 5u) << text;
    EXPECT_EQ(row[3], "0.953") << text;
    // Axes that are not bytes stay numbers.
    json s1 = result("stride_copy", json::array({series("guide", "stride", "words", json::array({point(32, 100.0, 8e6)}))}));
    std::ostringstream os2;
    gmreport::write_compare_text(os2, run_of(s1), run_of(s1), gmreport::compare_runs(run_of(s1), run_of(s1)), true);
    EXPECT_NE(os2.str().find("| 32 | 100 | 100 | 1.000 |"), std::string::npos) << os2.str();
}

TEST(CompareSizes, HtmlPrintsSizesAndDrawsMiB) {
    if (!gmreport::html_available()) GTEST_SKIP() << "built without Chart.js";
    json a = stream_result();
    const json cmp = gmreport::compare_runs(run_of(a), run_of(a));
    const std::string html = gmreport::html_compare(run_of(a), run_of(a), cmp);
    EXPECT_NE(html.find("<td>2 GiB</td>"), std::string::npos);
    EXPECT_EQ(html.find("2147483648"), std::string::npos);
    EXPECT_NE(html.find("\"labels\":[\"2 GiB\"]"), std::string::npos);
}

}  // namespace

// The report reads a point's fields as the library does (the vocabulary's one
// lookup): every field of every point of a committed run, deciles included.
TEST(PointFields, TheReportReadsEveryFieldAsTheLibraryDoes) {
    std::ifstream in(GM_SOURCE_DIR "/results/nvidia-h200-standard-suite.json");
    const json run = json::parse(in);
    int compared = 0;
    for (const json &result : run["results"]) {
        if (!result.contains("series") || result["series"].empty()) continue;
        gm_result *r = nullptr;
        ASSERT_EQ(gm_result_from_json(&r, result.dump().c_str()), GM_OK) << result["experiment"]["name"];
        const json &p = result["series"][0]["points"][0];
        std::vector<std::string> fields = {"median_ms", "min_ms", "max_ms", "mean_ms", "stddev_ms", "repetitions", "p10_ms", "p90_ms"};
        for (auto it = p.begin(); it != p.end(); ++it)
            if (it.value().is_number()) fields.push_back(it.key());
        for (const std::string &f : fields) {
            double library = NAN;
            const gm_status st = gm_result_point_value(&library, r, 0, 0, f.c_str());
            const double report = gmreport::point_field(p, f);
            if (st == GM_OK) {
                EXPECT_DOUBLE_EQ(report, library) << result["experiment"]["name"] << " " << f;
                ++compared;
            } else {
                EXPECT_TRUE(std::isnan(report)) << result["experiment"]["name"] << " " << f;
            }
        }
        gm_result_destroy(r);
    }
    EXPECT_GT(compared, 200);
}
