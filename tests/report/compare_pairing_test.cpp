// gmlab compare pairs B's series by name and points by x by lookup (linear
// in the points): the pairs are those the search found, 1 and 1.0 are the
// same x, and what B lacks is counted as unmatched.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "compare.hpp"

using nlohmann::json;

namespace {

json point(const json &x, double median) {
    return {{"x", x}, {"time_ms", {{"median", median}, {"min", median}, {"max", median}}}};
}

json run(const json &points_a, const json &points_b) {
    return {{"results", json::array({{{"experiment", {{"name", "offset_copy"}}},
                                      {"series", json::array({{{"name", "guide"}, {"x", {{"name", "offset"}}},
                                                               {"y", {{"field", "median_ms"}}}, {"points", points_a}},
                                                              {{"name", "other"}, {"x", {{"name", "offset"}}},
                                                               {"y", {{"field", "median_ms"}}}, {"points", points_b}}})}}})}};
}

}  // namespace

TEST(ComparePairing, ByNameAndXLookedUp) {
    const json a = run(json::array({point(0, 1.0), point(1, 2.0), point(2, 4.0)}), json::array({point(5, 1.0)}));
    const json b = run(json::array({point(2.0, 8.0), point(1.0, 2.0)}), json::array());
    const json cmp = gmreport::compare_runs(a, b);
    ASSERT_EQ(cmp["rows"].size(), 2u);
    EXPECT_EQ(cmp["rows"][0]["x"], 1);
    EXPECT_DOUBLE_EQ(cmp["rows"][0]["ratio"].get<double>(), 1.0);
    EXPECT_EQ(cmp["rows"][1]["x"], 2);
    EXPECT_DOUBLE_EQ(cmp["rows"][1]["ratio"].get<double>(), 2.0);
    // guide's x 0 and other's x 5 have no counterpart in B.
    EXPECT_EQ(cmp["unmatched"].get<int>(), 2);
}

TEST(ComparePairing, ManyPointsInLinearTime) {
    json pa = json::array(), pb = json::array();
    for (int i = 0; i < 50000; ++i) {
        pa.push_back(point(i, 1.0));
        pb.push_back(point(49999 - i, 2.0));
    }
    const json cmp = gmreport::compare_runs(run(pa, json::array()), run(pb, json::array()));
    EXPECT_EQ(cmp["rows"].size(), 50000u);  // by search, 2.5e9 comparisons of JSON values: minutes
    EXPECT_EQ(cmp["unmatched"].get<int>(), 0);
}
