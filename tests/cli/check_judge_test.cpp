// gmlab check's judge on recorded figures: the node rule (median absolute
// deviation with three or more GPUs, pairwise with two), distributions, the
// embedded reference, the theoretical fraction and floors, the L2 latency
// ceiling, unjudged GPUs, NVML health, exit codes, and the Prometheus text.
#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "check_judge.hpp"
#include "check_measure.hpp"
#include "check_output.hpp"
#include "gmlab.h"

using nlohmann::json;
using namespace gmcli::check;

namespace {

// Figures as an H200 measured them (results/nvidia-h200-standard-suite.json:
// stream copy 4176 and triad 4265 GB/s, L2 141 ns, pinned 55.4 / 55.3 GB/s),
// each GPU `scale` times those, DRAM figures times `dram`.
json gpu(int ordinal, double scale = 1.0, double dram = 1.0) {
    return {{"ordinal", ordinal},
            {"name", "NVIDIA H200"},
            {"uuid", "GPU-" + std::to_string(ordinal)},
            {"theoretical", {{"dram_gbs", 4814.3}, {"host_link_gbs", 63.0}}},
            {"figures",
             {{"dram_copy_gbs", 4176.0 * scale * dram},
              {"dram_triad_gbs", 4265.4 * scale * dram},
              {"l2_copy_gbs", 9800.0 * scale},
              {"l2_hit_latency_ns", 141.4 / scale},
              {"h2d_pinned_gbs", 55.41 * scale},
              {"d2h_pinned_gbs", 55.26 * scale}}},
            {"health", {{"source", "nvml"}, {"ecc", {{"enabled", true}, {"volatile_uncorrected", 0}}}}},
            {"errors", json::array()}};
}

json node(std::vector<json> gpus) { return {{"schema", "gmlab.check/1"}, {"gpus", gpus}, {"wall_s", 31.5}}; }

// The GPUs' slight differences a healthy node shows (within 1 %).
const double kSpread[] = {1.0, 0.995, 1.004, 0.998, 1.002, 0.997, 1.001, 0.993};

std::vector<std::string> reasons(const json &v) { return v["node"]["reasons"].get<std::vector<std::string>>(); }

json quantiles_doc(const std::string &model, double copy_q05, double copy_q50, int n) {
    return {{"model", model},
            {"uploads", n},
            {"figures",
             {{"stream/copy_gbs",
               {{"n", n}, {"quantiles", {{"0.05", copy_q05}, {"0.5", copy_q50}, {"0.95", copy_q50 * 1.02}}},
                {"fraction_quantiles", {{"0.05", copy_q05 / 4814.3}, {"0.5", copy_q50 / 4814.3}}}}}}}};
}

}  // namespace

TEST(CheckJudge, HealthyNodeOfFourIsHealthy) {
    std::vector<json> g;
    for (int i = 0; i < 4; ++i) g.push_back(gpu(i, kSpread[i]));
    const json v = judge(node(g), json(), json());
    EXPECT_EQ(v["node"]["verdict"], "healthy");
    EXPECT_EQ(v["node"]["exit_code"], kHealthy);
    EXPECT_TRUE(reasons(v).empty());
}

TEST(CheckJudge, SlowGpuOfFourIsNamedWithItsFigure) {
    std::vector<json> g;
    for (int i = 0; i < 4; ++i) g.push_back(gpu(i, kSpread[i], i == 2 ? 0.55 : 1.0));
    const json v = judge(node(g), json(), json());
    EXPECT_EQ(v["node"]["exit_code"], kDegraded);
    EXPECT_EQ(v["gpus"][2]["verdict"], "degraded");
    for (int i : {0, 1, 3}) EXPECT_EQ(v["gpus"][i]["verdict"], "healthy") << i;
    const auto r = reasons(v);
    ASSERT_EQ(r.size(), 2u);  // copy and triad, nothing else
    EXPECT_NE(r[0].find("GPU 2: dram_copy_gbs"), std::string::npos) << r[0];
    EXPECT_NE(r[1].find("GPU 2: dram_triad_gbs"), std::string::npos) << r[1];
}

