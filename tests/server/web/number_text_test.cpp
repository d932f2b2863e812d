// Numbers as the pages print them (web/number_text.hpp): a few significant
// digits whatever the magnitude, never hundreds of digits, and a dash for a
// value that is not finite.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "web/number_text.hpp"

using namespace gmserver;

namespace {

// Digits of a number's mantissa that carry its value (no sign, point,
// exponent, leading or trailing zeros).
std::size_t significant_digits(const std::string &text) {
    std::string m = text.substr(0, text.find_first_of("eE"));
    std::string digits;
    for (char c : m)
        if (c >= '0' && c <= '9') digits += c;
    const auto first = digits.find_first_not_of('0');
    if (first == std::string::npos) return 0;
    return digits.find_last_not_of('0') + 1 - first;  // zeros that only place the point do not count
}

}  // namespace

TEST(NumberText, WholeNumbersAsTheyAreAndOthersWithFourSignificantDigits) {
    EXPECT_EQ(number_text(0), "0");
    EXPECT_EQ(number_text(268435456), "268435456");
    EXPECT_EQ(number_text(-32769), "-32769");
    EXPECT_EQ(number_text(999999999999999), "999999999999999");
    EXPECT_EQ(number_text(2621.877), "2622");
    EXPECT_EQ(number_text(12.3456), "12.35");
    EXPECT_EQ(number_text(0.5), "0.5");
    EXPECT_EQ(number_text(0.000123456), "0.0001235");
    EXPECT_EQ(number_text(1.5, 2), "1.5");
    EXPECT_EQ(number_text(144179.2), "144200");
    EXPECT_EQ(number_text(99999.5), "100000");
    EXPECT_EQ(number_text(1234567.5), "1.235e+06");
    EXPECT_EQ(number_text(1e15), "1.000e+15");
    EXPECT_EQ(number_text(-1e308), "-1.000e+308");
    EXPECT_EQ(number_text(std::numeric_limits<double>::max()), "1.798e+308");
    EXPECT_EQ(number_text(5e-324), "4.941e-324");
}

TEST(NumberText, RatiosWithThreeDecimalsWhereTheyAreNearOne) {
    EXPECT_EQ(ratio_text(1), "1.000");
    EXPECT_EQ(ratio_text(0.525), "0.525");
    EXPECT_EQ(ratio_text(-12.3456), "-12.346");
    EXPECT_EQ(ratio_text(1e-308), "1.000e-308");
    EXPECT_EQ(ratio_text(2e300), "2.000e+300");
    EXPECT_EQ(ratio_text(123456.7), "123500");
    EXPECT_EQ(ratio_text(NAN), "\u2014");
}

TEST(NumberText, NonFiniteValuesAreADash) {
    EXPECT_EQ(number_text(NAN), "\u2014");
    EXPECT_EQ(number_text(INFINITY), "\u2014");
    EXPECT_EQ(number_text(-INFINITY), "\u2014");
    EXPECT_EQ(data_value(NAN), "");
    EXPECT_TRUE(chart_number(INFINITY).is_null());
    EXPECT_TRUE(chart_number(nlohmann::json(nullptr)).is_null());
}

TEST(NumberText, EveryDoubleIsShort) {
    // Across every binary exponent, either sign, a few mantissas.
    std::size_t charted = 0, long_in_chart = 0;
    for (int e = -1074; e <= 1023; ++e)
        for (double m : {1.0, 1.1, 1.2345678901234567, 1.9999999999999998}) {
            for (double v : {std::ldexp(m, e), -std::ldexp(m, e)}) {
                if (!std::isfinite(v) || v == 0) continue;
                const std::string t = number_text(v);
                ASSERT_LE(t.size(), 16u) << t;
                if (!(v == std::floor(v) && std::fabs(v) < kWholeNumbersBelow)) ASSERT_LE(significant_digits(t), 4u) << t;
                // The charts' JSON: rounded to 7 digits. JSON's writer (Grisu2)
                // now and then spells such a double with more (8.116567000000001e+19),
                // never more than 17.
                const std::string chart = chart_number(v).dump();
                ASSERT_LE(significant_digits(chart), 17u) << chart;
                ASSERT_LE(chart.size(), 24u) << chart;
                ++charted;
                long_in_chart += significant_digits(chart) > 7 ? 1 : 0;
                ASSERT_LE(std::fabs(nlohmann::json::parse(chart).get<double>() / v - 1), 5e-7) << chart;
                ASSERT_LE(data_value(v).size(), 15u) << v;
            }
        }
    EXPECT_LE(long_in_chart * 100, charted) << long_in_chart << " of " << charted;
}
