// The consistency section's "DRAM bandwidth ordering" (tools/report/dram_ordering.hpp)
// on the committed H100 run of commit a983714, whose reads alone (2,750 GB/s)
// fall 8.6 % below its triad (3,009): flagged as measured, and not flagged in
// a copy of the run whose read_write result states why in a note. Host only.
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "consistency.hpp"
#include "document.hpp"
#include "dram_ordering.hpp"
#include "html_report.hpp"
#include "text_report.hpp"

using nlohmann::json;

namespace {

const std::string kResults = std::string(GM_SOURCE_DIR) + "/results/";

const json &h100() {
    static const json run = gmreport::load_run(kResults + "nvidia-h100-80gb-hbm3-standard-suite-a983714.json");
    return run;
}

json &result_of(json &run, const std::string &experiment) {
    for (json &r : run["results"])
        if (r["experiment"]["name"] == experiment) return r;
    throw std::runtime_error("no " + experiment + " in the run");
}

double summary_value(const json &run, const std::string &experiment, const std::string &key) {
    return (*gmreport::find_result(run, experiment))["summary"][key].get<double>();
}

const json &figure(const json &g, const std::string &key) {
    for (const json &f : g["figures"])
        if (f["key"] == key) return f;
    throw std::runtime_error("no figure " + key);
}

const char *kReason = "DRAM ordering: the read kernel reached 2,750 GB/s with 4 to 16 loads in flight per thread (fixture text)";

}  // namespace

TEST(DramOrdering, TheCommittedH100RunsReadsAloneAreFlagged) {
    const json g = gmreport::dram_ordering(h100());
    ASSERT_FALSE(g.is_null());
    EXPECT_EQ(g["rule"], "ordering");
    EXPECT_EQ(g["figures"].size(), 6u);  // read, write, memset, copy, triad, cudaMemcpy
    // The bar is the best of copy, triad and cudaMemcpy, the run's own figures.
    EXPECT_EQ(g["reference_key"], "stream triad_gbs");
    EXPECT_DOUBLE_EQ(g["reference"].get<double>(), summary_value(h100(), "stream", "triad_gbs"));
    const json &read = figure(g, "read_gbs");
    EXPECT_DOUBLE_EQ(read["value"].get<double>(), summary_value(h100(), "read_write", "read_gbs"));
    EXPECT_NEAR(read["deviation"].get<double>(), 2749.913 / 3009.366 - 1, 1e-9);
    EXPECT_TRUE(read["outside"].get<bool>());
    EXPECT_FALSE(read["explained"].get<bool>());
    // Writes alone and memset reach past the bar; copy and cudaMemcpy are within 5 % of triad.
    for (const char *k : {"write_gbs", "memset_gbs", "copy_gbs", "cudaMemcpy_gbs", "triad_gbs"})
        EXPECT_FALSE(figure(g, k)["outside"].get<bool>()) << k;
    EXPECT_TRUE(g["flagged"].get<bool>());
    EXPECT_NE(g["why"].get<std::string>().find("read_write read_gbs 8.6 % below"), std::string::npos) << g["why"];
    // The whole block counts it.
    const json block = gmreport::consistency(h100());
    EXPECT_EQ(block["groups"].back()["quantity"], "dram_ordering");
    int flagged = 0;
    for (const json &x : block["groups"]) flagged += x["flagged"].get<bool>();
    EXPECT_EQ(block["flagged"], flagged);
}

TEST(DramOrdering, ANoteInTheLowerOperationsResultExplainsIt) {
    json run = h100();
    result_of(run, "read_write")["notes"].push_back(kReason);
    const json g = gmreport::dram_ordering(run);
    EXPECT_FALSE(g["flagged"].get<bool>());
    EXPECT_FALSE(g.contains("why"));
    const json &read = figure(g, "read_gbs");
    EXPECT_TRUE(read["outside"].get<bool>());  // still below, but for a stated reason
    EXPECT_TRUE(read["explained"].get<bool>());
    EXPECT_EQ(read["reason"], kReason);
}

TEST(DramOrdering, OnlyANoteThatStartsSoAndSitsInThatResultCounts) {
    json elsewhere = h100();
    result_of(elsewhere, "stream")["notes"].push_back(kReason);  // the copy's result, not the read's
    EXPECT_TRUE(gmreport::dram_ordering(elsewhere)["flagged"].get<bool>());
    json mid = h100();
    result_of(mid, "read_write")["notes"].push_back(std::string("See below. ") + kReason);
    EXPECT_TRUE(gmreport::dram_ordering(mid)["flagged"].get<bool>());
}

