// Summary statistics of repeated timings (host only).
#pragma once

#include <cstddef>
#include <vector>

#include <nlohmann/json.hpp>

namespace gmlab {

struct Stats {
    double median = 0, min = 0, max = 0, mean = 0, stddev = 0;  // stddev: sample (n-1)
    std::size_t n = 0;
    std::vector<double> samples;  // in the order they were taken
};

// Throws Error(GM_ERROR_INTERNAL) for an empty sample set.
Stats summarize(std::vector<double> samples);

nlohmann::json to_json(const Stats &s);
Stats stats_from_json(const nlohmann::json &j);

}  // namespace gmlab
