#include "web/page_bounds.hpp"

#include "http/guards/request_deadline.hpp"

namespace gmserver {

using nlohmann::json;

void bound_aggregate(json &agg, const ShapeTable *shapes, const std::string &experiment) {
    if (!shapes || !agg.is_object() || !agg.contains("series") || !agg["series"].is_array()) return;
    const ExperimentShape *shape = shapes->find(experiment);
    if (!shape) return;
    json &series = agg["series"];
    std::uint64_t cut_series = 0, cut_points = 0;
    if (series.size() > shape->max_series) {
        cut_series = series.size() - shape->max_series;
        series.erase(series.begin() + static_cast<std::ptrdiff_t>(shape->max_series), series.end());
    }
    for (json &s : series) {
        check_request_deadline();
        if (!s.contains("points") || !s["points"].is_array() || s["points"].size() <= shape->max_points) continue;
        const json &points = s["points"];
        const std::size_t n = points.size(), keep = shape->max_points;
        json kept = json::array();
        // Evenly spread, the first and the last kept.
        for (std::size_t i = 0; i < keep; ++i) kept.push_back(points[keep > 1 ? i * (n - 1) / (keep - 1) : 0]);
        cut_points += n - keep;
        s["points"] = std::move(kept);
    }
    if (!cut_series && !cut_points) return;
    if (!agg.contains("left_out") || !agg["left_out"].is_object()) agg["left_out"] = json::object();
    json &l = agg["left_out"];
    l["series"] = l.value("series", std::uint64_t{0}) + cut_series;
    l["points"] = l.value("points", std::uint64_t{0}) + cut_points;
}

bool page_shows_experiment(const ShapeTable *shapes, const std::string &experiment) {
    return !shapes || shapes->find(experiment) != nullptr;
}

std::string more_models_note(std::size_t more, std::size_t shown) {
    if (!more) return "";
    return "<p class=\"left-out\">" + std::to_string(more) + " more GPU models with fewer uploads are not listed here (a page lists the " +
           std::to_string(shown) + " most uploaded; every model's page is at /gpu/KEY, and /api/v1/gpus lists them all).</p>\n";
}

}  // namespace gmserver
