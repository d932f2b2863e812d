// "This GPU at a glance" (tools/report/glance.hpp) on the committed H100 and
// H200 runs: every figure equal to the run's own, beside the device block's
// theoretical figure; a figure the run lacks says "not measured" and why; the
// crowd column only where crowd medians were fetched. Host only.
#include <algorithm>
#include <map>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "document.hpp"
#include "glance.hpp"
#include "html_report.hpp"
#include "text_report.hpp"

using nlohmann::json;

namespace {

const std::string kResults = std::string(GM_SOURCE_DIR) + "/results/";

const json &run_named(const std::string &name) {
    static std::map<std::string, json> runs;
    if (!runs.count(name)) runs[name] = gmreport::load_run(kResults + name);
    return runs[name];
}

const json &h100() { return run_named("nvidia-h100-80gb-hbm3-standard-suite-a983714.json"); }
const json &h200() { return run_named("nvidia-h200-standard-suite.json"); }

const json &row(const json &g, const std::string &experiment, const std::string &figure) {
    for (const json &r : g["rows"])
        if (r.value("experiment", "") == experiment && r.value("figure", "") == figure) return r;
    throw std::runtime_error("no row " + experiment + " " + figure);
}

const json &row_labelled(const json &g, const std::string &label) {
    for (const json &r : g["rows"])
        if (r["label"] == label) return r;
    throw std::runtime_error("no row " + label);
}

double summary_value(const json &run, const std::string &experiment, const std::string &key) {
    return (*gmreport::find_result(run, experiment))["summary"][key].get<double>();
}

// The best bandwidth_gbs of the run's series that declare `quantity`, computed here on its own.
double best_declared(const json &run, const std::string &quantity) {
    double best = 0;
    for (const json &r : run["results"])
        for (const json &s : r.value("series", json::array()))
            if (s.contains("quantity") && s["quantity"].value("name", "") == quantity)
                for (const json &p : s["points"]) best = std::max(best, p.value("bandwidth_gbs", 0.0));
    return best;
}

double best_value(const json &run, const std::string &experiment, const std::string &key) {
    double best = 0;
    for (const json &s : (*gmreport::find_result(run, experiment))["series"])
        for (const json &p : s["points"])
            if (p.contains("values") && p["values"].contains(key)) best = std::max(best, p["values"][key].get<double>());
    return best;
}

const char *const kSummaryRows[][2] = {
    {"read_write", "read_gbs"},       {"read_write", "write_gbs"},           {"stream", "copy_gbs"},
    {"stream", "cudaMemcpy_gbs"},     {"latency", "l1_ns"},                  {"latency", "l2_near_ns"},
    {"latency", "dram_ns"},           {"transfer", "pinned_h2d_peak_gbs"},   {"transfer", "pinned_d2h_peak_gbs"},
    {"transfer", "pageable_h2d_peak_gbs"}, {"transfer", "pageable_d2h_peak_gbs"},
};

}  // namespace

TEST(Glance, EveryFigureIsTheH100RunsOwnBesideItsTheoretical) {
    const json g = gmreport::glance(h100());
    EXPECT_EQ(g["rows"].size(), 15u);
    const double dram = h100()["device"]["theoretical_bandwidth_gbs"].get<double>();
    const double link = h100()["device"]["host_link"]["theoretical_gbs"].get<double>();
    for (const auto &k : kSummaryRows) {
        const json &r = row(g, k[0], k[1]);
        ASSERT_TRUE(r.contains("value")) << r;
        EXPECT_DOUBLE_EQ(r["value"].get<double>(), summary_value(h100(), k[0], k[1])) << k[1];
        EXPECT_EQ(r["from"], std::string(k[0]) + " " + k[1]);
        EXPECT_FALSE(r.contains("crowd") || r.contains("crowd_missing"));  // no --server, no crowd column
    }
    for (const char *k : {"read_gbs", "write_gbs"}) EXPECT_DOUBLE_EQ(row(g, "read_write", k)["theoretical"].get<double>(), dram);
    for (const char *k : {"copy_gbs", "cudaMemcpy_gbs"}) EXPECT_DOUBLE_EQ(row(g, "stream", k)["theoretical"].get<double>(), dram);
    const json &read = row(g, "read_write", "read_gbs");
    EXPECT_DOUBLE_EQ(read["of_theoretical"].get<double>(), read["value"].get<double>() / dram);
    for (const char *k : {"pinned_h2d_peak_gbs", "pinned_d2h_peak_gbs", "pageable_h2d_peak_gbs", "pageable_d2h_peak_gbs"})
        EXPECT_DOUBLE_EQ(row(g, "transfer", k)["theoretical"].get<double>(), link) << k;
    EXPECT_FALSE(row(g, "latency", "l1_ns").contains("theoretical"));  // the device block gives none
    // L2: the best point of the series that declare L2 bandwidth, named with its series.
    const json &l2 = row_labelled(g, "L2 bandwidth (best series declared L2)");
    EXPECT_DOUBLE_EQ(l2["value"].get<double>(), best_declared(h100(), "l2_bandwidth"));
    EXPECT_EQ(l2["from"].get<std::string>().rfind("cluster_shared 'exchange through global memory (L2)'", 0), 0u) << l2["from"];
    const json &l1 = row(g, "carveout", "values.read_gbs");
    EXPECT_DOUBLE_EQ(l1["value"].get<double>(), best_value(h100(), "carveout", "read_gbs"));
    EXPECT_FALSE(l1.contains("theoretical"));
}

