// The records scripts/explain-gpu.sh captured on a GPU (fixtures/<program>/),
// explained again without a GPU: each example program's planted pattern is
// named, nothing is named on its fixed twin, and the costs come from the
// committed run of the same GPU model. fixtures/expected.json lists, per
// recorded program, the rules explain must name (the confusion matrix).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <set>

#include "explain/explain_document.hpp"
#include "explain/explain_session.hpp"

using namespace gmexplain;

namespace {

nlohmann::json expected() {
    std::ifstream in(GMX_SOURCE_DIR "/tests/explain/fixtures/expected.json");
    return nlohmann::json::parse(in);
}

std::set<std::string> named(const nlohmann::json &doc) {
    std::set<std::string> out;
    for (const auto &f : doc["run"]["findings"]) out.insert(f["rule"].get<std::string>());
    for (const auto &k : doc["kernels"])
        for (const auto &f : k.value("findings", nlohmann::json::array())) out.insert(f["rule"].get<std::string>());
    return out;
}

}  // namespace

TEST(ExplainFixtures, EachProgramGetsExactlyItsFindings) {
    const auto want = expected();
    ASSERT_GE(want["programs"].size(), 20u);
    for (const auto &[program, rules] : want["programs"].items()) {
        Options o;
        o.from_records = GMX_SOURCE_DIR "/tests/explain/fixtures/" + program;
        o.lab_run = GMX_SOURCE_DIR "/" + want["lab_run"].get<std::string>();
        const auto r = explain(o);
        ASSERT_EQ(check_explain_document(r.document), "") << program << ": " << r.message;
        const auto expected_rules = rules.get<std::set<std::string>>();
        EXPECT_EQ(named(r.document), expected_rules) << program;
        // Every printed gain is read from the committed run of this GPU model.
        for (const auto &k : r.document["kernels"])
            for (const auto &f : k.value("findings", nlohmann::json::array()))
                EXPECT_TRUE(f["cost"]["found"].get<bool>()) << program << " " << f["rule"];
    }
}

// Where the program's time under the injection went (the phase_times record
// each process writes at exit) reaches the document and the printed "time:"
// line, summed over processes, beside explain's own analysis time.
TEST(ExplainFixtures, ThePhasesOfTheProgramsTimeAreReported) {
    char pattern[] = "/tmp/gmlab-phases-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    const std::string dir = pattern;
    const std::string from = GMX_SOURCE_DIR "/tests/explain/fixtures/h200/strided_access-planted/single-8529.jsonl";
    {
        std::ifstream in(from);
        std::ofstream out(dir + "/single-8529.jsonl");
        out << in.rdbuf();
        out << R"({"type":"phase_times","pid":8529,"before_cuda_s":0.125,"initialize_s":0.03,"profiler_setup_s":0.25,"counting_s":0.5,"exit_s":0.0625})" << "\n";
        // A second process's record adds to the first's; a field that is not a time is left out.
        out << R"({"type":"phase_times","pid":8530,"before_cuda_s":0.125,"counting_s":0.25,"note":"x"})" << "\n";
    }
    Options o;
    o.from_records = dir;
    o.lab_run = GMX_SOURCE_DIR "/results/nvidia-h200-standard-suite.json";
    const auto r = explain(o);
    std::remove((dir + "/single-8529.jsonl").c_str());
    rmdir(dir.c_str());
    ASSERT_EQ(check_explain_document(r.document), "") << r.message;
    const auto &in_program = r.document["passes"]["trace"]["in_program"];
    EXPECT_DOUBLE_EQ(in_program["before_cuda_s"].get<double>(), 0.25);
    EXPECT_DOUBLE_EQ(in_program["counting_s"].get<double>(), 0.75);
    EXPECT_DOUBLE_EQ(in_program["profiler_setup_s"].get<double>(), 0.25);
    EXPECT_FALSE(in_program.contains("note"));
    EXPECT_GE(r.document["passes"]["analysis"]["seconds"].get<double>(), 0.0);
    const std::string text = explanation_text(r.document);
    EXPECT_NE(text.find("(before CUDA 0.25, set-up 0.03, profiler set-up 0.25, counting 0.75, at exit 0.06)"), std::string::npos)
        << text.substr(0, 600);
    EXPECT_NE(text.find(", analysis "), std::string::npos);
}

// The single pass's kernels launched once are counted by another run of the
// program only where they hold kRerunShare of the kernel time: l2_eviction's
// two fill_ones launches (3 % of it, H200) are left, and say why; its
// table_gather, counted in the single pass, keeps its finding. Records kept
// with that run are read whatever the share (they cost no run).
TEST(ExplainFixtures, KernelsLaunchedOnceAreCountedOnlyWhereARunIsWorthIt) {
    char pattern[] = "/tmp/gmlab-rerun-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    const std::string dir = pattern, fixture = GMX_SOURCE_DIR "/tests/explain/fixtures/h200/l2_eviction-planted";
    {
        std::ifstream in(fixture + "/single-9409.jsonl");
        std::ofstream out(dir + "/single-9409.jsonl");
        out << in.rdbuf();
    }
    auto explained = [](const std::string &folder) {
        Options o;
        o.from_records = folder;
        o.lab_run = GMX_SOURCE_DIR "/results/nvidia-h200-standard-suite.json";
        return explain(o).document;
    };
    const auto alone = explained(dir), with_run = explained(fixture);
    std::remove((dir + "/single-9409.jsonl").c_str());
    rmdir(dir.c_str());
    ASSERT_EQ(check_explain_document(alone), "");
    int left = 0;
    for (const auto &k : alone["kernels"]) {
        if (k["name"].get<std::string>().rfind("fill_ones", 0) == 0) {
            EXPECT_FALSE(k["counted"].get<bool>());
            EXPECT_NE(k.value("not_counted", "").find("not worth another run of the program"), std::string::npos) << k.dump();
            ++left;
        } else {
            EXPECT_TRUE(k["counted"].get<bool>()) << k["name"];
            EXPECT_EQ(k["findings"][0]["rule"], "l2_evicted_reuse");
        }
    }
    EXPECT_EQ(left, 2);
    int counted = 0;
    for (const auto &k : with_run["kernels"]) counted += k["counted"].get<bool>();
    EXPECT_EQ(counted, 3);
}
