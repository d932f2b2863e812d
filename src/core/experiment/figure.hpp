// A headline figure an experiment declares: the name its result's summary
// holds it under, its unit, which way is better and one line of what it
// means. An experiment writes each figure through its declaration
// (Result::record), so that every summary key has one place that says what
// it is, and a reader of the key finds its writer by the same text.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace gmlab {

enum class Better { Higher, Lower, Neither };

struct Figure {
    // The summary key. A figure measured once per value of a sweep's axis
    // names the axis in braces, "{variant}_w{word}_offset1_over_offset0";
    // Result::record fills them in.
    std::string name;
    std::string unit;  // "ratio", "GB/s", "ns", "us", "count", ...
    Better better = Better::Neither;
    std::string meaning;
};

// Axis values of one figure's record, as {"variant", "guide"}.
using FigureAt = std::vector<std::pair<std::string, std::string>>;

// The name with each {axis} replaced by its value; an axis without a value
// stays as written (and fails the declared-figure check of the tests).
inline std::string figure_key(const Figure &f, const FigureAt &at = {}) {
    std::string key = f.name;
    for (const auto &[axis, value] : at) {
        const std::string field = "{" + axis + "}";
        for (std::size_t i = key.find(field); i != std::string::npos; i = key.find(field, i + value.size()))
            key.replace(i, field.size(), value);
    }
    return key;
}

}  // namespace gmlab
