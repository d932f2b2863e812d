#include "upload/shape_limits.hpp"

#include <algorithm>
#include <cmath>

#include <simdjson.h>

namespace gmserver {

namespace {

std::size_t clamp_allowance(std::size_t declared, std::size_t floor, std::size_t ceiling, double slack) {
    const double scaled = std::ceil(static_cast<double>(declared) * (slack > 1 ? slack : 1));
    const double wanted = std::max(static_cast<double>(floor), scaled);
    return static_cast<std::size_t>(std::min(static_cast<double>(ceiling), wanted));
}

}  // namespace

ExperimentShape derive_shape(std::size_t declared_points, std::size_t declared_series, const ShapeSettings &s) {
    ExperimentShape e;
    e.declared_points = declared_points;
    e.declared_series = declared_series;
    e.max_points = clamp_allowance(declared_points, s.min_points_allowance, s.max_points_per_series, s.axis_slack);
    e.max_series = clamp_allowance(declared_series, s.min_series_allowance, s.max_series_per_result, s.axis_slack);
    return e;
}

std::optional<ShapeProblem> check_density(std::string_view body) {
    if (body.size() <= (1u << 20)) return std::nullopt;
    std::size_t separators = 0;
    for (const char c : body) separators += (c == ',') | (c == ':');
    if (separators * kMinBytesPerValue <= body.size()) return std::nullopt;
    return ShapeProblem{"too_large", "the body holds " + std::to_string(separators) + " JSON values in " + std::to_string(body.size()) +
                                         " bytes, more than a run document of its size (one per " +
                                         std::to_string(kMinBytesPerValue) + " bytes at most)"};
}

std::optional<ShapeProblem> check_shape(const simdjson::dom::element &root, const ShapeTable *table) {
    if (!table) return std::nullopt;
    simdjson::dom::array results;
    if (root.at_key("results").get(results) != simdjson::SUCCESS) return std::nullopt;  // the validator says what is wrong
    if (results.size() > table->max_results)
        return ShapeProblem{"too_many_results", "document.results: " + std::to_string(results.size()) + " results, more than the " +
                                                    std::to_string(table->max_results) + " one upload may hold"};
    std::size_t i = 0;
    for (simdjson::dom::element r : results) {
        const std::string where = "results[" + std::to_string(i++) + "]";
        std::string_view name;
        if (r.at_key("experiment").at_key("name").get(name) != simdjson::SUCCESS) continue;  // the validator's to refuse
        const ExperimentShape *shape = table->find(std::string(name));
        if (!shape) {
            std::string known;
            for (const auto &[n, s] : table->experiments) known += (known.empty() ? "" : ", ") + n;
            return ShapeProblem{"unknown_experiment", where + ".experiment.name: \"" + std::string(name.substr(0, 64)) +
                                                          "\" is not an experiment of this server's library (" + known + ")"};
        }
        simdjson::dom::array series;
        if (r.at_key("series").get(series) != simdjson::SUCCESS) continue;
        if (series.size() > shape->max_series)
            return ShapeProblem{"too_many_series",
                                where + ".series: " + std::to_string(series.size()) + " series, more than the " +
                                    std::to_string(shape->max_series) + " " + std::string(name) + " may have (its axes declare " +
                                    std::to_string(shape->declared_series) + " combinations)"};
        std::size_t s = 0;
        for (simdjson::dom::element se : series) {
            simdjson::dom::array points;
            if (se.at_key("points").get(points) == simdjson::SUCCESS && points.size() > shape->max_points)
                return ShapeProblem{"too_many_points",
                                    where + ".series[" + std::to_string(s) + "].points: " + std::to_string(points.size()) +
                                        " points, more than the " + std::to_string(shape->max_points) + " a series of " +
                                        std::string(name) + " may have" +
                                        (shape->declared_points ? " (its x axis declares " + std::to_string(shape->declared_points) + " values)"
                                                                : std::string())};
            ++s;
        }
    }
    return std::nullopt;
}

}  // namespace gmserver
