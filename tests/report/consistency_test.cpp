// The run's consistency section (tools/report/consistency.hpp) on the
// committed runs: computed from the results' summaries, quiet where the
// experiments agree, flagged where one figure is moved by 10 %, and never
// flagged by a figure that is only shown. Host only.
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "consistency.hpp"
#include "document.hpp"
#include "html_report.hpp"
#include "library_descriptions.hpp"
#include "text_report.hpp"
#include "vocabulary/consistency.hpp"

using nlohmann::json;

namespace {

const std::string kCommitted = std::string(GM_SOURCE_DIR) + "/results/nvidia-h200-standard-suite.json";

const json &committed() {
    static const json run = gmreport::load_run(kCommitted);
    return run;
}

const json *group(const json &block, const std::string &quantity) {
    for (const json &g : block["groups"])
        if (g["quantity"] == quantity) return &g;
    return nullptr;
}

const json *figure(const json &g, const std::string &experiment, const std::string &key) {
    for (const json &f : g["figures"])
        if (f["experiment"] == experiment && f["key"] == key) return &f;
    return nullptr;
}

json &summary_of(json &run, const std::string &experiment) {
    for (json &r : run["results"])
        if (r["experiment"]["name"] == experiment) return r["summary"];
    throw std::runtime_error("no " + experiment + " in the run");
}

}  // namespace

TEST(Consistency, ComputedFromTheCommittedRun) {
    const json block = gmreport::consistency(committed());
    for (const char *q : {"l2_hit_latency", "l2_far_hit_latency", "l1_hit_latency", "dram_latency", "shared_latency",
                          "dram_copy_bandwidth", "pinned_h2d_bandwidth", "l1_capacity", "l2_capacity"})
        EXPECT_NE(group(block, q), nullptr) << q;
    const json &l2 = *group(block, "l2_hit_latency");
    int agreeing = 0;
    for (const json &f : l2["figures"]) agreeing += f["role"] == "agree";
    EXPECT_EQ(agreeing, 4);  // latency, l2_partitions, memory_spaces, cluster_shared; the far level only shown
    ASSERT_NE(figure(l2, "latency", "l2_far_cycles"), nullptr);
    EXPECT_EQ((*figure(l2, "latency", "l2_far_cycles"))["role"], "shown");
    EXPECT_FALSE(l2["flagged"].get<bool>());
    EXPECT_LT(l2["spread"].get<double>(), 0.05);  // within a latency's limit (one H200 run: 0.8 %, another 1.1 %)
    EXPECT_NEAR(l2["reference"].get<double>(), 280, 5);  // the L2 hit latency of an H200, in cycles
    const json &copy = *group(block, "dram_copy_bandwidth");
    ASSERT_NE(figure(copy, "compressible", "random_read_plain_gbs"), nullptr);
    EXPECT_EQ((*figure(copy, "compressible", "random_read_plain_gbs"))["role"], "shown");
    // A flag is exactly a spread beyond the tolerance, and says why; the count is the flagged groups'.
    int flagged = 0;
    for (const json &g : block["groups"]) {
        flagged += g["flagged"].get<bool>();
        if (g["rule"] == "spread") EXPECT_EQ(g["flagged"].get<bool>(), g["spread"].get<double>() > g["tolerance"].get<double>()) << g;
        if (g["flagged"].get<bool>()) EXPECT_FALSE(g["why"].get<std::string>().empty()) << g;
    }
    EXPECT_EQ(block["flagged"], flagged);
    // The run committed with the plateau finder: its far level was the second
    // half of the near level (280.3 cycles) while l2_partitions measured 457.
    const json &run = committed();
    for (const json &r : run["results"])
        if (r["experiment"]["name"] == "latency" && r["summary"].value("l2_far_cycles", 0.0) < 300) {
            const json &far = *group(block, "l2_far_hit_latency");
            EXPECT_TRUE(far["flagged"].get<bool>());
            EXPECT_NE(far["why"].get<std::string>().find("latency l2_far_cycles"), std::string::npos) << far["why"];
        }
}

