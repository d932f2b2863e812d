// What a page renders, bounded by the operator's limits whatever is stored:
// one model's aggregate of an experiment is cut to the series and points an
// upload of it may have (upload/shape_limits.hpp; an aggregate made of
// uploads stored before those limits may hold more), and a list of models to
// the page_max_models most uploaded. A page's size and time then do not grow
// with what one client uploaded.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "upload/shape_limits.hpp"

namespace gmserver {

// Cuts agg (HistogramAggregate::result() as JSON) to the experiment's
// limits: its first max_series series, each thinned evenly to max_points
// points; what was cut is added to agg["left_out"]. Nothing without a table
// or for an experiment it does not have.
void bound_aggregate(nlohmann::json &agg, const ShapeTable *shapes, const std::string &experiment);

// True when the table accepts the experiment (always without a table).
bool page_shows_experiment(const ShapeTable *shapes, const std::string &experiment);

// "<p>...</p>" saying that `more` models with fewer uploads are not listed ("" for 0).
std::string more_models_note(std::size_t more, std::size_t shown);

}  // namespace gmserver