TEST(CheckJudge, MadRuleAdaptsToANoisyNode) {
    // Eight GPUs spread by +-12 %: a GPU 12 % short is within the node's own spread.
    const double spread[] = {1.0, 0.88, 1.12, 0.95, 1.05, 0.9, 1.1, 1.0};
    std::vector<json> g;
    for (int i = 0; i < 8; ++i) g.push_back(gpu(i, 1.0, spread[i]));
    const json v = judge(node(g), json(), json());
    EXPECT_EQ(v["node"]["exit_code"], kHealthy) << v["node"].dump();
    const json &n = v["gpus"][1]["figures"][0]["node"];
    EXPECT_GT(n["limit"].get<double>(), kDefaultTolerance);  // the MAD term, not the tolerance
}

TEST(CheckJudge, TheLaunchesSpreadRaisesTheNodeLimit) {
    // L2 copies last microseconds: their timed launches spread by 15 % on every
    // GPU, so a 12 % difference is the measurement's, not the GPU's.
    std::vector<json> g;
    for (int i = 0; i < 4; ++i) {
        g.push_back(gpu(i, kSpread[i]));
        g.back()["figures"]["l2_copy_gbs"] = i == 1 ? 8600.0 : 9800.0;
        g.back()["spread"] = {{"l2_copy_gbs", i == 1 ? 0.5 : 0.15}};  // the odd one's own spread is not the resolution
    }
    json v = judge(node(g), json(), json());
    EXPECT_EQ(v["node"]["exit_code"], kHealthy) << v["node"].dump();
    const json &l2 = v["gpus"][1]["figures"][2];
    ASSERT_EQ(l2["figure"], "l2_copy_gbs");
    EXPECT_NEAR(l2["node"]["limit"].get<double>(), 0.3, 1e-9);
    g[1]["figures"]["l2_copy_gbs"] = 5000.0;  // far past it
    v = judge(node(g), json(), json());
    EXPECT_EQ(v["node"]["exit_code"], kDegraded);
}

TEST(CheckJudge, TwoGpusCompareEachWithTheOther) {
    const json slow = judge(node({gpu(0), gpu(1, 1.0, 0.5)}), json(), json());
    EXPECT_EQ(slow["node"]["exit_code"], kDegraded);
    EXPECT_EQ(slow["gpus"][0]["verdict"], "healthy");
    EXPECT_EQ(slow["gpus"][1]["verdict"], "degraded");
    EXPECT_NE(slow["judged_with"]["node"].get<std::string>().find("two GPUs"), std::string::npos);
    const json same = judge(node({gpu(0), gpu(1, 0.99)}), json(), json());
    EXPECT_EQ(same["node"]["exit_code"], kHealthy);
}

// One GPU and no distribution: the theoretical floor judges its DRAM figures
// (half of stream's figures is 43 % of the DRAM's theoretical, below 60 %).
TEST(CheckJudge, OneGpuWithoutDistributionsIsJudgedByTheFloor) {
    const json alone = judge(node({gpu(0, 1.0, 0.5)}), json(), json());
    EXPECT_EQ(alone["node"]["exit_code"], kDegraded);
    const json &copy = alone["gpus"][0]["figures"][0];
    EXPECT_FALSE(copy["node"]["judged"].get<bool>());
    EXPECT_TRUE(copy["theoretical"]["below_floor"].get<bool>());
    EXPECT_NE(reasons(alone)[0].find("below the theoretical floor of 60.0 %"), std::string::npos) << reasons(alone)[0];
    EXPECT_EQ(judge(node({gpu(0)}), json(), json())["node"]["exit_code"], kHealthy);  // 87 % of theoretical
    const json crowd = quantiles_doc("NVIDIA H200", 4000, 4170, 20);
    const json judged = judge(node({gpu(0, 1.0, 0.5)}), crowd, json());
    EXPECT_EQ(judged["node"]["exit_code"], kDegraded);
    const json &f = judged["gpus"][0]["figures"][0];
    EXPECT_TRUE(f["distribution"]["flag"].get<bool>());
    EXPECT_TRUE(f["theoretical"]["flag"].get<bool>());
    EXPECT_NEAR(f["theoretical"]["fraction"].get<double>(), 4176.0 * 0.5 / 4814.3, 1e-9);
}