TEST(Consistency, TheLevelsOfTheNewFinderAgreeWithL2Partitions) {
    json run = committed();
    // What src/experiments/common/levels.cpp finds in this run's ld.cg chase (levels_test.cpp).
    summary_of(run, "latency")["l2_far_cycles"] = 446.8;
    summary_of(run, "latency")["l2_bytes"] = 53264256.0;
    summary_of(run, "latency")["l2_falls_bytes"] = 67108864.0;
    summary_of(run, "latency")["l1_falls_bytes"] = 262144.0;
    summary_of(run, "carveout")["carveout0_fits_bytes"] = 204800.0;
    summary_of(run, "carveout")["carveout0_falls_bytes"] = 327680.0;
    const json block = gmreport::consistency(run);
    EXPECT_FALSE((*group(block, "l2_far_hit_latency"))["flagged"].get<bool>());  // 446.8 beside 457
    const json &l1 = *group(block, "l1_capacity");
    EXPECT_FALSE(l1["flagged"].get<bool>());
    // 203 KiB .. 256 KiB (latency) and 200 .. 320 KiB (carveout) overlap from 203 KiB x 0.95 to 256 KiB.
    EXPECT_DOUBLE_EQ(l1["overlap_from"].get<double>(), 208000 * 0.95);
    EXPECT_DOUBLE_EQ(l1["overlap_to"].get<double>(), 262144);
    const json *model = figure(l1, "carveout", "carveout0_l1_predicted_bytes");
    ASSERT_NE(model, nullptr);
    EXPECT_FALSE((*model)["outside"].get<bool>());  // the model's 248 KiB lies in the overlap
    const json &l2 = *group(block, "l2_capacity");
    EXPECT_FALSE(l2["flagged"].get<bool>());  // 50.8 .. 64 MiB holds the 60 MiB reported
}

TEST(Consistency, ALatencyMovedTenPercentIsFlagged) {
    json run = committed();
    summary_of(run, "memory_spaces")["l2_cycles"] = summary_of(run, "memory_spaces")["l2_cycles"].get<double>() * 1.10;
    const json block = gmreport::consistency(run);
    const json &l2 = *group(block, "l2_hit_latency");
    EXPECT_TRUE(l2["flagged"].get<bool>());
    EXPECT_GT(l2["spread"].get<double>(), 0.05);
    EXPECT_TRUE((*figure(l2, "memory_spaces", "l2_cycles"))["outside"].get<bool>());
    EXPECT_FALSE((*figure(l2, "latency", "l2_near_cycles"))["outside"].get<bool>());
    EXPECT_FALSE((*figure(l2, "l2_partitions", "near_cycles"))["outside"].get<bool>());
    EXPECT_NE(l2["why"].get<std::string>().find("memory_spaces l2_cycles +"), std::string::npos) << l2["why"];
    // 4 % is within the 5 % of a latency.
    json close = committed();
    summary_of(close, "memory_spaces")["l2_cycles"] = summary_of(close, "memory_spaces")["l2_cycles"].get<double>() * 1.04;
    EXPECT_FALSE((*group(gmreport::consistency(close), "l2_hit_latency"))["flagged"].get<bool>());
}

TEST(Consistency, ABandwidthMovedTenPercentIsFlaggedAndAShownOneNever) {
    json run = committed();
    summary_of(run, "transpose")["copy_w4_gbs"] = summary_of(run, "stream")["copy_gbs"].get<double>() * 0.90;
    // A shown figure far off flags nothing: it measures something else.
    summary_of(run, "managed_memory")["explicit_copy_read_gbs"] = 20.0;
    const json block = gmreport::consistency(run);
    EXPECT_TRUE((*group(block, "dram_copy_bandwidth"))["flagged"].get<bool>());
    const json &h2d = *group(block, "pinned_h2d_bandwidth");
    EXPECT_FALSE(h2d["flagged"].get<bool>());
    EXPECT_TRUE((*figure(h2d, "managed_memory", "explicit_copy_read_gbs"))["outside"].get<bool>());
    EXPECT_FALSE((*figure(h2d, "managed_memory", "explicit_copy_read_gbs"))["reason"].get<std::string>().empty());
}

