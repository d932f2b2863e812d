#include "aggregate.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace gmserver {
namespace {

// Quantile with linear interpolation between order statistics (the common
// "type 7" definition, as numpy and R use by default). v is sorted.
double quantile(const std::vector<double> &v, double q) {
    const double pos = q * double(v.size() - 1);
    const std::size_t lo = static_cast<std::size_t>(pos);
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - double(lo));
}

}  // namespace

nlohmann::json aggregate_rows(const std::vector<PointRow> &rows) {
    // series -> (field, x -> values); std::map keeps the output ordered.
    std::map<std::string, std::pair<std::string, std::map<double, std::vector<double>>>> by_series;
    for (const PointRow &r : rows) {
        auto &s = by_series[r.series];
        if (s.first.empty()) s.first = r.field;
        s.second[r.x].push_back(r.value);
    }
    nlohmann::json series = nlohmann::json::array();
    for (auto &[name, s] : by_series) {
        nlohmann::json points = nlohmann::json::array();
        for (auto &[x, values] : s.second) {
            std::sort(values.begin(), values.end());
            points.push_back({{"x", x}, {"n", values.size()}, {"median", quantile(values, 0.5)},
                              {"q1", quantile(values, 0.25)}, {"q3", quantile(values, 0.75)}});
        }
        series.push_back({{"name", name}, {"field", s.first}, {"points", std::move(points)}});
    }
    return {{"series", std::move(series)}};
}

}  // namespace gmserver