TEST(CheckJudge, SmallDistributionsReportButDoNotFlag) {
    // 10 % short: below the crowd's lowest quantile, above the floor.
    const json crowd = quantiles_doc("NVIDIA H200", 4000, 4170, static_cast<int>(kMinDistribution) - 1);
    const json v = judge(node({gpu(0, 1.0, 0.9)}), crowd, json());
    const json &d = v["gpus"][0]["figures"][0]["distribution"];
    EXPECT_FALSE(d["judged"].get<bool>());
    EXPECT_EQ(d["percentile"].get<double>(), 5.0);  // below the lowest quantile: clamped to it
    EXPECT_EQ(v["node"]["exit_code"], kHealthy);
}

TEST(CheckJudge, BaselineOverCrowdAndItsSpreadIsTheTolerance) {
    const json baseline = quantiles_doc("NVIDIA H200", 3340.8, 4176, 50);  // a 20 % spread of copy
    const json v = judge(node({gpu(0), gpu(1, 1.0, 0.85)}), json(), baseline);
    const json &f = v["gpus"][1]["figures"][0];
    EXPECT_NEAR(f["tolerance"].get<double>(), 0.2, 1e-9);
    EXPECT_EQ(f["distribution"]["source"], "baseline");
    EXPECT_FALSE(f["flag"].get<bool>());  // copy 15 % short, inside the site's 20 %
    // Triad has no distribution in the baseline: the default tolerance, and 15 % is past it.
    const auto r = reasons(v);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_NE(r[0].find("dram_triad_gbs"), std::string::npos) << r[0];
}

TEST(CheckJudge, DistributionsOfAnotherModelAreNotUsed) {
    EXPECT_NE(model_mismatch(quantiles_doc("NVIDIA H100 80GB HBM3", 1, 2, 9), "NVIDIA H200"), "");
    EXPECT_EQ(model_mismatch(quantiles_doc("nvidia h200", 1, 2, 9), "NVIDIA H200"), "");
    EXPECT_NE(model_mismatch(json{{"x", 1}}, "NVIDIA H200"), "");
    const json v = judge(node({gpu(0, 1.0, 0.9)}), quantiles_doc("NVIDIA H100 80GB HBM3", 4000, 4170, 20), json());
    EXPECT_EQ(v["node"]["exit_code"], kHealthy);
}

TEST(CheckJudge, HealthAndFailuresDecideUnusable) {
    json ecc = gpu(1);
    ecc["health"]["ecc"]["volatile_uncorrected"] = 3;
    json v = judge(node({gpu(0), ecc, gpu(2)}), json(), json());
    EXPECT_EQ(v["node"]["exit_code"], kUnusable);
    EXPECT_NE(reasons(v)[0].find("GPU 1: 3 uncorrectable ECC errors"), std::string::npos);

    json wrong = gpu(0);
    wrong["errors"] = {"data integrity: 12 of 67108864 words read back differ from what was written"};
    v = judge(node({wrong, gpu(1)}), json(), json());
    EXPECT_EQ(v["node"]["exit_code"], kUnusable);

    json pending = gpu(2);
    pending["health"]["remapped_rows"] = {{"pending", true}, {"failure", false}};
    v = judge(node({gpu(0), gpu(1), pending}), json(), json());
    EXPECT_EQ(v["node"]["exit_code"], kDegraded);

    json throttled = gpu(0);
    throttled["state_after"] = {{"clock_event_reasons", {"hw_thermal_slowdown"}}};
    v = judge(node({throttled, gpu(1)}), json(), json());
    EXPECT_EQ(v["node"]["exit_code"], kDegraded);
    EXPECT_NE(reasons(v)[0].find("hw_thermal_slowdown"), std::string::npos);
}

