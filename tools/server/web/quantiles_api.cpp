#include "web/quantiles_api.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "http/http_message.hpp"

namespace gmserver {

using nlohmann::json;

namespace {

// The newest uploads of each key read per request: enough for stable
// quantiles, bounded so that a popular model's request stays short.
constexpr std::size_t kMaxUploadsPerKey = 500;

struct QuantileFigure {
    const char *experiment, *figure, *unit;
    // Where the theoretical figure is in the run document's device block ("" : none).
    const char *theoretical;
};

const QuantileFigure kFigures[] = {
    {"stream", "copy_gbs", "GB/s", "theoretical_bandwidth_gbs"},
    {"stream", "triad_gbs", "GB/s", "theoretical_bandwidth_gbs"},
    {"memory_spaces", "l2_ns", "ns", ""},
    {"transfer", "pinned_h2d_peak_gbs", "GB/s", "host_link"},
    {"transfer", "pinned_d2h_peak_gbs", "GB/s", "host_link"},
};

const double kLevels[] = {0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99};

std::string level_key(double q) {
    char b[16];
    std::snprintf(b, sizeof b, "%g", q);
    return b;
}

// Type 7: linear between closest ranks; `v` sorted, not empty.
double quantile_sorted(const std::vector<double> &v, double q) {
    const double h = (v.size() - 1) * q;
    const std::size_t lo = static_cast<std::size_t>(std::floor(h));
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (h - lo) * (v[hi] - v[lo]);
}

json quantiles_json(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    json q = json::object();
    for (double level : kLevels) q[level_key(level)] = quantile_sorted(v, level);
    return q;
}

double theoretical_of(const json &device, const QuantileFigure &f) {
    const std::string key = f.theoretical;
    if (key.empty()) return 0;
    if (key == "host_link") return device.value("host_link", json::object()).value("theoretical_gbs", 0.0);
    return device.value(key, 0.0);
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

void send(HttpResponse &res, int status, const json &body) {
    res.status = status;
    res.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace), "application/json");
}

}  // namespace

json quantiles_of_documents(const std::string &model, const std::vector<std::string> &documents) {
    std::map<std::string, std::vector<double>> values, fractions;
    std::size_t used = 0;
    for (const std::string &text : documents) {
        const json doc = json::parse(text, nullptr, false);
        if (!doc.is_object() || !doc.contains("results") || !doc["results"].is_array()) continue;
        ++used;
        const json &device = doc.value("device", json::object());
        for (const json &r : doc["results"]) {
            if (!r.is_object() || r.value("quick", false)) continue;
            const std::string name = r.value("experiment", json::object()).value("name", "");
            const json &summary = r.value("summary", json::object());
            for (const QuantileFigure &f : kFigures) {
                if (name != f.experiment || !summary.contains(f.figure) || !summary[f.figure].is_number()) continue;
                const double v = summary[f.figure].get<double>();
                if (!std::isfinite(v) || v <= 0) continue;
                const std::string id = std::string(f.experiment) + "/" + f.figure;
                values[id].push_back(v);
                if (const double t = theoretical_of(device, f); t > 0) fractions[id].push_back(v / t);
            }
        }
    }
    json figures = json::object();
    for (const QuantileFigure &f : kFigures) {
        const std::string id = std::string(f.experiment) + "/" + f.figure;
        if (!values.count(id)) continue;
        json entry = {{"n", values[id].size()}, {"unit", f.unit}, {"quantiles", quantiles_json(values[id])}};
        if (fractions.count(id) && fractions[id].size() == values[id].size()) entry["fraction_quantiles"] = quantiles_json(fractions[id]);
        figures[id] = std::move(entry);
    }
    return {{"model", model}, {"uploads", used}, {"figures", figures},
            {"from", "accepted uploads, the newest " + std::to_string(kMaxUploadsPerKey) + " of each key"}};
}

void install_quantiles_api(Router &router, Crowd &crowd) {
    router.get(R"(/api/v1/gpus/([^/]+)/quantiles)", [&crowd](const HttpRequest &req, HttpResponse &res) {
        const std::string asked = req.matches[1];
        std::vector<std::string> keys;
        std::string name;
        for (const GpuCount &g : crowd.gpus(true))
            if (g.gpu.key == asked || lower(g.gpu.name) == lower(asked)) {
                keys.push_back(g.gpu.key);
                if (name.empty()) name = g.gpu.name;
            }
        if (keys.empty())
            return send(res, 404, {{"code", "not_found"}, {"message", "no uploads of a GPU model named or keyed " + asked}});
        std::vector<std::string> documents;
        for (const std::string &key : keys) {
            const auto held = crowd.store().not_accepted(key);
            for (const StoredRun &r : crowd.storage().runs_of(key, kMaxUploadsPerKey)) {
                if (held.count(r.id)) continue;
                if (const auto run = crowd.storage().get(r.id)) documents.push_back(run->document);
            }
        }
        json out = quantiles_of_documents(name, documents);
        out["keys"] = keys;
        send(res, 200, out);
    });
}

}  // namespace gmserver
