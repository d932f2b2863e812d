// The built-in rules: each parses, names an experiment, and finds its cost in
// the committed H200 run; the metrics the kernel rules read are asked for.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <map>
#include <optional>

#include "explain/lab_figures.hpp"
#include "explain/rule_book.hpp"

using namespace gmexplain;

namespace {
LabRun committed_h200() {
    std::string why;
    auto run = find_lab_run(GMX_SOURCE_DIR "/results/nvidia-h200-standard-suite.json", "NVIDIA H200", &why);
    EXPECT_TRUE(run) << why;
    return *run;
}
}  // namespace

TEST(ExplainRules, EveryPatternOfTheIssueHasARule) {
    const RuleBook book = load_rules();
    std::set<std::string> ids;
    for (const auto &r : book.rules) ids.insert(r.id);
    for (const char *id : {"uncoalesced_global", "misaligned_global", "shared_bank_conflicts", "local_memory_spills",
                           "dram_below_attainable", "pageable_transfers", "small_transfers", "copies_not_overlapped",
                           "unified_memory_faults", "allocation_in_loop", "l2_evicted_reuse"})
        EXPECT_TRUE(ids.count(id)) << id;
}

TEST(ExplainRules, KernelRulesAskForTheirCounters) {
    const auto metrics = load_rules().metrics();
    for (const char *m : {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
                          "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                          "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "dram__bytes_read.sum",
                          "sm__sass_data_bytes_mem_global_op_ld.sum", "lts__t_sectors_lookup_hit.sum"})
        EXPECT_NE(std::find(metrics.begin(), metrics.end(), m), metrics.end()) << m;
    for (const auto &m : metrics) EXPECT_NE(m.find("__"), std::string::npos) << m;
    // The counters that records of earlier versions hold in their place are not asked for:
    // lts__throughput alone needs four replay passes on an H100.
    for (const auto &[now, before] : load_rules().recorded_before) {
        EXPECT_NE(std::find(metrics.begin(), metrics.end(), now), metrics.end()) << now;
        EXPECT_EQ(std::find(metrics.begin(), metrics.end(), before), metrics.end()) << before;
    }
}