TEST(CheckJudge, MigGpuIsNotCheckedAndLeftOutOfTheNode) {
    json mig = {{"ordinal", 1}, {"mig", true}, {"figures", json::object()}, {"health", {{"source", "nvml"}}}};
    const json v = judge(node({gpu(0), mig, gpu(2), gpu(3, 0.999)}), json(), json());
    EXPECT_EQ(v["gpus"][1]["verdict"], "not_checked");
    EXPECT_EQ(v["node"]["exit_code"], kNotChecked);
    EXPECT_NE(v["judged_with"]["node"].get<std::string>().find("3 GPUs"), std::string::npos);
}

TEST(CheckJudge, NvmlMissingIsSaidNotFailed) {
    json a = gpu(0), b = gpu(1);
    a["health"] = b["health"] = {{"source", "none"}, {"reason", "NVML (libnvidia-ml.so.1) is not loadable"}};
    const json v = judge(node({a, b}), json(), json());
    EXPECT_EQ(v["node"]["exit_code"], kHealthy);
    EXPECT_NE(v["gpus"][0]["notes"][0].get<std::string>().find("not loadable"), std::string::npos);
}

TEST(CheckJudge, SlowPeerLinkNamesBothGpus) {
    json n = node({gpu(0), gpu(1), gpu(2)});
    n["peer"]["pairs"] = json::array();
    for (int s = 0; s < 3; ++s)
        for (int d = 0; d < 3; ++d)
            if (s != d)
                n["peer"]["pairs"].push_back({{"src", s}, {"dst", d}, {"copy_gbs", s == 2 && d == 0 ? 120.0 : 360.0},
                                              {"theoretical_gbs", 450.0}});
    const json v = judge(n, json(), json());
    EXPECT_EQ(v["node"]["exit_code"], kDegraded);
    EXPECT_EQ(v["gpus"][1]["verdict"], "healthy");
    EXPECT_EQ(v["gpus"][0]["verdict"], "degraded");
    EXPECT_EQ(v["gpus"][2]["verdict"], "degraded");
    EXPECT_EQ(reasons(v).size(), 1u);  // the link, named once
    EXPECT_NEAR(v["peer"][0]["fraction_of_theoretical"].get<double>(), 0.8, 1e-9);
}

// Two GPUs, one slowed by another program on it: its copies to the other
// GPU fall too, and the link is named on the slowed GPU alone.
TEST(CheckJudge, SlowLinkOfAFallenGpuIsNamedOnItAlone) {
    json n = node({gpu(0), gpu(1, 1.0, 0.2)});
    n["peer"]["pairs"] = {{{"src", 0}, {"dst", 1}, {"copy_gbs", 370.0}, {"theoretical_gbs", 450.0}},
                          {{"src", 1}, {"dst", 0}, {"copy_gbs", 330.0}, {"theoretical_gbs", 450.0}}};
    const json v = judge(n, json(), json());
    EXPECT_EQ(v["node"]["exit_code"], kDegraded);
    EXPECT_EQ(v["gpus"][0]["verdict"], "healthy");
    EXPECT_EQ(v["gpus"][1]["verdict"], "degraded");
    bool link_named = false;
    for (const json &r : v["gpus"][1]["reasons"])
        link_named |= r["text"].get<std::string>().find("link 1->0") != std::string::npos;
    EXPECT_TRUE(link_named);
    // With both GPUs' own figures intact, the same link is named on both.
    n["gpus"][1] = gpu(1);
    const json both = judge(n, json(), json());
    EXPECT_EQ(both["gpus"][0]["verdict"], "degraded");
    EXPECT_EQ(both["gpus"][1]["verdict"], "degraded");
}

