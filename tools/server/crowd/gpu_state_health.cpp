#include "crowd/gpu_state_health.hpp"

#include <simdjson.h>

namespace gmserver {

using nlohmann::json;

json gpu_state_warnings(const simdjson::dom::element &result) {
    json out = json::array();
    simdjson::dom::array warnings;
    if (result.at_key("gpu_state").at_key("warnings").get(warnings) != simdjson::SUCCESS) return out;
    std::string_view name;
    if (result.at_key("experiment").at_key("name").get(name) != simdjson::SUCCESS) name = "?";
    for (simdjson::dom::element w : warnings) {
        std::string_view text;
        if (w.get(text) == simdjson::SUCCESS && !text.empty())
            out.push_back({{"experiment", std::string(name)}, {"warning", std::string(text)}});
    }
    return out;
}

std::string gpu_state_problem(const json &warnings) {
    if (!warnings.is_array() || warnings.empty()) return "";
    // The first three say enough to check; the count says how widespread.
    constexpr std::size_t kShown = 3;
    std::string text = "degraded GPU state: " + std::to_string(warnings.size()) +
                       (warnings.size() == 1 ? " warning" : " warnings") + " from the GPU's own readings (NVML) while it measured: ";
    for (std::size_t i = 0; i < warnings.size() && i < kShown; ++i) {
        const json &w = warnings[i];
        text += (i ? "; " : "") + w.value("experiment", std::string("?")) + ": " + w.value("warning", std::string());
    }
    if (warnings.size() > kShown) text += "; ...";
    return text;
}

}  // namespace gmserver