// The pinned host-to-device pair is the same 64 MiB copy in two experiments,
// read from their series' points: moving one point by 5 % flags the group and
// names that figure.
TEST(Consistency, ASeriesPointIsAFigure) {
    json run = committed();
    const json block = gmreport::consistency(run);
    const json *h2d = group(block, "pinned_h2d_bandwidth");
    ASSERT_NE(h2d, nullptr);
    ASSERT_NE(figure(*h2d, "transfer", "pinned, host to device@67108864"), nullptr);
    ASSERT_NE(figure(*h2d, "transfer_batching", "h2d: one copy of N x 64 KiB@1024"), nullptr);
    EXPECT_FALSE((*h2d)["flagged"].get<bool>());
    for (json &r : run["results"])
        if (r["experiment"]["name"] == "transfer_batching")
            for (json &s : r["series"])
                if (s["name"] == "h2d: one copy of N x 64 KiB")
                    for (json &p : s["points"])
                        if (p["x"] == 1024) p["bandwidth_gbs"] = p["bandwidth_gbs"].get<double>() * 0.95;
    const json moved = gmreport::consistency(run);
    const json &g = *group(moved, "pinned_h2d_bandwidth");
    EXPECT_TRUE(g["flagged"].get<bool>());
    EXPECT_NE(g["why"].get<std::string>().find("transfer_batching h2d: one copy of N x 64 KiB@1024"), std::string::npos) << g["why"];
}

TEST(Consistency, CapacityBracketsThatDoNotOverlapAreFlagged) {
    json run = committed();
    summary_of(run, "latency")["l1_falls_bytes"] = 262144.0;
    summary_of(run, "carveout")["carveout0_fits_bytes"] = 327680.0;  // the old finder: "still fits at 320 KiB"
    summary_of(run, "carveout").erase("carveout0_falls_bytes");
    const json block = gmreport::consistency(run);
    const json &l1 = *group(block, "l1_capacity");
    EXPECT_TRUE(l1["flagged"].get<bool>());
    EXPECT_NE(l1["why"].get<std::string>().find("carveout carveout0_fits_bytes"), std::string::npos) << l1["why"];
}

TEST(Consistency, AFigureAbsentFromTheRunIsLeftOutAndALoneExperimentMakesNoGroup) {
    json run = committed();
    json kept = json::array();
    for (const json &r : run["results"])
        if (r["experiment"]["name"] == "stream" || r["experiment"]["name"] == "latency") kept.push_back(r);
    run["results"] = kept;
    const json block = gmreport::consistency(run);
    EXPECT_EQ(group(block, "l2_hit_latency"), nullptr);     // latency alone
    EXPECT_EQ(group(block, "dram_copy_bandwidth"), nullptr);  // stream alone (its cudaMemcpy is only shown)
    ASSERT_NE(group(block, "l2_capacity"), nullptr);           // latency beside the device's report
}

TEST(Consistency, TextAndHtmlCarryTheSection) {
    json run = committed();
    summary_of(run, "stream")["copy_gbs"] = summary_of(run, "stream")["copy_gbs"].get<double>() * 1.10;
    run.erase("consistency");  // the run's own block would be printed as it is: computed afresh here
    std::ostringstream text;
    gmreport::write_run_text(text, run, false);
    const std::string t = text.str();
    const std::size_t at = t.find("== consistency: one quantity, several experiments");
    ASSERT_NE(at, std::string::npos);
    EXPECT_GT(at, t.find("== carveout"));  // at the end, after every result
    EXPECT_NE(t.find("DRAM copy bandwidth (GB/s): FLAGGED", at), std::string::npos) << t.substr(at);
    EXPECT_NE(t.find("L2 hit latency (near partition) (cycles): ", at), std::string::npos) << t.substr(at);
    EXPECT_NE(t.find("(shown) cudaMemcpy device to device: the driver's copy", at), std::string::npos) << t.substr(at);
    std::ostringstream md;
    gmreport::write_run_text(md, run, true);
    EXPECT_NE(md.str().find("## consistency: one quantity, several experiments"), std::string::npos);
    if (gmreport::html_available()) {
        const std::string h = gmreport::html_report(run);
        EXPECT_NE(h.find("<section id=\"consistency\">"), std::string::npos);
        EXPECT_NE(h.find("<a href=\"#consistency\">consistency</a>"), std::string::npos);
        EXPECT_NE(h.find("FLAGGED"), std::string::npos);
    }
    EXPECT_NE(gmreport::consistency_html(gmreport::consistency(run)).find("<section id=\"consistency\">"), std::string::npos);
}

