#include <functional>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/experiment/registry.hpp"
#include "core/experiment/sweep.hpp"

using namespace gmlab;
using nlohmann::json;

namespace {

std::vector<ParamSpec> sweep_specs() {
    return {int_list_param("word_sizes", {4, 8}, 4, 16, "bytes per word"),
            enum_list_param("variants", {"guide", "ilp4"}, {"guide", "ilp4"}, "kernels"),
            int_list_param("offsets", {0, 1, 2}, 0, 32, "offsets"),
            int_param("block_size", 256, 32, 1024, "threads")};
}

Params sweep_params(const json &given) { return Params(resolve_params(sweep_specs(), given, "demo")); }

gm_status sweep_error_status(const std::function<void()> &f) {
    try {
        f();
    } catch (const Error &e) {
        return e.status();
    }
    return GM_OK;
}

}  // namespace

TEST(Sweep, CombinationsComeOutermostFirstInTheGivenOrder) {
    const Sweep sweep(sweep_params({{"word_sizes", {16, 4}}, {"variants", {"ilp4", "guide"}}}),
                      {{"word_sizes", "variants"}, "offsets"});
    std::vector<std::string> labels;
    for (const Combination &c : sweep.combinations()) labels.push_back(c.label());
    EXPECT_EQ(labels, (std::vector<std::string>{"word_sizes=16, variants=ilp4", "word_sizes=16, variants=guide",
                                                "word_sizes=4, variants=ilp4", "word_sizes=4, variants=guide"}));
    EXPECT_EQ(sweep.combinations()[1].integer("word_sizes"), 16);
    EXPECT_EQ(sweep.combinations()[1].text("variants"), "guide");
    EXPECT_EQ(sweep.xs(), (std::vector<long long>{0, 1, 2}));
}

TEST(Sweep, StartsAndEndsMarkEachOuterValuesFirstAndLastCombination) {
    const Sweep sweep(sweep_params(json::object()), {{"word_sizes", "variants"}, "offsets"});
    std::vector<bool> word_starts, word_ends, variant_starts;
    for (const Combination &c : sweep.combinations()) {
        word_starts.push_back(c.starts("word_sizes"));
        word_ends.push_back(c.ends("word_sizes"));
        variant_starts.push_back(c.starts("variants"));
    }
    EXPECT_EQ(word_starts, (std::vector<bool>{true, false, true, false}));
    EXPECT_EQ(word_ends, (std::vector<bool>{false, true, false, true}));
    EXPECT_EQ(variant_starts, (std::vector<bool>{true, true, true, true}));
}

TEST(Sweep, ATemporarySweepCanBeWalkedInPlace) {
    std::vector<long long> words;
    for (const Combination &c : Sweep(sweep_params(json::object()), {{"word_sizes"}, ""}).combinations())
        words.push_back(c.integer("word_sizes"));
    EXPECT_EQ(words, (std::vector<long long>{4, 8}));
}

TEST(Sweep, ASingleAxisGivesOneCombinationPerValue) {
    const Sweep sweep(sweep_params({{"variants", {"guide"}}}), {{"variants"}, "offsets"});
    ASSERT_EQ(sweep.combinations().size(), 1u);
    EXPECT_EQ(sweep.combinations()[0].label(), "variants=guide");
    const Sweep x_only(sweep_params(json::object()), {{}, "offsets"});
    ASSERT_EQ(x_only.combinations().size(), 1u);  // one series along x
    EXPECT_EQ(x_only.combinations()[0].label(), "");
}

TEST(Sweep, AnEmptyListGivesNoCombination) {
    // The parameters refuse an empty list; a sweep over one still measures nothing.
    json values = resolve_params(sweep_specs(), json::object(), "demo");
    values["variants"] = json::array();
    const Sweep sweep(Params(values), {{"word_sizes", "variants"}, "offsets"});
    EXPECT_TRUE(sweep.combinations().empty());
}

TEST(Sweep, UnknownOrWrongAxesAreInternalErrors) {
    const Params params = sweep_params(json::object());
    EXPECT_EQ(sweep_error_status([&] { (void)Sweep(params, {{"nope"}, ""}); }), GM_ERROR_INTERNAL);
    EXPECT_EQ(sweep_error_status([&] { (void)Sweep(params, {{}, "block_size"}); }), GM_ERROR_INTERNAL);
    const Sweep sweep(params, {{"word_sizes"}, "variants"});
    EXPECT_EQ(sweep_error_status([&] { sweep.xs(); }), GM_ERROR_INTERNAL);
    EXPECT_EQ(sweep.x_texts(), (std::vector<std::string>{"guide", "ilp4"}));
    EXPECT_EQ(sweep_error_status([&] { sweep.combinations()[0].text("word_sizes"); }), GM_ERROR_INTERNAL);
    EXPECT_EQ(sweep_error_status([&] { sweep.combinations()[0].integer("offsets"); }), GM_ERROR_INTERNAL);
}

TEST(Sweep, DeclaredAxesMustNameDistinctListParameters) {
    EXPECT_EQ(sweep_error_status([] { check_axes({{"word_sizes"}, "offsets"}, sweep_specs(), "demo"); }), GM_OK);
    EXPECT_EQ(sweep_error_status([] { check_axes({{"nope"}, "offsets"}, sweep_specs(), "demo"); }), GM_ERROR_INTERNAL);
    EXPECT_EQ(sweep_error_status([] { check_axes({{}, "block_size"}, sweep_specs(), "demo"); }), GM_ERROR_INTERNAL);
    EXPECT_EQ(sweep_error_status([] { check_axes({{"offsets"}, "offsets"}, sweep_specs(), "demo"); }), GM_ERROR_INTERNAL);
}

TEST(Sweep, DescribePublishesEachAxisWithItsDefaultCount) {
    const json d = describe(SweepAxes{{"word_sizes", "variants"}, "offsets"}, sweep_specs());
    EXPECT_EQ(d, json::parse(R"([{"name": "word_sizes", "default_values": 2, "x": false},
                                 {"name": "variants", "default_values": 2, "x": false},
                                 {"name": "offsets", "default_values": 3, "x": true}])"));
}

TEST(Sweep, EveryExperimentPublishesItsAxesAsListParameters) {
    // registry() has checked each declaration; describe names only parameters it lists.
    for (const Experiment &e : registry()) {
        const json d = describe(e);
        ASSERT_TRUE(d["axes"].is_array()) << e.name;
        for (const json &axis : d["axes"]) {
            bool listed = false;
            for (const json &p : d["parameters"])
                listed |= p["name"] == axis["name"] && p["default"].size() == axis["default_values"].get<std::size_t>();
            EXPECT_TRUE(listed) << e.name << " " << axis.dump();
        }
    }
}
