#include "core/experiment/chart.hpp"

namespace gmlab {

nlohmann::json describe(const Chart &c) {
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

}  // namespace gmlab