TEST(Glance, WhatTheRunLacksIsNotMeasuredWithTheReason) {
    const json g = gmreport::glance(h100());
    for (const char *k : {"copy_gbs_max", "bidirectional_gbs_max"}) {
        const json &r = row(g, "peer", k);
        EXPECT_FALSE(r.contains("value"));
        EXPECT_EQ(r["missing"].get<std::string>().rfind("not measured: peer is not applicable here: peer needs two or more CUDA devices", 0),
                  0u)
            << r["missing"];
    }
    // The H200's committed run predates read_write.
    const json h = gmreport::glance(h200());
    EXPECT_EQ(row(h, "read_write", "read_gbs")["missing"], "not measured: the run has no read_write result");
    EXPECT_DOUBLE_EQ(row(h, "stream", "copy_gbs")["value"].get<double>(), summary_value(h200(), "stream", "copy_gbs"));
    EXPECT_DOUBLE_EQ(row(h, "stream", "copy_gbs")["theoretical"].get<double>(), h200()["device"]["theoretical_bandwidth_gbs"].get<double>());
    EXPECT_DOUBLE_EQ(row(h, "latency", "dram_ns")["value"].get<double>(), summary_value(h200(), "latency", "dram_ns"));
    // A two-GPU run of peer alone: peer measured, the rest not.
    const json p = gmreport::glance(run_named("nvidia-h200-x2-peer.json"));
    EXPECT_DOUBLE_EQ(row(p, "peer", "copy_gbs_max")["value"].get<double>(),
                     summary_value(run_named("nvidia-h200-x2-peer.json"), "peer", "copy_gbs_max"));
    EXPECT_EQ(row(p, "stream", "copy_gbs")["missing"], "not measured: the run has no stream result");
}

