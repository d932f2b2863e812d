// How each experiment is drawn and explained, as the experiment declares it
// beside its figures (Experiment::chart in the library, read through its
// description: declared_charts.hpp), and the chart data drawn from a result.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace gmreport {

struct ChartSpec {
    std::string experiment;
    std::string kind = "line";      // "line": y against x per series; "bar": one bar per series
    std::string x_title, y_title;   // axis titles ("" takes the series' own)
    bool x_log = false, y_log = false;
    std::string prediction;         // point field drawn dashed beside each series ("" for none)
    bool prediction_relative = true; // scale the prediction to meet the measurement at the first point
    std::string prediction_label;
    // Hardware counters drawn as markers on the prediction's dashed line: the
    // counted figure `counter` (e.g. "counters.sectors_per_request_ld") against
    // the model's figure `counter_model` (e.g. "predicted.sectors_per_request")
    // moves the dashed line's value by counter / model, or by model / counter
    // where the prediction falls as the counted figure rises (counter_inverse).
    // Where the counter equals the model, the marker sits on the line.
    std::string counter, counter_model;
    bool counter_inverse = false;
    std::string published_base;     // variant the published and our ratios are taken against
    std::vector<std::string> leave_out;  // series variants not charted (listed in tables instead)
    // The series (by name) in which the experiment times cudaMemcpy itself, in
    // the same run on arrays of the same size: the tables' "of memcpy" column
    // reads each point against its point at the same x. Where it is empty or
    // absent from a result, the column reads against reference.memcpy_d2d_gbs
    // (one cudaMemcpy per context, at a size of its own) and says so.
    std::string memcpy_series;
    // Summary values (in the x axis's unit: bytes where x is bytes) marked on a
    // line chart as dashed vertical lines, each {summary key, label}.
    std::vector<std::pair<std::string, std::string>> markers;
    std::string explanation;        // "what this shows"
};

// The chart an experiment declares, or a generic one (its series against
// their x) for an experiment this library does not know or that declares none.
ChartSpec chart_spec(const std::string &experiment);

// The data the report's script draws for one result: datasets with min-max
// bands and predictions. Null when nothing is charted.
nlohmann::json chart_data(const nlohmann::json &result, const std::string &canvas_id);

// The published figures beside ours, as rows of {name, ours, published, ours
// ratio, published ratio} against the spec's base. A figure "variant_gbs" or
// "variant_ms" pairs with that variant's series; a figure named like one of
// the result's summary values pairs with that value. Empty when none are published.
nlohmann::json published_rows(const nlohmann::json &result);

// The headline value of a point: its series' y field, looked up as
// gm_result_point_value does (top level, time_ms, values, predicted.*, counters.*).
double point_field(const nlohmann::json &point, const std::string &field);

}  // namespace gmreport
