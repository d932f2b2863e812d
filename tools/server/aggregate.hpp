// Per series and x: n, median and quartiles of the stored points' values
// across uploads, as pages.hpp's aggregate_points promises. Rows are taken one
// at a time and only their values kept, so that a model with thousands of
// uploads is aggregated without holding its rows.
#pragma once

#include <map>
#include <string>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "storage.hpp"

namespace gmserver {

class Aggregator {
public:
    void add(const PointRow &row);
    // {"series": [{"name", "field", "points": [{"x", "n", "median", "q1", "q3"}]}], "uploads", "quantiles"}
    nlohmann::json result();

private:
    std::vector<std::string> order_;  // series in the order they first appear
    std::map<std::string, std::string> fields_;
    std::map<std::string, std::map<double, std::vector<double>>> values_;
    std::unordered_set<std::string> runs_;
    std::string last_run_;  // rows mostly come grouped by upload: skip the set for repeats
    // The series and the x of the previous row (map nodes and iterators stay valid).
    std::pair<const std::string, std::map<double, std::vector<double>>> *last_series_ = nullptr;
    std::map<double, std::vector<double>>::iterator last_x_;
    bool has_x_ = false;
};

}  // namespace gmserver
