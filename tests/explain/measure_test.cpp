// Costs measured on the spot, without a GPU: which experiments the findings
// of the committed records need (and only those), with which parameters (each
// checked against the experiment's declared parameters by libgmlab's
// registry), and the costs read from results, here committed H200 results
// standing in for the run (a measurer of the test's own), so that every gain
// printed is a measured figure.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "explain/explain_document.hpp"
#include "explain/explain_session.hpp"
#include "explain/measure_now.hpp"
#include "explain/rule_book.hpp"
#include "gmlab.h"

using namespace gmexplain;
using nlohmann::json;

namespace {

const std::string kMeasureFixtures = GMX_SOURCE_DIR "/tests/explain/fixtures/";
const std::string kMeasureLabRun = GMX_SOURCE_DIR "/results/nvidia-h200-standard-suite.json";

json committed_run() {
    std::ifstream in(kMeasureLabRun);
    return json::parse(in);
}

Options measured_records(const std::string &program, int measure) {
    Options o;
    o.from_records = kMeasureFixtures + program;
    o.measure = measure;
    return o;
}

// A measurer that runs nothing: each planned experiment's result is the
// committed H200 run's, and every plan it was given is kept.
struct CommittedMeasurer {
    std::vector<std::vector<Measurement>> plans;
    std::string device_name = "NVIDIA H200";
    MeasuredSession operator()(int, const std::vector<Measurement> &plan) {
        plans.push_back(plan);
        const json run = committed_run();
        MeasuredSession s;
        s.device = {{"name", device_name}};
        s.settings = {{"warmup", 1}};
        for (const auto &m : plan) {
            MeasuredResult r;
            r.seconds = 0.25;
            r.measured_at = "2026-11-26T10:00:00Z";
            for (const auto &res : run["results"])
                if (res["experiment"]["name"] == m.experiment) r.result = res;
            if (r.result.is_null()) r.error = "not in the committed run";
            s.results.push_back(r);
        }
        return s;
    }
};

Measurer use(CommittedMeasurer &m) {
    return [&m](int device, const std::vector<Measurement> &plan) { return m(device, plan); };
}

std::vector<std::string> experiments(const std::vector<Measurement> &plan) {
    std::vector<std::string> out;
    for (const auto &m : plan) out.push_back(m.experiment);
    return out;
}

double stride_bandwidth(const json &run, double stride) {
    for (const auto &res : run["results"])
        if (res["experiment"]["name"] == "stride_copy")
            for (const auto &s : res["series"])
                if (s["name"] == "guide, 4-byte words")
                    for (const auto &p : s["points"])
                        if (p["x"] == stride) return p["bandwidth_gbs"];
    return 0;
}

}  // namespace

// No run document is found: the folders explain searches are empty ones.
class ExplainMeasureNoRun : public ::testing::Test {
protected:
    void SetUp() override {
        char pattern[] = "/tmp/gmx-measure-XXXXXX";
        folder_ = mkdtemp(pattern);
        if (const char *runs = std::getenv("GMLAB_RUNS_DIR")) saved_runs_ = runs;
        if (const char *state = std::getenv("XDG_STATE_HOME")) saved_state_ = state;
        unsetenv("GMLAB_RUNS_DIR");
        setenv("XDG_STATE_HOME", folder_.c_str(), 1);
    }
    void TearDown() override {
        if (!saved_runs_.empty()) setenv("GMLAB_RUNS_DIR", saved_runs_.c_str(), 1);
        if (saved_state_.empty()) unsetenv("XDG_STATE_HOME");
        else setenv("XDG_STATE_HOME", saved_state_.c_str(), 1);
        rmdir(folder_.c_str());
    }
    std::string folder_, saved_runs_, saved_state_;
};

TEST_F(ExplainMeasureNoRun, TheStridedFindingAsksForStrideCopyAtItsStrideOnly) {
    const auto r = explain(measured_records("strided_access-planted", kMeasureNever));
    ASSERT_EQ(r.message, "");
    const auto plan = plan_measurements(requests_in(r.document), registry_quick_parameters);
    ASSERT_EQ(experiments(plan), std::vector<std::string>{"stride_copy"});
    const json &p = plan[0].parameters;
    EXPECT_EQ(p["strides"], json::array({1, 4}));  // stride 4 and its baseline, not the quick 1, 2, 32
    EXPECT_EQ(p["word_sizes"], json::array({4}));
    EXPECT_EQ(p["variants"], json::array({"guide"}));
    EXPECT_EQ(p["elements"], registry_quick_parameters("stride_copy")["elements"]);
    EXPECT_EQ(plan[0].rules, std::vector<std::string>{"uncoalesced_global"});
}

