// How an experiment's result is drawn and explained in reports and on the
// server's pages, declared by the experiment beside its figures
// (Experiment::chart) and published through its description
// (gm_experiment_describe_json's "chart"), where the report reads it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace gmlab {

struct Chart {
    std::string kind = "line";       // "line": y against x per series; "bar": one bar per series
    std::string x_title, y_title;    // axis titles ("" takes the series' own)
    bool x_log = false, y_log = false;
    std::string prediction;          // point field drawn dashed beside each series ("" for none)
    bool prediction_relative = true; // scale the prediction to meet the measurement at the first point
    std::string prediction_label;
    // Hardware counters drawn as markers on the prediction's dashed line: the
    // counted figure `counter` (e.g. "counters.sectors_per_request_ld") against
    // the model's figure `counter_model` (e.g. "predicted.sectors_per_request")
    // moves the dashed line's value by counter / model, or by model / counter
    // where the prediction falls as the counted figure rises (counter_inverse).
    std::string counter, counter_model;
    bool counter_inverse = false;
    std::string published_base;          // variant the published and our ratios are taken against
    std::vector<std::string> leave_out;  // series variants not charted (listed in tables instead)
    // The series in which the experiment times cudaMemcpy itself on arrays of
    // the same size: the tables' "of memcpy" column reads each point against
    // its point at the same x ("" reads against reference.memcpy_d2d_gbs).
    std::string memcpy_series;
    // Summary values (in the x axis's unit: bytes where x is bytes) marked on a
    // line chart as dashed vertical lines, each {summary key, label}.
    std::vector<std::pair<std::string, std::string>> markers;
    std::string explanation;  // "what this shows"
};

nlohmann::json describe(const Chart &c);

}  // namespace gmlab
