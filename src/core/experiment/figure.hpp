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

// Whether a summary key is an instance of the figure: its name with each
// {axis} standing for one or more characters.
inline bool figure_matches(const Figure &f, const std::string &key) {
    // Literal pieces between the axes, matched left to right; each axis takes
    // at least one character, as little as lets the rest match.
    std::vector<std::string> pieces(1);
    for (std::size_t i = 0; i < f.name.size(); ++i) {
        if (f.name[i] == '{') {
            const std::size_t close = f.name.find('}', i);
            if (close == std::string::npos) return f.name == key;
            pieces.emplace_back();
            i = close;
        } else {
            pieces.back() += f.name[i];
        }
    }
    if (pieces.size() == 1) return f.name == key;
    if (key.compare(0, pieces.front().size(), pieces.front()) != 0) return false;
    std::size_t at = pieces.front().size();
    for (std::size_t k = 1; k < pieces.size(); ++k) {
        const std::string &lit = pieces[k];
        if (k + 1 == pieces.size()) {  // the last piece ends the key
            return key.size() >= at + 1 + lit.size() && key.compare(key.size() - lit.size(), lit.size(), lit) == 0;
        }
        const std::size_t found = key.find(lit, at + 1);
        if (found == std::string::npos) return false;
        at = found + lit.size();
    }
    return false;
}

// One instance of a declared figure that the view across GPU models
// (the server's crowd pages) compares, with the label it shows.
struct ComparedFigure {
    std::string key;    // a summary key: a declared figure's name with its axes filled in
    std::string label;  // what the pages call it
};

}  // namespace gmlab