// Records of earlier versions hold the store requests and the L2's throughput
// under other counters: they are read in their place, and a record that holds
// both reads the counter of this version.
TEST(ExplainRules, ACounterOfEarlierRecordsIsReadInPlaceOfItsSuccessor) {
    const RuleBook book = load_rules();
    Figures earlier(book, {{"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 8e6},
                           {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", 1e6},
                           {"lts__throughput.avg.pct_of_peak_sustained_elapsed", 40}});
    EXPECT_DOUBLE_EQ(earlier.get("st_sectors_per_request").value_or(0), 8.0);
    EXPECT_DOUBLE_EQ(earlier.get("l2_busy").value_or(0), 0.4);
    Figures both(book, {{"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 8e6},
                        {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", 1e6},
                        {"smsp__inst_executed_op_global_st.sum", 2e6},
                        {"lts__throughput.avg.pct_of_peak_sustained_elapsed", 40},
                        {"lts__t_sectors.avg.pct_of_peak_sustained_elapsed", 30}});
    EXPECT_DOUBLE_EQ(both.get("st_sectors_per_request").value_or(0), 4.0);
    EXPECT_DOUBLE_EQ(both.get("l2_busy").value_or(0), 0.3);
    EXPECT_FALSE(Figures(book, {}).get("l2_busy").has_value());
}

// Each rule's cost is read from the lab's run: with figures that make the rule's
// point exist, the cost is found in the committed H200 run and is positive.
TEST(ExplainRules, EveryCostIsFoundInTheCommittedRun) {
    const RuleBook book = load_rules();
    const LabRun lab = committed_h200();
    std::map<std::string, double> base = {
        {"global_excess", 4}, {"shared_n_way", 8}, {"mean_alloc_bytes", 4 << 20}, {"constant_requests_per_ldc", 8}};
    Figures figures(book, base);
    for (const auto &r : book.rules) {
        const Cost c = look_up_cost(lab, r.cost, figures.lookup());
        if (r.cost.experiment == "peer") {  // one GPU: the run says peer is not applicable, and the cost is missing
            EXPECT_FALSE(c.found) << r.id;
            EXPECT_NE(c.missing.find("peer"), std::string::npos) << c.missing;
            continue;
        }
        EXPECT_TRUE(c.found) << r.id << ": " << c.missing;
        EXPECT_GT(c.value, 0) << r.id;
    }
}

TEST(ExplainRules, StrideCostIsTheMeasuredRatio) {
    const RuleBook book = load_rules();
    const LabRun lab = committed_h200();
    const auto rule = std::find_if(book.rules.begin(), book.rules.end(), [](const Rule &r) { return r.id == "uncoalesced_global"; });
    ASSERT_NE(rule, book.rules.end());
    Figures figures(book, {{"global_excess", 4}});
    const Cost c = look_up_cost(lab, rule->cost, figures.lookup());
    ASSERT_TRUE(c.found);
    EXPECT_EQ(c.at_x, 4);
    EXPECT_EQ(c.baseline_x, 1);
    // The figure is the committed run's stride-4 bandwidth over stride 1's, not a constant.
    double s1 = 0, s4 = 0;
    for (const auto &res : lab.doc["results"])
        if (res["experiment"]["name"] == "stride_copy")
            for (const auto &s : res["series"])
                if (s["name"] == "guide, 4-byte words")
                    for (const auto &p : s["points"]) {
                        if (p["x"] == 1) s1 = p["bandwidth_gbs"];
                        if (p["x"] == 4) s4 = p["bandwidth_gbs"];
                    }
    EXPECT_DOUBLE_EQ(c.value, s4 / s1);
}

// The floor a memory-path fix stops at runs at the bandwidth the lab's
// word-per-thread copy reaches at the kernel's load width, read from the run
// (figures.json "lab"), never above stream's copy.
TEST(ExplainRules, TheFixedPatternRunsAtTheLabsWordCopyBandwidth) {
    const RuleBook book = load_rules();
    const LabRun lab = committed_h200();
    ASSERT_EQ(book.lab.count("word_copy_4_gbs"), 1u);
    std::map<std::string, double> s1;  // word bytes -> stride 1's bandwidth in the committed run
    for (const auto &res : lab.doc["results"])
        if (res["experiment"]["name"] == "stride_copy")
            for (const auto &s : res["series"])
                for (int w : {4, 8, 16})
                    if (s["name"] == "guide, " + std::to_string(w) + "-byte words")
                        for (const auto &p : s["points"])
                            if (p["x"] == 1) s1[std::to_string(w)] = p["bandwidth_gbs"];
    ASSERT_EQ(s1.size(), 3u);
    const double stream = 4176.0;
    for (const auto &[ideal, want] : std::map<double, std::string>{{4, "4"}, {2.1, "4"}, {8, "8"}, {16, "16"}}) {
        Figures figures(book, {{"ld_ideal_sectors_per_request", ideal}, {"attainable_dram_gbs", stream}});
        add_lab_figures(book, figures, &lab);
        EXPECT_DOUBLE_EQ(*figures.get("fixed_pattern_gbs"), std::min(stream, s1[want])) << ideal;
    }
    // Without the lab's figure, stream's copy.
    Figures bare(book, {{"ld_ideal_sectors_per_request", 4}, {"attainable_dram_gbs", stream}});
    EXPECT_DOUBLE_EQ(*bare.get("fixed_pattern_gbs"), stream);
}

// Pageable copies are priced by direction at their mean size: the lab's
// pageable and pinned bandwidths of that direction.
TEST(ExplainRules, PageableCopiesArePricedByDirection) {
    const RuleBook book = load_rules();
    const LabRun lab = committed_h200();
    Figures figures(book, {{"pageable_h2d_bytes", 4.0 * (256 << 20)}, {"pageable_h2d_copies", 4},
                           {"pageable_d2h_bytes", 0}, {"pageable_d2h_copies", 0}});
    add_lab_figures(book, figures, &lab);
    const auto pageable = figures.get("pageable_h2d_gbs"), pinned = figures.get("pinned_h2d_gbs");
    ASSERT_TRUE(pageable && pinned);
    EXPECT_LT(*pageable * 2, *pinned);  // this run's pageable 256 MiB copies are several times slower
    EXPECT_FALSE(figures.get("word_copy_4_gbs") == std::nullopt);
}

TEST(ExplainRules, ALabFigureWithoutItsSeriesIsNamed) {
    nlohmann::json j = {{"experiment", "stride_copy"}, {"text", "t"}};
    try {
        parse_rule({{"id", "x"}, {"scope", "kernel"}, {"title", "t"}, {"when", "1"}, {"finding", "f"}, {"experiment", "e"},
                    {"fix", "f"}, {"gain", "1"}, {"evidence", nlohmann::json::array()}, {"cost", j}},
                   "x.json");
        FAIL() << "a cost with neither summary nor series was accepted";
    } catch (const std::invalid_argument &e) {
        EXPECT_NE(std::string(e.what()).find("x.json: cost"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("series"), std::string::npos) << e.what();
    }
}

TEST(ExplainRules, ARunOfAnotherGpuIsRefused) {
    std::string why;
    EXPECT_FALSE(find_lab_run(GMX_SOURCE_DIR "/results/nvidia-h200-standard-suite.json", "NVIDIA H100 80GB HBM3", &why));
    EXPECT_NE(why.find("NVIDIA H200"), std::string::npos) << why;
}

TEST(ExplainRules, MalformedRuleFilesAreNamed) {
    nlohmann::json j = {{"id", "x"}, {"scope", "device"}};
    try {
        parse_rule(j, "x.json");
        FAIL() << "a bad scope was accepted";
    } catch (const std::invalid_argument &e) {
        EXPECT_NE(std::string(e.what()).find("x.json"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("scope"), std::string::npos);
    }
}

TEST(ExplainRules, TemplatesFillFigures) {
    auto look = [](const std::string &n) -> std::optional<double> {
        if (n == "share") return 0.256;
        if (n == "x") return 3.14159;
        return std::nullopt;
    };
    EXPECT_EQ(fill_template("{share:.0%} and {x:.2f} and {y}", look), "26 % and 3.14 and ?");
}

TEST(ExplainGains, AKernelsFindingsSaveTogetherAtMostItsTime) {
    auto finding = [](std::optional<double> gain) {
        Finding f;
        f.gain_ms = gain;
        return f;
    };
    EXPECT_FALSE(combined_gain_ms({}, 5.0).has_value());
    EXPECT_FALSE(combined_gain_ms({finding(std::nullopt)}, 5.0).has_value());
    EXPECT_DOUBLE_EQ(*combined_gain_ms({finding(1.0), finding(std::nullopt), finding(2.5)}, 5.0), 3.5);
    // Two findings of 3 ms each on a kernel of 4 ms: together 4 ms, not 6.
    EXPECT_DOUBLE_EQ(*combined_gain_ms({finding(3.0), finding(3.0)}, 4.0), 4.0);
    EXPECT_DOUBLE_EQ(*combined_gain_ms({finding(3.0)}, std::numeric_limits<double>::infinity()), 3.0);
}

namespace {
// The uncoalesced_global verdict on a kernel of 10 ms that uses 4x the sectors
// its data needs, with the units' busy shares given.
Finding strided_verdict(std::map<std::string, double> busy) {
    const RuleBook book = load_rules();
    const LabRun lab = committed_h200();
    std::map<std::string, double> base = {{"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 16e6},
                                          {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 1e6},
                                          {"sm__sass_data_bytes_mem_global_op_ld.sum", 128e6},
                                          {"time_ms", 10.0}};
    base.insert(busy.begin(), busy.end());
    Figures figures(book, base);
    const Verdicts v = apply_rules(book, "kernel", figures, &lab, "");
    const auto it = std::find_if(v.findings.begin(), v.findings.end(), [](const Finding &f) { return f.rule == "uncoalesced_global"; });
    EXPECT_NE(it, v.findings.end());
    return it == v.findings.end() ? Finding{} : *it;
}
}  // namespace

// A memory pattern on a kernel whose compute units set its time (a GEMM on the
// tensor pipes) is present but not limiting: listed with its evidence, no gain.
// (The L2's share as an earlier version recorded it, lts__throughput.)
TEST(ExplainLimiter, APatternOnAComputeBoundKernelIsPresentNotLimiting) {
    const Finding gemm = strided_verdict({{"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", 85},
                                          {"lts__throughput.avg.pct_of_peak_sustained_elapsed", 30},
                                          {"dram__throughput.avg.pct_of_peak_sustained_elapsed", 12},
                                          {"l1tex__t_sectors.avg.pct_of_peak_sustained_elapsed", 40}});
    EXPECT_FALSE(gemm.limiting);
    EXPECT_FALSE(gemm.gain_ms.has_value());
    EXPECT_NE(gemm.not_limiting.find("85 %"), std::string::npos) << gemm.not_limiting;
    EXPECT_NE(gemm.not_limiting.find("40 %"), std::string::npos) << gemm.not_limiting;
}

TEST(ExplainLimiter, AMemoryBoundKernelKeepsItsGain) {
    const Finding copy = strided_verdict({{"sm__inst_executed.avg.pct_of_peak_sustained_active", 20},
                                          {"lts__t_sectors.avg.pct_of_peak_sustained_elapsed", 75},
                                          {"dram__throughput.avg.pct_of_peak_sustained_elapsed", 88}});
    EXPECT_TRUE(copy.limiting);
    ASSERT_TRUE(copy.gain_ms.has_value());
    EXPECT_GT(*copy.gain_ms, 0);
    // Busy compute beside a memory path as busy is not "compute-bound" either.
    EXPECT_TRUE(strided_verdict({{"sm__inst_executed.avg.pct_of_peak_sustained_active", 70},
                                 {"dram__throughput.avg.pct_of_peak_sustained_elapsed", 65}})
                    .limiting);
}

// Records counted before the busy shares existed judge as before.
TEST(ExplainLimiter, WithoutBusyCountsEveryPatternIsLimiting) {
    const Finding old = strided_verdict({});
    EXPECT_TRUE(old.limiting);
    EXPECT_TRUE(old.gain_ms.has_value());
}