// Figures recorded by gmlab check on two H200s of one host (NV18), idle and
// with bench/gpu_load.cu streaming memory on GPU 1 (scripts/multi-gpu.sh).
json recorded(const std::string &name) {
    std::ifstream in(std::string(GM_SOURCE_DIR) + "/tests/cli/data/nvidia-h200-x2-check-" + name + ".figures.json");
    return json::parse(in);
}

namespace {

// The embedded reference as committed (tools/cli/check/check_reference.json); the
// CLI compiles the same file in.
json committed_reference() {
    std::ifstream in(std::string(GM_SOURCE_DIR) + "/tools/cli/check/check_reference.json");
    return json::parse(in);
}

// Issue 49's figures of a lone H100, idle and under load (tests/cli/data).
json lone(const std::string &name) {
    std::ifstream in(std::string(GM_SOURCE_DIR) + "/tests/cli/data/nvidia-h100-80gb-hbm3-lone-check-" + name + ".figures.json");
    return json::parse(in);
}

}  // namespace

TEST(CheckJudge, RecordedNodeWithALoadedGpuNamesThatGpuAlone) {
    const json idle = judge(recorded("clean-1"), json(), json());
    EXPECT_EQ(idle["node"]["exit_code"], kHealthy) << idle["node"].dump();
    for (const char *run : {"load-1", "load-2"}) {
        const json v = judge(recorded(run), json(), json());
        EXPECT_EQ(v["node"]["exit_code"], kDegraded) << run;
        EXPECT_EQ(v["gpus"][0]["verdict"], "healthy") << run << ": " << v["gpus"][0]["reasons"].dump();
        EXPECT_EQ(v["gpus"][1]["verdict"], "degraded") << run;
        bool dram_named = false;
        for (const json &r : v["gpus"][1]["reasons"])
            dram_named |= r["text"].get<std::string>().find("dram_sustained_gbs") != std::string::npos;
        EXPECT_TRUE(dram_named) << run;
    }
}

// The same recorded figures keep their verdicts with the embedded reference.
TEST(CheckJudge, RecordedNodeKeepsItsVerdictsWithTheEmbeddedReference) {
    const json reference = committed_reference();
    EXPECT_EQ(judge(recorded("clean-1"), json(), json(), reference)["node"]["exit_code"], kHealthy);
    for (const char *run : {"load-1", "load-2"}) {
        const json v = judge(recorded(run), json(), json(), reference);
        EXPECT_EQ(v["node"]["exit_code"], kDegraded) << run;
        EXPECT_EQ(v["gpus"][0]["verdict"], "healthy") << run << ": " << v["gpus"][0]["reasons"].dump();
        EXPECT_EQ(v["gpus"][1]["verdict"], "degraded") << run;
    }
}

