// What the families' points share around the core's point protocol: the
// whole-output comparison, a declared series, and a ratio recorded only when
// both of its sides were measured.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "experiments/common/point_checks.hpp"

using namespace gmlab;

namespace {

const Figure kRatio{"{variant}_over_base", "ratio", Better::Higher, "a variant's figure over the base's"};

TEST(PointChecks, VerifyEqualRecordsEveryElementOrNamesTheFirstMismatch) {
    std::vector<std::uint32_t> host = {0, 2, 4, 6, 8};
    Result ok;
    verify_equal(host.data(), host.size(), [](std::uint64_t i) { return static_cast<std::uint32_t>(2 * i); }, "doubling",
                 "every element compared", ok);
    EXPECT_TRUE(ok.verification.passed);
    EXPECT_EQ(ok.verification.elements_checked, 5u);
    EXPECT_EQ(ok.verification.method, "every element compared");

    host[3] = 7;
    Result bad;
    try {
        verify_equal(host.data(), host.size(), [](std::uint64_t i) { return static_cast<std::uint32_t>(2 * i); },
                     "doubling", "every element compared", bad);
        FAIL() << "a mismatch must fail the run";
    } catch (const Error &e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("doubling"), std::string::npos) << what;
        EXPECT_NE(what.find("3"), std::string::npos) << what;  // the index
        EXPECT_NE(what.find("6"), std::string::npos) << what;  // expected
        EXPECT_NE(what.find("7"), std::string::npos) << what;  // got
    }
    EXPECT_FALSE(bad.verification.passed);
}

TEST(PointChecks, DeclaredSeriesCarriesItsQuantityAndAttributes) {
    const Series s = declared_series("padded, 4-byte words", "padded", "matrix side", "elements", Quantity::DramBandwidth,
                                     {{"word_size", 4}});
    EXPECT_EQ(s.name, "padded, 4-byte words");
    EXPECT_EQ(s.variant, "padded");
    EXPECT_EQ(s.x_name, "matrix side");
    EXPECT_EQ(s.x_unit, "elements");
    EXPECT_EQ(s.quantity, Quantity::DramBandwidth);
    EXPECT_EQ(s.attributes["word_size"], 4);
    EXPECT_TRUE(s.points.empty());
}

TEST(PointChecks, RatioIsRecordedOnlyWhenBothSidesWereMeasured) {
    Result out;
    const std::map<std::string, double> values = {{"base", 2.0}, {"wide", 3.0}};
    record_ratio_if_measured(out, kRatio, values, "wide", "base", {{"variant", "wide"}});
    record_ratio_if_measured(out, kRatio, values, "absent", "base", {{"variant", "absent"}});
    ASSERT_EQ(out.summary_values.count("wide_over_base"), 1u);
    EXPECT_DOUBLE_EQ(out.summary_values["wide_over_base"], 1.5);
    EXPECT_EQ(out.summary_values.count("absent_over_base"), 0u);
}

}  // namespace
