// The records scripts/explain-gpu.sh captured on a GPU (fixtures/<program>/),
// explained again without a GPU: each example program's planted pattern is
// named, nothing is named on its fixed twin, and the costs come from the
// committed run of the same GPU model. fixtures/expected.json lists, per
// recorded program, the rules explain must name (the confusion matrix).
#include <gtest/gtest.h>

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