// Issue 49's lone H100 (tests/cli/data, the figures of its table): idle it
// is healthy; under bench/gpu_load.cu the sustained DRAM figure falls below
// the theoretical floor and the L2 hit latency past the reference and the
// ceiling, and the GPU and both figures are named.
TEST(CheckJudge, LoneGpuUnderLoadIsDegradedWithoutAServer) {
    const json reference = committed_reference();
    const json idle = judge(lone("idle"), json(), json(), reference);
    EXPECT_EQ(idle["node"]["exit_code"], kHealthy) << idle["node"].dump();
    const json load = judge(lone("load"), json(), json(), reference);
    ASSERT_EQ(load["node"]["exit_code"], kDegraded) << load["node"].dump();
    const auto r = reasons(load);
    // Three figures fell: the sustained DRAM bandwidth (under the floor, and
    // short of the H100's committed idle check runs), the L2 copy (judged by
    // those runs alone: no theoretical figure) and the L2 hit latency.
    ASSERT_EQ(r.size(), 3u) << load["node"].dump();
    EXPECT_EQ(r[0].rfind("GPU 0: dram_sustained_gbs 726 GB/s:", 0), 0u) << r[0];
    EXPECT_NE(r[0].find("21.7 % of theoretical (3352), below the theoretical floor of 60.0 %"), std::string::npos) << r[0];
    EXPECT_NE(r[0].find("short of the embedded reference's median"), std::string::npos) << r[0];
    EXPECT_EQ(r[1].rfind("GPU 0: l2_copy_gbs 1736 GB/s:", 0), 0u) << r[1];
    EXPECT_NE(r[1].find("short of the embedded reference's median"), std::string::npos) << r[1];
    EXPECT_EQ(r[2].rfind("GPU 0: l2_hit_latency_ns 346 ns:", 0), 0u) << r[2];
    // The reference's median and its number of runs, as the committed reference holds them today.
    const json &l2_reference = reference["models"]["NVIDIA H100 80GB HBM3"]["figures"]["memory_spaces/l2_ns"];
    char median[96];
    std::snprintf(median, sizeof median, "above the embedded reference's median (%.1f ns over %d runs",
                  l2_reference["quantiles"]["0.5"].get<double>(), l2_reference["n"].get<int>());
    EXPECT_NE(r[2].find(median), std::string::npos) << r[2] << "\nexpected: " << median;
    EXPECT_NE(r[2].find("above the ceiling of 303 ns (600 cycles at 1980 MHz)"), std::string::npos) << r[2];
    // Copy and triad are burst figures: the load did not lower them, and they pass.
    const json &copy = load["gpus"][0]["figures"][0];
    EXPECT_TRUE(copy["burst"].get<bool>());
    EXPECT_FALSE(copy["flag"].get<bool>());
    EXPECT_TRUE(copy["reference"]["judged"].get<bool>());
    // The L2 copy has no theoretical figure: the H100's committed idle check runs judge it, and flag it.
    const json &l2 = load["gpus"][0]["figures"][3];
    ASSERT_EQ(l2["figure"], "l2_copy_gbs");
    EXPECT_TRUE(l2["judged"].get<bool>()) << l2.dump();
    EXPECT_NE(l2.dump().find("reference"), std::string::npos) << l2.dump();
    EXPECT_TRUE(l2["flag"].get<bool>()) << l2.dump();
    // Where no committed check run of the model measured it, nothing judges it, and it says why.
    json unmeasured = reference;
    unmeasured["models"]["NVIDIA H100 80GB HBM3"]["figures"].erase("check/l2_copy_gbs");
    const json l2_alone = judge(lone("load"), json(), json(), unmeasured)["gpus"][0]["figures"][3];
    EXPECT_FALSE(l2_alone["judged"].get<bool>()) << l2_alone.dump();
    EXPECT_NE(l2_alone.value("not_judged", "").find("no embedded reference of this figure"), std::string::npos) << l2_alone.dump();
    EXPECT_NE(load["judged_with"]["reference"].get<std::string>().find("the embedded reference of NVIDIA H100 80GB HBM3"),
              std::string::npos);
    EXPECT_NE(load["judged_with"]["floor"].get<std::string>().find("the theoretical floor"), std::string::npos);
    // Without the reference the floor and the ceiling still find it.
    EXPECT_EQ(judge(lone("load"), json(), json())["node"]["exit_code"], kDegraded);
    EXPECT_EQ(judge(lone("idle"), json(), json())["node"]["exit_code"], kHealthy);
}