TEST(Glance, CrowdMediansOfTheModelFromTheServersAnswers) {
    const json answer = {
        {"experiment", "stream"},
        {"models",
         {{{"key", "h100-a"}, {"name", "NVIDIA H100 80GB HBM3"}, {"uploads", 2},
           {"figures", {{"copy_gbs", {{"n", 2}, {"median", 2900.0}}}, {"copy_gbs/theoretical", {{"n", 2}, {"median", 0.87}}}}}},
          {{"key", "h100-b"}, {"name", "nvidia h100 80gb hbm3"}, {"uploads", 5},
           {"figures", {{"copy_gbs", {{"n", 5}, {"median", 2950.0}}}, {"cudaMemcpy_gbs", {{"n", 5}, {"median", 2940.0}}}}}},
          {{"key", "h200"}, {"name", "NVIDIA H200"}, {"uploads", 9}, {"figures", {{"copy_gbs", {{"n", 9}, {"median", 4100.0}}}}}}}}};
    const json crowd = gmreport::crowd_from_answers("http://127.0.0.1:1", "NVIDIA H100 80GB HBM3",
                                                    {{"stream", answer}, {"latency", json("127.0.0.1:1: connection refused")}});
    // The key of that name with the most uploads; a basis ("/theoretical") is not a figure of the run.
    EXPECT_EQ(crowd["figures"]["stream/copy_gbs"]["median"], 2950.0);
    EXPECT_EQ(crowd["figures"]["stream/copy_gbs"]["key"], "h100-b");
    EXPECT_FALSE(crowd["figures"].contains("stream/copy_gbs/theoretical"));
    ASSERT_EQ(crowd["problems"].size(), 1u);
    EXPECT_EQ(crowd["problems"][0], "latency: 127.0.0.1:1: connection refused");
    const json g = gmreport::glance(h100(), crowd);
    EXPECT_EQ(row(g, "stream", "copy_gbs")["crowd"]["median"], 2950.0);
    EXPECT_EQ(row(g, "stream", "cudaMemcpy_gbs")["crowd"]["n"], 5);
    EXPECT_TRUE(row(g, "read_write", "read_gbs").contains("crowd_missing"));
    std::ostringstream text;
    gmreport::write_glance_text(text, g, false);
    EXPECT_NE(text.str().find("crowd median"), std::string::npos);
    EXPECT_NE(text.str().find("2950 GB/s (n 5)"), std::string::npos) << text.str();
    EXPECT_NE(text.str().find("crowd: latency: 127.0.0.1:1: connection refused"), std::string::npos);
}

TEST(Glance, TheReportOpensWithIt) {
    std::ostringstream text;
    gmreport::write_run_text(text, h100(), false);
    const std::string t = text.str();
    const std::size_t at = t.find("== This GPU at a glance");
    ASSERT_NE(at, std::string::npos);
    const std::size_t first_result = t.find("\n== stream");
    EXPECT_LT(at, first_result);
    // One screen: the glance is fewer than 30 lines.
    EXPECT_LT(std::count(t.begin() + at, t.begin() + first_result, '\n'), 30);
    EXPECT_EQ(t.find("crowd median"), std::string::npos);
    // Footnote 1 is the L2 row's caveat (its figure is below the DRAM read), 2 peer's absence.
    EXPECT_NE(t.find("GB/s [1]", at), std::string::npos);
    EXPECT_NE(t.find("not measured [2]", at), std::string::npos);
    EXPECT_NE(t.find("[2] not measured: peer is not applicable here", at), std::string::npos);
    std::ostringstream md;
    gmreport::write_run_text(md, h100(), true);
    EXPECT_NE(md.str().find("## This GPU at a glance"), std::string::npos);
    if (gmreport::html_available()) {
        const std::string h = gmreport::html_report(h100());
        const std::size_t sec = h.find("<section id=\"glance\">");
        ASSERT_NE(sec, std::string::npos);
        EXPECT_LT(sec, h.find("<section id=\"stream\">"));
        EXPECT_NE(h.find("<td class=\"missing\">not measured<sup>2</sup></td>", sec), std::string::npos);
        EXPECT_EQ(h.find("crowd median"), std::string::npos);
    }
}

TEST(Glance, AnL2FigureBelowTheDramReadSaysItIsNotL2sLimit) {
    // The committed H200 run of e5ee7e1: the best series declared L2 (l2_persist) reads below DRAM.
    const json &run = run_named("nvidia-h200-standard-suite-e5ee7e1.json");
    const json g = gmreport::glance(run);
    const json &l2 = row_labelled(g, "L2 bandwidth (best series declared L2)");
    const double read = summary_value(run, "read_write", "read_gbs");
    ASSERT_LT(l2["value"].get<double>(), read);
    EXPECT_NE(l2.value("caveat", "").find("not L2's limit"), std::string::npos);
    std::ostringstream text;
    gmreport::write_glance_text(text, g, false);
    EXPECT_NE(text.str().find("not L2's limit"), std::string::npos);
    EXPECT_NE(gmreport::glance_html(g).find("not L2&#39;s limit"), std::string::npos);
    // Where the L2 figure is above the DRAM read, no caveat.
    json above = run;
    for (json &r : above["results"])
        if (r["experiment"]["name"] == "read_write") r["summary"]["read_gbs"] = 1.0;
    EXPECT_FALSE(row_labelled(gmreport::glance(above), "L2 bandwidth (best series declared L2)").contains("caveat"));
}