TEST(ExplainMeasure, RequestsOfOneExperimentMergeIntoOneRun) {
    const std::vector<json> requests = {
        {{"experiment", "stride_copy"}, {"points", "strides"}, {"parameters", {{"strides", {1, 4}}, {"variants", {"guide"}}}}, {"rules", {"a"}}},
        {{"experiment", "stride_copy"}, {"points", "strides"}, {"parameters", {{"strides", {1, 8}}, {"variants", {"guide"}}}}, {"rules", {"a"}}},
        {{"experiment", "allocation"}, {"range", {"min_size", "max_size"}}, {"parameters", {{"min_size", 4096}, {"max_size", 4096}}}, {"rules", {"b"}}},
        {{"experiment", "allocation"}, {"range", {"min_size", "max_size"}}, {"parameters", {{"min_size", 65536}, {"max_size", 65536}}}, {"rules", {"b"}}}};
    const auto quick = [](const std::string &e) {
        return e == "allocation" ? json{{"max_size", 16777216}, {"host_max_size", 1048576}} : json{{"strides", {1, 2, 32}}};
    };
    const auto plan = plan_measurements(requests, quick);
    ASSERT_EQ(plan.size(), 2u);
    EXPECT_EQ(plan[0].parameters["strides"], json::array({1, 4, 8}));
    EXPECT_EQ(plan[0].rules, std::vector<std::string>{"a"});
    EXPECT_EQ(plan[1].parameters["min_size"], 4096);
    EXPECT_EQ(plan[1].parameters["max_size"], 65536);  // the quick 16 MiB is replaced: only the sizes asked for
    EXPECT_EQ(plan[1].parameters["host_max_size"], 1048576);
}

// Every rule's measurement, over its experiment's --quick parameters, is one
// the experiment accepts (libgmlab's registry checks it; no device needed).
TEST(ExplainMeasure, EveryRulesMeasurementIsAcceptedByItsExperiment) {
    const RuleBook book = load_rules();
    Figures figures(book, {{"global_excess", 4}, {"shared_n_way", 8}, {"mean_alloc_bytes", 3 << 20}, {"constant_requests_per_ldc", 8}});
    for (const auto &rule : book.rules) {
        json request = measurement_request(rule.cost, figures.lookup());
        ASSERT_FALSE(request.is_null()) << rule.id;
        request["rules"] = {rule.id};
        const auto plan = plan_measurements({request}, registry_quick_parameters);
        ASSERT_EQ(plan.size(), 1u) << rule.id;
        char *resolved = nullptr;
        EXPECT_EQ(gm_experiment_resolve_params(&resolved, plan[0].experiment.c_str(), plan[0].parameters.dump().c_str()), GM_OK)
            << rule.id << ": " << plan[0].parameters.dump() << ": " << gm_last_error();
        gm_free_string(resolved);
    }
}

