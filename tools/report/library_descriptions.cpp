#include "library_descriptions.hpp"

#include <map>

#include "gmlab.h"

namespace gmreport {

namespace {

std::vector<std::pair<std::string, nlohmann::json>> read_descriptions() {
    std::vector<std::pair<std::string, nlohmann::json>> out;
    for (std::size_t i = 0; i < gm_experiment_count(); ++i) {
        const char *name = gm_experiment_name(i);
        char *text = nullptr;
        if (!name || gm_experiment_describe_json(&text, name) != GM_OK) continue;
        nlohmann::json d = nlohmann::json::parse(text, nullptr, false);
        gm_free_string(text);
        if (d.is_object()) out.emplace_back(name, std::move(d));
    }
    return out;
}

}  // namespace

const std::vector<std::pair<std::string, nlohmann::json>> &library_descriptions() {
    static const std::vector<std::pair<std::string, nlohmann::json>> all = read_descriptions();
    return all;
}

std::optional<gmvocab::Chart> declared_chart(const std::string &experiment) {
    static const std::map<std::string, gmvocab::Chart> charts = [] {
        std::map<std::string, gmvocab::Chart> out;
        for (const auto &[name, d] : library_descriptions())
            if (d.contains("chart") && d["chart"].is_object()) out.emplace(name, gmvocab::chart_from_json(d["chart"]));
        return out;
    }();
    const auto it = charts.find(experiment);
    if (it == charts.end()) return std::nullopt;
    return it->second;
}

}  // namespace gmreport