// The reference judges what no distribution judges; where the crowd judges
// a figure, the reference says so and stays out of it.
TEST(CheckJudge, ReferenceStandsInForMissingDistributions) {
    const json reference = committed_reference();
    json g = gpu(0);
    g["figures"]["dram_copy_gbs"] = 4176.0 * 0.85;  // 15 % short of the H200 reference, 74 % of theoretical
    const json v = judge(node({g}), json(), json(), reference);
    EXPECT_EQ(v["node"]["exit_code"], kDegraded);
    EXPECT_TRUE(v["gpus"][0]["figures"][0]["reference"]["flag"].get<bool>());
    const json crowd = quantiles_doc("NVIDIA H200", 3000, 4170, 20);  // a crowd spread wide enough to pass it
    const json with_crowd = judge(node({g}), crowd, json(), reference);
    EXPECT_EQ(with_crowd["node"]["exit_code"], kHealthy) << with_crowd["node"].dump();
    EXPECT_FALSE(with_crowd["gpus"][0]["figures"][0]["reference"]["judged"].get<bool>());
    EXPECT_TRUE(with_crowd["gpus"][0]["figures"][1]["reference"]["judged"].get<bool>());  // triad: not in that crowd
}

// A GPU nothing could judge is "unjudged" (exit 14, Prometheus 4), never healthy.
TEST(CheckJudge, GpuNoJudgementCoveredIsUnjudged) {
    json g = {{"ordinal", 0}, {"name", "A GPU the lab never measured"}, {"uuid", "GPU-x"},
              {"figures", {{"l2_copy_gbs", 1000.0}, {"dram_copy_gbs", 500.0}}}, {"errors", json::array()},
              {"health", {{"source", "nvml"}}}};
    const json v = judge(node({g}), json(), json(), committed_reference());
    EXPECT_EQ(v["node"]["verdict"], "unjudged");
    EXPECT_EQ(v["node"]["exit_code"], kUnjudged);
    EXPECT_NE(reasons(v)[0].find("GPU 0: unjudged"), std::string::npos);
    const std::string text = prometheus_text(node({g}), v);
    EXPECT_NE(text.find("gmlab_check_node_status 4\n"), std::string::npos) << text;
    EXPECT_NE(text.find("gmlab_check_figure_judged{gpu=\"0\",uuid=\"GPU-x\",model=\"A GPU the lab never measured\",figure=\"l2_copy_gbs\"} 0"),
              std::string::npos);
    g["theoretical"] = {{"dram_gbs", 1000.0}};  // the floor judges the DRAM copy: 50 %, below it
    EXPECT_EQ(judge(node({g}), json(), json())["node"]["exit_code"], kDegraded);
    EXPECT_EQ(verdict_rank("unjudged"), 1);
    EXPECT_LT(verdict_rank("unjudged"), verdict_rank("not_checked"));
}

// Peer copies between GPUs with peer access below half their link's
// theoretical figure are named even where both directions are equally slow.
TEST(CheckJudge, PeerLinkBelowItsFloorIsNamed) {
    json n = node({gpu(0), gpu(1)});
    n["peer"]["pairs"] = {{{"src", 0}, {"dst", 1}, {"copy_gbs", 150.0}, {"theoretical_gbs", 450.0}, {"peer_access", true}},
                          {{"src", 1}, {"dst", 0}, {"copy_gbs", 150.0}, {"theoretical_gbs", 450.0}, {"peer_access", true}}};
    json v = judge(n, json(), json());
    EXPECT_EQ(v["node"]["exit_code"], kDegraded);
    EXPECT_NE(reasons(v)[0].find("below the theoretical floor of 50.0 %"), std::string::npos) << reasons(v)[0];
    for (json &p : n["peer"]["pairs"]) p["peer_access"] = false;  // staged through host memory: no floor
    v = judge(n, json(), json());
    EXPECT_EQ(v["node"]["exit_code"], kHealthy) << v["node"].dump();
}

TEST(CheckJudge, MalformedFiguresAreRefused) {
    EXPECT_THROW(judge(json{{"gpus", json::array()}}, json(), json()), std::runtime_error);
    EXPECT_THROW(judge(json{{"schema", "gmlab.check/1"}, {"gpus", json::array()}}, json(), json()), std::runtime_error);
    EXPECT_THROW(judge(json{{"schema", "gmlab.check/1"}, {"gpus", {{{"figures", 3}}}}}, json(), json()), std::runtime_error);
}