TEST_F(ExplainMeasureNoRun, MeasuredCostsSayWhereTheyCameFromAndGiveTheGain) {
    CommittedMeasurer m;
    Options o = measured_records("strided_access-planted", kMeasureAlways);
    o.measurer = use(m);
    const auto r = explain(o);
    ASSERT_EQ(m.plans.size(), 1u);
    EXPECT_EQ(experiments(m.plans[0]), std::vector<std::string>{"stride_copy"});
    const json &doc = r.document;
    EXPECT_EQ(doc["lab"]["run"], kMeasuredNow);
    ASSERT_EQ(doc["lab"]["measured"].size(), 1u);
    EXPECT_EQ(doc["lab"]["measured"][0]["experiment"], "stride_copy");
    EXPECT_EQ(doc["lab"]["measured"][0]["seconds"], 0.25);
    ASSERT_EQ(doc["lab"]["results"].size(), 1u);  // the measured result travels with the explanation
    EXPECT_EQ(doc["lab"]["results"][0]["experiment"]["name"], "stride_copy");
    const json &f = doc["kernels"][0]["findings"][0];
    ASSERT_EQ(f["rule"], "uncoalesced_global");
    ASSERT_TRUE(f["cost"]["found"].get<bool>()) << f["cost"].dump();
    EXPECT_EQ(f["cost"]["from"], kMeasuredNow);
    EXPECT_EQ(f["cost"]["measured"]["experiment"], "stride_copy");
    EXPECT_EQ(f["cost"]["measured"]["measured_at"], "2026-11-26T10:00:00Z");
    const json run = committed_run();
    const double ratio = stride_bandwidth(run, 4) / stride_bandwidth(run, 1);
    EXPECT_DOUBLE_EQ(f["cost"]["value"].get<double>(), ratio);
    EXPECT_DOUBLE_EQ(f["gain_ms"].get<double>(), doc["kernels"][0]["total_ms"].get<double>() * (1 - ratio));
    EXPECT_NE(explanation_text(doc).find("measured now: stride_copy"), std::string::npos);
}

TEST_F(ExplainMeasureNoRun, WhereARunDocumentExistsNothingIsMeasuredUnlessAsked) {
    CommittedMeasurer m;
    Options o = measured_records("strided_access-planted", kMeasureWhereNoRun);
    o.lab_run = kMeasureLabRun;
    o.measurer = use(m);
    EXPECT_EQ(explain(o).document["lab"]["run"], kMeasureLabRun);
    EXPECT_TRUE(m.plans.empty());
    Options records_again = measured_records("strided_access-planted", kMeasureWhereNoRun);
    records_again.measurer = use(m);
    // Records explained again run nothing by default, though no run document is found.
    EXPECT_TRUE(explain(records_again).document["lab"]["run"].is_null());
    EXPECT_TRUE(m.plans.empty());
}

TEST_F(ExplainMeasureNoRun, ARunProgramWithNoFindingMeasuresOnlyWhatARuleWaitsOn) {
    CommittedMeasurer m;
    Options o = measured_records("strided_access-fixed", kMeasureAlways);
    o.measurer = use(m);
    const auto r = explain(o);
    // The only rule left undecided without a lab is the DRAM one, waiting on stream's copy bandwidth.
    for (const auto &plan : m.plans) EXPECT_EQ(experiments(plan), std::vector<std::string>{"stream"});
    EXPECT_EQ(r.document["summary"]["findings"], 0);
    if (m.plans.empty()) return;
    for (const auto &res : committed_run()["results"])
        if (res["experiment"]["name"] == "stream")
            EXPECT_EQ(r.document["lab"]["attainable_dram_gbs"], res["summary"]["copy_gbs"]);
}

TEST_F(ExplainMeasureNoRun, AnotherGpuOrNoDeviceGivesNoCostAndANote) {
    CommittedMeasurer m;
    m.device_name = "NVIDIA H100 80GB HBM3";
    Options o = measured_records("strided_access-planted", kMeasureAlways);
    o.measurer = use(m);
    auto doc = explain(o).document;
    EXPECT_FALSE(doc["kernels"][0]["findings"][0]["cost"]["found"].get<bool>());
    EXPECT_TRUE(doc["kernels"][0]["findings"][0]["gain_ms"].is_null());
    EXPECT_NE(doc["notes"].dump().find("this process sees NVIDIA H100 80GB HBM3"), std::string::npos) << doc["notes"].dump();
    o.measurer = [](int, const std::vector<Measurement> &) {
        MeasuredSession s;
        s.error = "no context on device 0: no CUDA device";
        return s;
    };
    doc = explain(o).document;
    EXPECT_TRUE(doc["kernels"][0]["findings"][0]["gain_ms"].is_null());
    EXPECT_NE(doc["notes"].dump().find("costs could not be measured now: no context"), std::string::npos);
    EXPECT_EQ(doc["kernels"][0]["findings"][0]["cost"]["measure"]["experiment"], "stride_copy");
}

TEST(ExplainMeasure, ABadMeasureModeIsUsage) {
    Options o;
    o.argv = {"/bin/true"};
    o.measure = 3;
    EXPECT_EQ(explain(o).exit_code, kExplainUsage);
}
