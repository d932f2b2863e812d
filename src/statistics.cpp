#include "statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "error.hpp"

namespace gmlab {

Stats summarize(std::vector<double> samples) {
    if (samples.empty()) fail(GM_ERROR_INTERNAL, "summarize: no samples");
    Stats s;
    s.n = samples.size();
    std::vector<double> sorted = samples;
    std::sort(sorted.begin(), sorted.end());
    s.min = sorted.front();
    s.max = sorted.back();
    const std::size_t mid = s.n / 2;
    s.median = (s.n % 2) ? sorted[mid] : 0.5 * (sorted[mid - 1] + sorted[mid]);
    s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(s.n);
    if (s.n > 1) {
        double sq = 0;
        for (double v : sorted) sq += (v - s.mean) * (v - s.mean);
        s.stddev = std::sqrt(sq / static_cast<double>(s.n - 1));
    }
    s.samples = std::move(samples);
    return s;
}

nlohmann::json to_json(const Stats &s) {
    return {{"median", s.median}, {"min", s.min},       {"max", s.max},        {"mean", s.mean},
            {"stddev", s.stddev}, {"n", s.n},           {"samples", s.samples}};
}

Stats stats_from_json(const nlohmann::json &j) {
    Stats s;
    s.median = j.at("median").get<double>();
    s.min = j.at("min").get<double>();
    s.max = j.at("max").get<double>();
    s.mean = j.at("mean").get<double>();
    s.stddev = j.at("stddev").get<double>();
    s.n = j.at("n").get<std::size_t>();
    if (j.contains("samples")) s.samples = j.at("samples").get<std::vector<double>>();
    return s;
}

}  // namespace gmlab
