#include "declared_charts.hpp"

#include <map>

#include "gmlab.h"

namespace gmreport {

using nlohmann::json;

namespace {

// Every declared chart, read once (the server asks from many threads).
std::map<std::string, Chart> read_declared_charts() {
    std::map<std::string, Chart> out;
    for (std::size_t i = 0; i < gm_experiment_count(); ++i) {
        const char *name = gm_experiment_name(i);
        char *text = nullptr;
        if (!name || gm_experiment_describe_json(&text, name) != GM_OK) continue;
        const json d = json::parse(text, nullptr, false);
        gm_free_string(text);
        if (d.is_object() && d.contains("chart") && d["chart"].is_object())
            out.emplace(name, gmvocab::chart_from_json(d["chart"]));
    }
    return out;
}

}  // namespace

std::optional<Chart> declared_chart(const std::string &experiment) {
    static const std::map<std::string, Chart> charts = read_declared_charts();
    const auto it = charts.find(experiment);
    if (it == charts.end()) return std::nullopt;
    return it->second;
}

}  // namespace gmreport
