#include "web/declared_shapes.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "gmlab.h"

namespace gmserver {

namespace {

using nlohmann::json;

constexpr std::size_t kMany = std::numeric_limits<std::size_t>::max() / 4;

// How many values a list parameter can take: its choices, its allowed
// values, or the integers of its range (1 for any other parameter).
std::size_t values_of(const json &param) {
    if (param.contains("choices") && param["choices"].is_array()) return param["choices"].size();
    if (param.contains("allowed") && param["allowed"].is_array()) return param["allowed"].size();
    if (param.value("type", "") == "int_list" && param.contains("min") && param.contains("max")) {
        const double span = param["max"].get<double>() - param["min"].get<double>() + 1;
        return span < 1 ? 1 : span > static_cast<double>(kMany) ? kMany : static_cast<std::size_t>(span);
    }
    return 1;
}

const json *find_param(const json &d, const std::string &name) {
    if (!d.contains("parameters")) return nullptr;
    for (const json &p : d["parameters"])
        if (p.value("name", "") == name) return &p;
    return nullptr;
}

}  // namespace

std::shared_ptr<const ShapeTable> declared_shapes(const ShapeSettings &settings) {
    auto table = std::make_shared<ShapeTable>();
    const std::size_t count = gm_experiment_count();
    for (std::size_t i = 0; i < count; ++i) {
        const char *name = gm_experiment_name(i);
        char *text = nullptr;
        if (!name || gm_experiment_describe_json(&text, name) != GM_OK) continue;
        const json d = json::parse(text, nullptr, false);
        gm_free_string(text);
        std::size_t points = 0, series = 1;
        if (d.is_object() && d.contains("axes") && d["axes"].is_array())
            for (const json &axis : d["axes"]) {
                const json *p = find_param(d, axis.value("name", ""));
                const std::size_t n = p ? values_of(*p) : 1;
                if (axis.value("x", false)) points = n;
                else series = series > kMany / (n ? n : 1) ? kMany : series * n;
            }
        table->experiments[name] = derive_shape(points, series, settings);
    }
    // Results: at most a few of each declared experiment, within the ceiling.
    const double slack = settings.axis_slack > 1 ? settings.axis_slack : 1;
    const std::size_t derived = static_cast<std::size_t>(slack * static_cast<double>(table->experiments.size()));
    table->max_results = std::min(settings.max_results, std::max<std::size_t>(64, derived));
    return table;
}

}  // namespace gmserver
