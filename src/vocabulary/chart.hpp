// How an experiment's result is drawn and explained: the one declaration of a
// chart and of its JSON. The experiment declares it beside its figures
// (Experiment::chart), the library publishes it in the experiment's
// description (gm_experiment_describe_json's "chart"), and the report and the
// server's pages read it back from there. A new chart field is added here
// (the struct and both directions of its JSON) and drawn in report.js.
// Header-only, no CUDA, nothing else of the tree: the library, the report and
// the server include it alike.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace gmvocab {

struct Chart {
    std::string kind = "line";        // "line": y against x per series; "bar": one bar per series
    std::string x_title, y_title;     // axis titles ("" takes the series' own)
    bool x_log = false, y_log = false;
    std::string prediction;           // point field drawn dashed beside each series ("" for none)
    bool prediction_relative = true;  // scale the prediction to meet the measurement at the first point
    std::string prediction_label;
    // Hardware counters drawn as markers on the prediction's dashed line: the
    // counted figure `counter` (e.g. "counters.sectors_per_request_ld") against
    // the model's figure `counter_model` (e.g. "predicted.sectors_per_request")
    // moves the dashed line's value by counter / model, or by model / counter
    // where the prediction falls as the counted figure rises (counter_inverse).
    // Where the counter equals the model, the marker sits on the line.
    std::string counter, counter_model;
    bool counter_inverse = false;
    std::string published_base;          // variant the published and our ratios are taken against
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
    std::string explanation;  // "what this shows"
};

inline nlohmann::json chart_to_json(const Chart &c) {
    nlohmann::json markers = nlohmann::json::array();
    for (const auto &[key, label] : c.markers) markers.push_back({{"key", key}, {"label", label}});
    return {{"kind", c.kind},
            {"x_title", c.x_title},
            {"y_title", c.y_title},
            {"x_log", c.x_log},
            {"y_log", c.y_log},
            {"prediction", c.prediction},
            {"prediction_relative", c.prediction_relative},
            {"prediction_label", c.prediction_label},
            {"counter", c.counter},
            {"counter_model", c.counter_model},
            {"counter_inverse", c.counter_inverse},
            {"published_base", c.published_base},
            {"leave_out", c.leave_out},
            {"memcpy_series", c.memcpy_series},
            {"markers", markers},
            {"explanation", c.explanation}};
}

// A chart read back from its JSON; a field that is missing keeps its default.
inline Chart chart_from_json(const nlohmann::json &j) {
    Chart c;
    c.kind = j.value("kind", c.kind);
    c.x_title = j.value("x_title", "");
    c.y_title = j.value("y_title", "");
    c.x_log = j.value("x_log", false);
    c.y_log = j.value("y_log", false);
    c.prediction = j.value("prediction", "");
    c.prediction_relative = j.value("prediction_relative", true);
    c.prediction_label = j.value("prediction_label", "");
    c.counter = j.value("counter", "");
    c.counter_model = j.value("counter_model", "");
    c.counter_inverse = j.value("counter_inverse", false);
    c.published_base = j.value("published_base", "");
    c.leave_out = j.value("leave_out", std::vector<std::string>{});
    c.memcpy_series = j.value("memcpy_series", "");
    if (j.contains("markers") && j["markers"].is_array())
        for (const nlohmann::json &m : j["markers"]) c.markers.emplace_back(m.value("key", ""), m.value("label", ""));
    c.explanation = j.value("explanation", "");
    return c;
}

}  // namespace gmvocab