TEST(DramOrdering, AReadAtTheCopysRateAndACopyFarBelowIt) {
    json run = h100();
    json &rw = result_of(run, "read_write")["summary"];
    rw["read_gbs"] = summary_value(run, "stream", "triad_gbs") * 0.96;  // 4 % below: within 5 %
    EXPECT_FALSE(gmreport::dram_ordering(run)["flagged"].get<bool>());
    result_of(run, "stream")["summary"]["cudaMemcpy_gbs"] = summary_value(run, "stream", "triad_gbs") * 0.90;
    const json g = gmreport::dram_ordering(run);
    EXPECT_TRUE(g["flagged"].get<bool>());
    EXPECT_NE(g["why"].get<std::string>().find("stream cudaMemcpy_gbs 10.0 % below"), std::string::npos) << g["why"];
}

TEST(DramOrdering, ARunWithoutReadWriteHasNoGroup) {
    // The committed H200 runs predate read_write: stream alone orders nothing.
    for (const char *name : {"nvidia-h200-standard-suite.json", "nvidia-h200-standard-suite-b33a1ba.json"}) {
        const json run = gmreport::load_run(kResults + name);
        EXPECT_TRUE(gmreport::dram_ordering(run).is_null()) << name;
        for (const json &g : gmreport::consistency(run)["groups"]) EXPECT_NE(g["quantity"], "dram_ordering") << name;
    }
}

// The committed run carries the block its gmlab wrote, without this group:
// the report keeps the run's verdicts and adds the group, marked as computed.
TEST(DramOrdering, TheReportAddsTheGroupToARunsOwnBlock) {
    const json &run = h100();
    ASSERT_TRUE(run.contains("consistency"));
    const int stored = run["consistency"]["flagged"].get<int>();
    const json block = gmreport::consistency_of(run);
    EXPECT_EQ(block["groups"].size(), run["consistency"]["groups"].size() + 1);
    const json &added = block["groups"].back();
    EXPECT_EQ(added["quantity"], "dram_ordering");
    EXPECT_TRUE(added["computed_by_report"].get<bool>());
    EXPECT_EQ(block["flagged"].get<int>(), stored + 1);

    std::ostringstream text;
    gmreport::write_run_text(text, run, false);
    const std::string t = text.str();
    const std::size_t at = t.find("DRAM bandwidth ordering (GB/s): FLAGGED: read_write read_gbs 8.6 % below");
    ASSERT_NE(at, std::string::npos) << t.substr(t.find("== consistency"));
    EXPECT_NE(t.find("computed by this report", at), std::string::npos);
    EXPECT_NE(t.find("from best copy", at), std::string::npos);

    json noted = run;
    result_of(noted, "read_write")["notes"].push_back(kReason);
    std::ostringstream quiet;
    gmreport::write_run_text(quiet, noted, true);
    EXPECT_NE(quiet.str().find("### DRAM bandwidth ordering (GB/s): consistent: no operation more than 5.0 % below the best"),
              std::string::npos);
    EXPECT_NE(quiet.str().find("stated reason: DRAM ordering:"), std::string::npos);
    if (gmreport::html_available()) {
        const std::string h = gmreport::html_report(run);
        const std::size_t sec = h.find("<h3>DRAM bandwidth ordering (GB/s)</h3>");
        ASSERT_NE(sec, std::string::npos);
        EXPECT_NE(h.find("<tr class=\"flagged\"><td>read_write</td><td>read_gbs</td>", sec), std::string::npos);
    }
}

// The committed H100 run with a block that holds the group, flagged and (with
// the note) explained: the file tests/schema/validate.py can check against
// the schema's consistency_group.
TEST(DramOrdering, WritesTheH100RunWithTheGroup) {
    json run = h100();
    result_of(run, "read_write")["notes"].push_back(kReason);
    run["consistency"] = gmreport::consistency(run);
    std::ofstream("sample_run_ordering.json") << run.dump(2);
    EXPECT_TRUE(std::ifstream("sample_run_ordering.json").good());
    EXPECT_EQ(run["consistency"]["groups"].back()["quantity"], "dram_ordering");
}
