#include "check_limits.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace gmcli::check {

using nlohmann::json;

// The words of a figure in a reason, shared with check_judge.cpp.
std::string pct(double fraction) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f %%", fraction * 100);
    return b;
}

std::string num(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.4g", v);
    return b;
}

namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

double quantile_at(const json &quantiles, const char *level) {
    return quantiles.contains(level) && quantiles[level].is_number() ? quantiles[level].get<double>() : NAN;
}

}  // namespace

const json *reference_of_model(const json &reference, const std::string &model) {
    if (!reference.is_object() || !reference.contains("models") || !reference["models"].is_object()) return nullptr;
    const json &models = reference["models"];  // a reference into `reference`: the pointer stays valid
    for (auto it = models.begin(); it != models.end(); ++it)
        if (lower(it.key()) == lower(model) && it->is_object()) return &*it;
    return nullptr;
}

json reference_judgement(const FigureSpec &f, double value, const json *model_doc, const std::string &model) {
    if (!model_doc) return {{"judged", false}, {"why", "no embedded reference of " + model}};
    const std::string key = f.crowd_experiment + "/" + f.crowd_figure;
    const json &figs = model_doc->value("figures", json::object());
    if (f.crowd_experiment.empty() || !figs.contains(key) || !figs[key].is_object()) {
        const json &missing = model_doc->value("not_covered", json::object());
        const std::string why = missing.contains(f.name) ? missing[f.name].get<std::string>() : "the reference holds no " + key;
        return {{"judged", false}, {"why", "no embedded reference of this figure: " + why}};
    }
    const json &d = figs[key];
    const int n = d.value("n", 0);
    const json &q = d.value("quantiles", json::object());
    const double median = quantile_at(q, "0.5");
    const double tail = quantile_at(q, f.higher_is_better ? "0.01" : "0.99");
    if (n < static_cast<int>(kMinReference) || !(median > 0) || !std::isfinite(tail))
        return {{"judged", false}, {"why", "the embedded reference holds " + std::to_string(n) + " runs; " +
                                               std::to_string(kMinReference) + " needed to judge"}};
    const double limit = std::max(kReferenceTolerance, std::fabs(median - tail) / median);
    const double shortfall = f.higher_is_better ? (median - value) / median : (value - median) / median;
    return {{"judged", true}, {"source", "embedded reference"}, {"n", n}, {"median", median}, {"shortfall", shortfall},
            {"limit", limit}, {"flag", shortfall > limit}};
}

void apply_floor(const FigureSpec &f, json &theoretical) {
    if (!(f.floor > 0) || !theoretical.contains("fraction")) return;
    const bool below = theoretical["fraction"].get<double>() < f.floor;
    theoretical["floor"] = f.floor;
    theoretical["below_floor"] = below;
    theoretical["judged"] = true;
    theoretical["flag"] = theoretical.value("flag", false) || below;
    theoretical.erase("why");
}

json ceiling_judgement(double value_ns, const json &gpu) {
    const double clock = gpu.value("theoretical", json::object()).value("sm_clock_mhz", 0.0);
    if (!(clock > 0)) return {{"judged", false}, {"why", "the SM clock is not known: no latency ceiling"}};
    const double ceiling = kL2LatencyCeilingCycles / clock * 1000;
    return {{"judged", true}, {"ceiling_ns", ceiling}, {"ceiling_cycles", kL2LatencyCeilingCycles}, {"clock_mhz", clock},
            {"flag", value_ns > ceiling}};
}

std::string describe_reference(const json &j, const FigureSpec &f) {
    const std::string unit = f.unit;
    return pct(j["shortfall"].get<double>()) + (f.higher_is_better ? " short of" : " above") + " the embedded reference's median (" +
           num(j["median"].get<double>()) +
           " " + unit + " over " + std::to_string(j["n"].get<int>()) + " runs, limit " + pct(j["limit"].get<double>()) + ")";
}

std::string describe_floor(const json &t) {
    return pct(t["fraction"].get<double>()) + " of theoretical (" + num(t["theoretical"].get<double>()) +
           "), below the theoretical floor of " + pct(t["floor"].get<double>());
}

std::string describe_ceiling(const json &c) {
    return "above the ceiling of " + num(c["ceiling_ns"].get<double>()) + " ns (" + num(c["ceiling_cycles"].get<double>()) +
           " cycles at " + num(c["clock_mhz"].get<double>()) + " MHz)";
}

}  // namespace gmcli::check
