// gmlab explain --html (tools/cli/explain/explain_html.cpp): beside each
// finding the chart of the one series its cost was read from, with the point
// it was read at marked as the kernel's, not the experiment's every series;
// each kernel headed by its short name, the whole name folded away.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "chart_specs.hpp"
#include "document.hpp"
#include "explain/explain_html.hpp"
#include "html_report.hpp"

namespace {

using nlohmann::json;

const char *kH200Run = GMX_SOURCE_DIR "/results/nvidia-h200-standard-suite.json";

json h200_run() {
    std::ifstream in(kH200Run);
    return json::parse(in);
}

json finding_costed_at(const std::string &experiment, const std::string &source, double at) {
    return {{"rule", "uncoalesced_global"}, {"title", "uncoalesced or strided global access"}, {"text", "4.0x the sectors"},
            {"experiment", experiment},     {"evidence", json::object()},
            {"cost", {{"found", true}, {"source", source}, {"at", at}, {"text", "stride 4 reaches 28 %"}}},
            {"gain_ms", 1.2},               {"fix", "make neighbouring threads read neighbouring words"}};
}

// What a chart's legend lists: every dataset but the spread bands.
std::vector<std::string> legend_of(const json &chart) {
    std::vector<std::string> out;
    for (const auto &d : chart["datasets"])
        if (!d.contains("band")) out.push_back(d["label"].get<std::string>());
    return out;
}

}  // namespace

TEST(ExplainHtml, AFindingsChartHoldsTheSeriesOfItsCostAndTheKernelsPoint) {
    const json lab = h200_run();
    const json f = finding_costed_at("stride_copy", "stride_copy / guide, 4-byte words", 4);
    const json chart = gmcli::finding_chart(lab, f, "finding0", "scale_strided");
    ASSERT_FALSE(chart.is_null());
    EXPECT_EQ(legend_of(chart), (std::vector<std::string>{"guide, 4-byte words", "this kernel: scale_strided"}));
    const json &point = chart["datasets"].back();
    ASSERT_EQ(point["data"].size(), 1u);
    EXPECT_EQ(point["data"][0]["x"].get<double>(), 4.0);
    // The experiment's own chart, which the report draws, has every series, their models and counters.
    const json *result = gmreport::find_result(lab, "stride_copy");
    ASSERT_NE(result, nullptr);
    EXPECT_GE(legend_of(gmreport::chart_data(*result, "c")).size(), 12u);
}

TEST(ExplainHtml, ACostOfNoSeriesKeepsTheExperimentsChart) {
    const json lab = h200_run();
    const json *result = gmreport::find_result(lab, "stride_copy");
    ASSERT_NE(result, nullptr);
    const auto whole = legend_of(gmreport::chart_data(*result, "c"));
    // A summary figure, or a series the result does not have: nothing to cut the chart to.
    EXPECT_EQ(legend_of(gmcli::finding_chart(lab, finding_costed_at("stride_copy", "stride_copy / copy_gbs", 4), "c", "k")), whole);
    json unfound = finding_costed_at("stride_copy", "stride_copy / guide, 4-byte words", 4);
    unfound["cost"] = {{"found", false}, {"missing", "no run"}};
    EXPECT_EQ(legend_of(gmcli::finding_chart(lab, unfound, "c", "k")), whole);
}

TEST(ExplainHtml, KernelsAreHeadedByTheirShortNames) {
    if (!gmreport::html_available()) GTEST_SKIP() << "this build has no Chart.js: --html is not available";
    const std::string whole = "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<"
                              "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda(float)#1}>(...)"
                              "::{lambda(int)#1}>(int, ...)";
    const json doc = {{"command", {"python3", "copy.py"}},
                      {"device", {{"name", "NVIDIA H200"}}},
                      {"lab", {{"run", kH200Run}}},
                      {"kernels", {{{"rank", 1}, {"name", whole}, {"short_name", "elementwise_kernel<direct_copy_kernel_cuda>"},
                                    {"mangled", "_ZN2at6native18elementwise_kernel"}, {"launches", 70}, {"total_ms", 2.5},
                                    {"counted", true},
                                    {"findings", {finding_costed_at("stride_copy", "stride_copy / guide, 4-byte words", 8)}}}}},
                      {"run", {{"findings", json::array()}}}};
    const std::string page = gmcli::explanation_html(doc);
    EXPECT_NE(page.find("<h2>#1 elementwise_kernel&lt;direct_copy_kernel_cuda&gt;</h2>"), std::string::npos);
    EXPECT_NE(page.find("this kernel: elementwise_kernel"), std::string::npos);
    // The whole name once, folded under the heading.
    const std::string escaped = gmreport::escape_html(whole);
    const auto at = page.find(escaped);
    ASSERT_NE(at, std::string::npos);
    EXPECT_EQ(page.find(escaped, at + 1), std::string::npos);
    EXPECT_NE(page.rfind("<details>", at), std::string::npos);
}

TEST(ExplainHtml, APatternNotLimitingShowsWhyAndNoGain) {
    if (!gmreport::html_available()) GTEST_SKIP() << "this build has no Chart.js: --html is not available";
    json finding = finding_costed_at("stride_copy", "stride_copy / guide, 4-byte words", 4);
    finding["gain_ms"] = nullptr;
    finding["limiting"] = false;
    finding["not_limiting"] = "the compute units are 85 % busy";
    const json doc = {{"command", {"python3", "train.py"}},
                      {"device", {{"name", "NVIDIA H200"}}},
                      {"lab", {{"run", kH200Run}}},
                      {"kernels", {{{"rank", 1}, {"name", "sm90_xmma_gemm"}, {"mangled", "sm90_xmma_gemm"}, {"launches", 10},
                                    {"total_ms", 3.0}, {"counted", true}, {"findings", {finding}}}}},
                      {"run", {{"findings", json::array()}}}};
    const std::string page = gmcli::explanation_html(doc);
    EXPECT_NE(page.find("present, not limiting: the compute units are 85 % busy"), std::string::npos);
    EXPECT_EQ(page.find("estimated gain"), std::string::npos);
}
