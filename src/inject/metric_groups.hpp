// Application replay (docs/explain.md, "Application replay"): the metrics are
// split into groups that the range profiler collects in one pass each, so that
// each run of the program counts one group with every counted launch executed
// once, for real. Pure: the number of passes a list needs is asked of a
// function (CUPTI's cuptiProfilerHostGetNumOfPasses in the injection library,
// a table in the tests).
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace gmexplain {

struct MetricGroups {
    std::vector<std::vector<std::string>> groups;  // each needs exactly one pass, in the order built
    std::vector<std::string> too_large;            // metrics that alone need more than one pass: not collected
};

// First fit: each metric joins the first group it keeps at one pass, else
// starts a new one. The same metrics on the same chip always give the same
// groups, so every run of the program (each told only its group's index)
// builds the same split. `passes_of` returns 0 when the list cannot be
// configured at all; such a metric is left out as too large.
inline MetricGroups one_pass_groups(const std::vector<std::string> &metrics,
                                    const std::function<std::size_t(const std::vector<std::string> &)> &passes_of) {
    MetricGroups out;
    std::vector<std::string> seen;  // a metric named twice is collected once
    for (const auto &metric : metrics) {
        if (std::find(seen.begin(), seen.end(), metric) != seen.end()) continue;
        seen.push_back(metric);
        bool placed = false;
        for (auto &group : out.groups) {
            std::vector<std::string> tried = group;
            tried.push_back(metric);
            if (passes_of(tried) == 1) {
                group = std::move(tried);
                placed = true;
                break;
            }
        }
        if (placed) continue;
        if (passes_of({metric}) == 1) out.groups.push_back({metric});
        else out.too_large.push_back(metric);
    }
    return out;
}

}  // namespace gmexplain