// The run's own verdicts are printed as gmlab run wrote them; a quantity the
// block lacks (one this report knows and the run's gmlab did not) is computed
// and marked as such.
TEST(Consistency, ARunDocumentsOwnBlockIsUsed) {
    json run = committed();
    json own = gmreport::consistency(run);
    ASSERT_GE(own["groups"].size(), 2u);
    own["groups"][0]["why"] = "as the run's gmlab wrote it";
    const json dropped = own["groups"][1];
    own["groups"].erase(own["groups"].begin() + 1);
    run["consistency"] = own;
    const json block = gmreport::consistency_of(run);
    EXPECT_EQ(block["groups"][0]["why"], "as the run's gmlab wrote it");
    EXPECT_FALSE(block["groups"][0].contains("computed_by_report"));
    EXPECT_EQ(block["groups"].size(), own["groups"].size() + 1);
    EXPECT_EQ(block["groups"].back()["quantity"], dropped["quantity"]);
    EXPECT_TRUE(block["groups"].back()["computed_by_report"].get<bool>());
    run.erase("consistency");
    EXPECT_FALSE(gmreport::consistency_of(run)["groups"].empty());
}

// Two older runs of the standard suite (H200 and H100, made before the
// consistency section existed), kept in tests/report/data.
TEST(Consistency, OlderRunsAreComputedToo) {
    for (const char *name : {"nvidia-h200-older-run-32.json.gz", "nvidia-h100-80gb-hbm3-older-run.json.gz"}) {
        const std::string path = std::string(GM_SOURCE_DIR) + "/tests/report/data/" + name;
        ASSERT_TRUE(std::ifstream(path).good()) << path;
        const json block = gmreport::consistency(gmreport::load_run(path));
        const json *l2 = group(block, "l2_hit_latency");
        ASSERT_NE(l2, nullptr) << name;
        EXPECT_FALSE((*l2)["flagged"].get<bool>()) << name;
        ASSERT_NE(group(block, "dram_latency"), nullptr) << name;
    }
}

// The committed run with its consistency block, as gmlab run writes it: the
// file the schema is checked against (tests/schema/validate.py).
TEST(Consistency, WritesTheCommittedRunWithItsBlock) {
    json run = committed();
    run["consistency"] = gmreport::consistency(run);
    std::ofstream("sample_run_consistency.json") << run.dump(2);
    EXPECT_TRUE(std::ifstream("sample_run_consistency.json").good());
}

// The section is built from what the experiments declare (their descriptions'
// "consistency"): every declared figure, renamed or not, must be found in the
// committed run, so that renaming a summary key, a series or a device field
// without its declaration fails here instead of dropping out of the section.
TEST(Consistency, EveryDeclaredFigureIsInTheCommittedRun) {
    const json block = gmreport::consistency(committed());
    int declared = 0;
    for (const auto &[experiment, d] : gmreport::library_descriptions()) {
        if (!d.contains("consistency")) continue;
        for (const json &j : d["consistency"]) {
            const gmvocab::ConsistencyFigure f = gmvocab::consistency_from_json(j);
            bool known = false;
            for (const auto &q : gmvocab::kSharedQuantities) known = known || f.quantity == q.name;
            EXPECT_TRUE(known) << experiment << " declares an unknown quantity " << f.quantity;
            const json *g = group(block, f.quantity);
            ASSERT_NE(g, nullptr) << f.quantity;
            const std::string holder = f.from_device ? "device" : experiment;
            const json *found = figure(*g, holder, f.key);
            EXPECT_NE(found, nullptr) << holder << " " << f.key << " (" << f.quantity << ") is not in the committed run";
            if (found && !f.high_key.empty()) EXPECT_TRUE(found->contains("high")) << holder << " " << f.high_key;
            ++declared;
        }
    }
    EXPECT_EQ(declared, 35);  // the figures of the nine quantities
}
