// Headline figures: declared once by their experiment, written through the
// declaration.
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/experiment/figure.hpp"
#include "core/experiment/registry.hpp"
#include "core/experiment/result.hpp"

namespace {

using gmlab::Better;
using gmlab::Figure;

TEST(Figure, RecordFillsTheAxesItsNameHolds) {
    const Figure f{"{variant}_w{word}_offset1_over_offset0", "ratio", Better::Higher, "misaligned over aligned"};
    gmlab::Result r;
    r.record(f, 0.9, {{"variant", "guide"}, {"word", "4"}});
    ASSERT_EQ(r.summary_values.count("guide_w4_offset1_over_offset0"), 1u);
    EXPECT_DOUBLE_EQ(r.summary_values["guide_w4_offset1_over_offset0"], 0.9);
    EXPECT_EQ(gmlab::figure_key(f, {{"word", "16"}}), "{variant}_w16_offset1_over_offset0");
}

TEST(Figure, RecordOfAPlainName) {
    const Figure f{"copy_gbs", "GB/s", Better::Higher, "copy bandwidth"};
    gmlab::Result r;
    r.record(f, 3000);
    EXPECT_DOUBLE_EQ(r.summary_values.at("copy_gbs"), 3000);
}

TEST(Figure, EveryDeclaredFigureSaysWhatItIs) {
    for (const gmlab::Experiment &e : gmlab::registry()) {
        std::set<std::string> names;
        for (const Figure &f : e.figures) {
            EXPECT_FALSE(f.name.empty()) << e.name;
            EXPECT_FALSE(f.unit.empty()) << e.name << " " << f.name;
            EXPECT_FALSE(f.meaning.empty()) << e.name << " " << f.name;
            EXPECT_TRUE(names.insert(f.name).second) << e.name << " declares " << f.name << " twice";
        }
    }
}

}  // namespace

namespace {

TEST(Figure, ANameWithAxesMatchesItsInstancesOnly) {
    const Figure f{"{variant}_w{word}_stride2_over_stride1", "ratio", Better::Higher, "stride 2 over stride 1"};
    EXPECT_TRUE(gmlab::figure_matches(f, "guide_w4_stride2_over_stride1"));
    EXPECT_TRUE(gmlab::figure_matches(f, "ilp4_w16_stride2_over_stride1"));
    EXPECT_FALSE(gmlab::figure_matches(f, "guide_w4_stride32_over_stride1"));
    EXPECT_FALSE(gmlab::figure_matches(f, "_w_stride2_over_stride1"));
    EXPECT_TRUE(gmlab::figure_matches(Figure{"copy_gbs", "GB/s", Better::Higher, "copy"}, "copy_gbs"));
    EXPECT_FALSE(gmlab::figure_matches(Figure{"copy_gbs", "GB/s", Better::Higher, "copy"}, "copy_gbs2"));
}

TEST(Figure, EveryComparedFigureIsADeclaredOne) {
    std::size_t compared = 0;
    for (const gmlab::Experiment &e : gmlab::registry()) {
        for (const gmlab::ComparedFigure &c : e.compared) {
            ++compared;
            EXPECT_FALSE(c.label.empty()) << e.name << " " << c.key;
            const Figure *f = gmlab::declared_figure(e, c.key);
            ASSERT_NE(f, nullptr) << e.name << " compares " << c.key << ", which it does not declare";
            EXPECT_EQ(gmlab::describe(e)["compared_figures"].size(), e.compared.size());
        }
    }
    EXPECT_GT(compared, 0u);
}

}  // namespace

namespace {

// Every experiment writes each headline figure through a declaration, so
// every key of a committed run's summaries is an instance of one.
TEST(Figure, EverySummaryValueOfTheCommittedSuiteIsDeclared) {
    std::ifstream in(std::string(GM_SOURCE_DIR) + "/results/nvidia-h200-standard-suite.json");
    ASSERT_TRUE(in.good());
    std::stringstream text;
    text << in.rdbuf();
    const nlohmann::json run = nlohmann::json::parse(text.str());
    std::size_t checked = 0;
    for (const nlohmann::json &r : run.at("results")) {
        const std::string name = r.at("experiment").at("name").get<std::string>();
        const gmlab::Experiment &e = gmlab::find_experiment(name);
        for (const auto &[key, value] : r.at("summary").items()) {
            if (key == "model_agreement") continue;  // the core's, from the counters' agreement checks
            EXPECT_NE(gmlab::declared_figure(e, key), nullptr) << name << " writes " << key << ", which it does not declare";
            ++checked;
        }
    }
    EXPECT_GT(checked, 300u);
}

}  // namespace
