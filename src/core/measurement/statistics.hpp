// Summary statistics of repeated timings (host only).
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include <nlohmann/json.hpp>

namespace gmlab {

// The fixed summary of a sample distribution that compact documents keep in
// place of the samples: the deciles (probabilities 0.1, 0.2, ..., 0.9), each
// the linear interpolation between order statistics (so that the fifth is the
// median), rounded to kQuantileDigits significant digits.
inline constexpr std::size_t kQuantiles = 9;
inline constexpr int kQuantileDigits = 6;
using Quantiles = std::array<double, kQuantiles>;

struct Stats {
    double median = 0, min = 0, max = 0, mean = 0, stddev = 0;  // stddev: sample (n-1)
    std::size_t n = 0;
    Quantiles quantiles{};        // the deciles, see above
    bool has_quantiles = false;   // false only for a /1 document read without samples
    std::vector<double> samples;  // in the order they were taken (empty when read from a compact document)
};

// Throws Error(GM_ERROR_INTERNAL) for an empty sample set.
Stats summarize(std::vector<double> samples);

// The deciles of a non-empty sample set (see Quantiles).
Quantiles deciles(std::vector<double> samples);

// What a written point keeps of its samples: the summary (statistics and
// deciles; the default) or, in addition, every raw sample.
enum class SampleForm { Summary, All };

nlohmann::json to_json(const Stats &s, SampleForm form = SampleForm::Summary);
Stats stats_from_json(const nlohmann::json &j);

// Rewrites a time_ms object in place to the given form: drops "samples" for
// Summary, and adds the deciles from the samples where a /1 document has
// samples but no deciles.
void set_sample_form(nlohmann::json &time_ms, SampleForm form);

}  // namespace gmlab
