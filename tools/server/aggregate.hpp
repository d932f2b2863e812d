// Per series and x: n, median and quartiles of the stored points' values
// across uploads. The JSON has the shape pages.hpp's aggregate_points promises.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "storage.hpp"

namespace gmserver {

nlohmann::json aggregate_rows(const std::vector<PointRow> &rows);

}  // namespace gmserver
