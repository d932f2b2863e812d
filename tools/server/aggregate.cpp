#include "aggregate.hpp"

#include <algorithm>
#include <cmath>

#include "pages.hpp"

namespace gmserver {

namespace {

// Quantile with linear interpolation between closest ranks (Hyndman and Fan
// type 7, numpy's and R's default). v is sorted and not empty.
double quantile(const std::vector<double> &v, double q) {
    const double pos = q * double(v.size() - 1);
    const std::size_t lo = static_cast<std::size_t>(pos);
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - double(lo));
}

}  // namespace

void Aggregator::add(const PointRow &r) {
    if (!std::isfinite(r.value) || !std::isfinite(r.x)) return;
    // Rows come upload by upload, each series' points in order: most rows hit
    // the series and the x of the row before, so those are tried first.
    if (!last_series_ || r.series != last_series_->first) {
        auto it = values_.find(r.series);
        if (it == values_.end()) {
            order_.push_back(r.series);
            fields_[r.series] = r.field;
            it = values_.emplace(r.series, std::map<double, std::vector<double>>{}).first;
        }
        last_series_ = &*it;
        has_x_ = false;
    }
    auto &by_x = last_series_->second;
    if (!has_x_ || last_x_->first != r.x) {
        // The next x of the series is usually right after the previous one.
        auto hint = has_x_ ? std::next(last_x_) : by_x.begin();
        last_x_ = hint != by_x.end() && hint->first == r.x ? hint : by_x.try_emplace(r.x).first;
        has_x_ = true;
    }
    last_x_->second.push_back(r.value);
    if (r.run_id != last_run_) {
        runs_.insert(r.run_id);
        last_run_ = r.run_id;
    }
}

nlohmann::json Aggregator::result() {
    nlohmann::json series = nlohmann::json::array();
    for (const std::string &name : order_) {
        nlohmann::json points = nlohmann::json::array();
        for (auto &[x, v] : values_[name]) {
            std::sort(v.begin(), v.end());
            points.push_back({{"x", x}, {"n", v.size()}, {"median", quantile(v, 0.5)}, {"q1", quantile(v, 0.25)}, {"q3", quantile(v, 0.75)}});
        }
        series.push_back({{"name", name}, {"field", fields_[name]}, {"points", std::move(points)}});
    }
    return {{"series", std::move(series)}, {"uploads", runs_.size()}, {"quantiles", "linear interpolation between closest ranks (type 7)"}};
}

nlohmann::json aggregate_points(const std::vector<PointRow> &rows) {
    Aggregator a;
    for (const PointRow &r : rows) a.add(r);
    return a.result();
}

}  // namespace gmserver
