// How each experiment is drawn and explained, as the experiment declares it
// beside its figures (Experiment::chart in the library, read through its
// description: library_descriptions.hpp), and the chart data drawn from a result.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "vocabulary/chart.hpp"

namespace gmreport {

// The chart declaration itself is the vocabulary's (vocabulary/chart.hpp): the
// report reads what the library wrote with the same struct.
using Chart = gmvocab::Chart;

// The chart an experiment declares, or a generic one (its series against
// their x) for an experiment this library does not know or that declares none.
Chart chart_spec(const std::string &experiment);

// The data the report's script draws for one result: datasets with min-max
// bands and predictions. Null when nothing is charted.
nlohmann::json chart_data(const nlohmann::json &result, const std::string &canvas_id);

// The published figures beside ours, as rows of {name, ours, published, ours
// ratio, published ratio} against the spec's base. A figure "variant_gbs" or
// "variant_ms" pairs with that variant's series; a figure named like one of
// the result's summary values pairs with that value. Empty when none are published.
nlohmann::json published_rows(const nlohmann::json &result);

// The headline value of a point: its series' y field, looked up as
// gm_result_point_value does (the vocabulary's point_field); NaN where the
// point has no such field.
double point_field(const nlohmann::json &point, const std::string &field);

}  // namespace gmreport
