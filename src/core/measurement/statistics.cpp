#include "core/measurement/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>

#include "core/error.hpp"

namespace gmlab {

namespace {

// v rounded to kQuantileDigits significant digits (the events' resolution is
// about half a microsecond; six digits keep more than that).
double round_digits(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.*g", kQuantileDigits, v);
    return std::strtod(buf, nullptr);
}

Quantiles deciles_of_sorted(const std::vector<double> &sorted) {
    Quantiles q{};
    const std::size_t n = sorted.size();
    for (std::size_t k = 0; k < kQuantiles; ++k) {
        const double h = static_cast<double>(n - 1) * static_cast<double>(k + 1) / 10.0;
        const std::size_t lo = static_cast<std::size_t>(std::floor(h));
        const std::size_t hi = std::min(lo + 1, n - 1);
        const double v = sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
        q[k] = round_digits(v);
    }
    return q;
}

}  // namespace

Quantiles deciles(std::vector<double> samples) {
    if (samples.empty()) fail(GM_ERROR_INTERNAL, "deciles: no samples");
    std::sort(samples.begin(), samples.end());
    return deciles_of_sorted(samples);
}

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
    s.quantiles = deciles_of_sorted(sorted);
    s.has_quantiles = true;
    s.samples = std::move(samples);
    return s;
}

nlohmann::json to_json(const Stats &s, SampleForm form) {
    nlohmann::json j = {{"median", s.median}, {"min", s.min}, {"max", s.max}, {"mean", s.mean},
                        {"stddev", s.stddev}, {"n", s.n}};
    if (s.has_quantiles) j["quantiles"] = s.quantiles;
    if (form == SampleForm::All && !s.samples.empty()) j["samples"] = s.samples;
    return j;
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
    if (j.contains("quantiles")) {
        const auto q = j.at("quantiles").get<std::vector<double>>();
        if (q.size() != kQuantiles)
            invalid("time_ms.quantiles must hold " + std::to_string(kQuantiles) + " numbers, got " + std::to_string(q.size()));
        std::copy(q.begin(), q.end(), s.quantiles.begin());
        s.has_quantiles = true;
    } else if (!s.samples.empty()) {
        s.quantiles = deciles(s.samples);
        s.has_quantiles = true;
    }
    return s;
}

void set_sample_form(nlohmann::json &time_ms, SampleForm form) {
    if (!time_ms.is_object()) return;
    const bool has_samples = time_ms.contains("samples") && time_ms["samples"].is_array() && !time_ms["samples"].empty();
    if (!time_ms.contains("quantiles") && has_samples) {
        bool numbers = true;
        for (const auto &v : time_ms["samples"]) numbers = numbers && v.is_number();
        if (numbers) time_ms["quantiles"] = deciles(time_ms["samples"].get<std::vector<double>>());
    }
    if (form == SampleForm::Summary) time_ms.erase("samples");
}

}  // namespace gmlab