TEST(CheckJudge, PercentileInterpolatesBetweenQuantiles) {
    const json q = {{"0.05", 100.0}, {"0.5", 200.0}, {"0.95", 300.0}};
    EXPECT_DOUBLE_EQ(percentile_of(150, q), 27.5);
    EXPECT_DOUBLE_EQ(percentile_of(50, q), 5);
    EXPECT_DOUBLE_EQ(percentile_of(400, q), 95);
    EXPECT_DOUBLE_EQ(median_of({3, 1, 2, 10}), 2.5);
    EXPECT_DOUBLE_EQ(mad_of({1, 2, 3, 4, 100}), 1);
}

TEST(CheckJudge, PairTheoreticalFromNvlinkOrHostLinks) {
    json a = gpu(0), b = gpu(1);
    a["pci_bus_id"] = "0000:18:00.0";
    b["pci_bus_id"] = "0000:2A:00.0";
    EXPECT_DOUBLE_EQ(pair_theoretical_gbs(a, b), 63.0);  // no NVLink: the host links
    json links = json::array();
    for (int i = 0; i < 18; ++i) links.push_back({{"link", i}, {"active", true}, {"remote_pci_bus_id", "0000:AA:00.0"}});
    a["health"]["nvlink"] = b["health"]["nvlink"] = {{"links", links}, {"active_links", 18}, {"link_gbs", 25.0}};
    EXPECT_DOUBLE_EQ(pair_theoretical_gbs(a, b), 450.0);  // through switches: all 18
    for (int i = 0; i < 4; ++i) a["health"]["nvlink"]["links"][i]["remote_pci_bus_id"] = "00000000:2a:00.0";  // NVML's form
    EXPECT_DOUBLE_EQ(pair_theoretical_gbs(a, b), 100.0);  // four direct links
}

TEST(CheckOutput, PrometheusTextNamesEveryGpuAndFigure) {
    std::vector<json> g;
    for (int i = 0; i < 3; ++i) g.push_back(gpu(i, kSpread[i], i == 1 ? 0.5 : 1.0));
    g[0]["name"] = "NVIDIA \"quoted\" \\ model";
    const json n = node(g);
    const std::string text = prometheus_text(n, judge(n, json(), json()));
    EXPECT_NE(text.find("gmlab_check_node_status 1\n"), std::string::npos) << text;
    EXPECT_NE(text.find("gmlab_check_figure_flagged{gpu=\"1\",uuid=\"GPU-1\",model=\"NVIDIA H200\",figure=\"dram_copy_gbs\"} 1"),
              std::string::npos);
    EXPECT_NE(text.find("model=\"NVIDIA \\\"quoted\\\" \\\\ model\""), std::string::npos);
    EXPECT_NE(text.find("gmlab_check_duration_seconds 31.5"), std::string::npos);
    EXPECT_EQ(label_value("a\nb"), "a\\nb");
}

TEST(CheckHealth, ApiAnswersWithOrWithoutADevice) {
    char *text = nullptr;
    EXPECT_EQ(gm_device_health_json(nullptr, 0), GM_ERROR_INVALID_ARGUMENT);
    int count = 0;
    if (gm_device_count(&count) != GM_OK) {
        EXPECT_EQ(gm_device_health_json(&text, 0), GM_ERROR_NO_DEVICE);
        EXPECT_EQ(text, nullptr);
        return;
    }
    EXPECT_EQ(gm_device_health_json(&text, count), GM_ERROR_INVALID_ARGUMENT);
    ASSERT_EQ(gm_device_health_json(&text, 0), GM_OK);
    const json h = json::parse(text);
    gm_free_string(text);
    EXPECT_TRUE(h["source"] == "nvml" || h.contains("reason"));
}
