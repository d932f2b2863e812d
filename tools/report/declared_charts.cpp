#include "declared_charts.hpp"

#include <map>

#include "gmlab.h"

namespace gmreport {

using nlohmann::json;

ChartSpec chart_from_description(const std::string &experiment, const json &c) {
    ChartSpec s;
    s.experiment = experiment;
    s.kind = c.value("kind", s.kind);
    s.x_title = c.value("x_title", "");
    s.y_title = c.value("y_title", "");
    s.x_log = c.value("x_log", false);
    s.y_log = c.value("y_log", false);
    s.prediction = c.value("prediction", "");
    s.prediction_relative = c.value("prediction_relative", true);
    s.prediction_label = c.value("prediction_label", "");
    s.counter = c.value("counter", "");
    s.counter_model = c.value("counter_model", "");
    s.counter_inverse = c.value("counter_inverse", false);
    s.published_base = c.value("published_base", "");
    s.leave_out = c.value("leave_out", std::vector<std::string>{});
    s.memcpy_series = c.value("memcpy_series", "");
    if (c.contains("markers") && c["markers"].is_array())
        for (const json &m : c["markers"]) s.markers.emplace_back(m.value("key", ""), m.value("label", ""));
    s.explanation = c.value("explanation", "");
    return s;
}

namespace {

// Every declared chart, read once (the server asks from many threads).
std::map<std::string, ChartSpec> read_declared_charts() {
    std::map<std::string, ChartSpec> out;
    for (std::size_t i = 0; i < gm_experiment_count(); ++i) {
        const char *name = gm_experiment_name(i);
        char *text = nullptr;
        if (!name || gm_experiment_describe_json(&text, name) != GM_OK) continue;
        const json d = json::parse(text, nullptr, false);
        gm_free_string(text);
        if (d.is_object() && d.contains("chart") && d["chart"].is_object())
            out.emplace(name, chart_from_description(name, d["chart"]));
    }
    return out;
}

}  // namespace

std::optional<ChartSpec> declared_chart(const std::string &experiment) {
    static const std::map<std::string, ChartSpec> charts = read_declared_charts();
    const auto it = charts.find(experiment);
    if (it == charts.end()) return std::nullopt;
    return it->second;
}

}  // namespace gmreport
