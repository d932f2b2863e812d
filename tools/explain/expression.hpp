// The small expression language of the rule files (tools/explain/rules/):
// numbers, names (metric and figure names, dots allowed), + - * /, unary -,
// comparisons (< <= > >= == !=), `and`, `or`, `not`, parentheses and the
// functions min(a, b), max(a, b), round(a), abs(a), log2(a), pow(a, b), clamp(x, lo, hi), and first(a, b, ...), the
// first argument that has a value.
// A name without a value makes the whole expression "unknown" (nullopt), so a
// rule whose evidence was not counted is neither true nor false.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>

namespace gmexplain {

using Lookup = std::function<std::optional<double>(const std::string &)>;

// Evaluates `text`; throws std::invalid_argument naming the position of a syntax error.
std::optional<double> evaluate(const std::string &text, const Lookup &lookup);

// Every name the expression reads (to check rules and ask for their metrics).
std::set<std::string> names_in(const std::string &text);

}  // namespace gmexplain
