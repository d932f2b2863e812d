#include <gtest/gtest.h>

#include <stdexcept>

#include "explain/expression.hpp"

using gmexplain::evaluate;
using gmexplain::names_in;

namespace {
std::optional<double> figures(const std::string &n) {
    if (n == "a") return 2.0;
    if (n == "b.sum") return 8.0;
    if (n == "zero") return 0.0;
    return std::nullopt;
}
}  // namespace

TEST(ExplainExpression, Arithmetic) {
    EXPECT_DOUBLE_EQ(*evaluate("1 + 2 * 3", figures), 7.0);
    EXPECT_DOUBLE_EQ(*evaluate("(1 + 2) * 3", figures), 9.0);
    EXPECT_DOUBLE_EQ(*evaluate("b.sum / a - -1", figures), 5.0);
    EXPECT_DOUBLE_EQ(*evaluate("clamp(round(b.sum / 3), 1, 2)", figures), 2.0);
    EXPECT_DOUBLE_EQ(*evaluate("max(a, 3) + min(a, 3) + abs(-1)", figures), 6.0);
}

TEST(ExplainExpression, ComparisonsAndLogic) {
    EXPECT_EQ(*evaluate("a < b.sum and b.sum >= 8", figures), 1.0);
    EXPECT_EQ(*evaluate("a > b.sum or a == 3", figures), 0.0);
    EXPECT_EQ(*evaluate("not a != 2", figures), 1.0);
}

TEST(ExplainExpression, UnknownFiguresStayUnknownUnlessDecided) {
    EXPECT_FALSE(evaluate("missing > 1", figures).has_value());
    EXPECT_FALSE(evaluate("a / zero", figures).has_value());  // a ratio over nothing counted
    EXPECT_EQ(*evaluate("missing > 1 or a == 2", figures), 1.0);
    EXPECT_EQ(*evaluate("missing > 1 and a == 3", figures), 0.0);
    EXPECT_FALSE(evaluate("missing > 1 and a == 2", figures).has_value());
    EXPECT_DOUBLE_EQ(*evaluate("first(missing, a)", figures), 2.0);
}

TEST(ExplainExpression, NamesAndSyntaxErrors) {
    const auto names = names_in("x.sum / max(y, 1) > z");
    EXPECT_EQ(names, (std::set<std::string>{"x.sum", "y", "z"}));
    EXPECT_THROW(evaluate("1 +", figures), std::invalid_argument);
    EXPECT_THROW(evaluate("nope(1)", figures), std::invalid_argument);
    EXPECT_THROW(evaluate("(1", figures), std::invalid_argument);
    EXPECT_THROW(evaluate("1 2", figures), std::invalid_argument);
}
