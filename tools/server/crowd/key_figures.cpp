#include "crowd/key_figures.hpp"

#include "crowd/gpu_state_health.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <simdjson.h>

#include "gmlab.h"
#include "library_descriptions.hpp"

namespace gmserver {
namespace {

using nlohmann::json;

// The figures each experiment declares for the view across GPU models
// (src/experiments/<family>/: Experiment::compared), read once through the
// library's description of every experiment, in the standard suite's order.
struct ComparedRow {
    std::string experiment, id, label, unit;
};

const std::vector<ComparedRow> &compared_rows() {
    static const std::vector<ComparedRow> rows = [] {
        std::vector<ComparedRow> out;
        for (const auto &[name, d] : gmreport::library_descriptions()) {
            if (!d.contains("compared_figures")) continue;
            for (const json &c : d["compared_figures"])
                out.push_back({name, c.value("key", ""), c.value("label", ""), c.value("unit", "")});
        }
        return out;
    }();
    return rows;
}

const json *summary_of(const json &result) {
    for (const char *k : {"summary", "summary_values"})
        if (result.contains(k) && result[k].is_object()) return &result[k];
    return nullptr;
}

double number_or_nan(const json *obj, const char *key) {
    if (!obj || !obj->contains(key) || !(*obj)[key].is_number()) return NAN;
    return (*obj)[key].get<double>();
}

double median_of(std::vector<double> v) {
    if (v.empty()) return NAN;
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// A simdjson value as nlohmann::json (for the small objects judged_parts keeps).
json to_json(simdjson::dom::element e) {
    switch (e.type()) {
        case simdjson::dom::element_type::OBJECT: {
            json o = json::object();
            for (auto field : simdjson::dom::object(e)) o[std::string(field.key)] = to_json(field.value);
            return o;
        }
        case simdjson::dom::element_type::ARRAY: {
            json a = json::array();
            for (simdjson::dom::element v : simdjson::dom::array(e)) a.push_back(to_json(v));
            return a;
        }
        case simdjson::dom::element_type::STRING: return std::string(std::string_view(e));
        case simdjson::dom::element_type::INT64: return int64_t(e);
        case simdjson::dom::element_type::UINT64: return uint64_t(e);
        case simdjson::dom::element_type::DOUBLE: return double(e);
        case simdjson::dom::element_type::BOOL: return bool(e);
        default: return nullptr;
    }
}

}  // namespace

json judged_parts(std::string_view document) {
    thread_local simdjson::dom::parser parser;
    simdjson::dom::element root;
    if (parser.parse(document.data(), document.size()).get(root) != simdjson::SUCCESS) return nullptr;
    return judged_parts(root);
}

namespace {
// The spread of a point's middle 80 % of repetitions relative to its median:
// from the deciles where the document is compact, the samples otherwise. NaN
// when the point has neither.
double repetition_spread(simdjson::dom::object t) {
    double med = 0;
    if (t.at_key("median").get(med) != simdjson::SUCCESS || !(med > 0)) return NAN;
    simdjson::dom::array q;
    double q10 = 0, q90 = 0;
    if (t.at_key("quantiles").get(q) == simdjson::SUCCESS && q.size() == 9 && q.at(0).get(q10) == simdjson::SUCCESS &&
        q.at(8).get(q90) == simdjson::SUCCESS)
        return (q90 - q10) / med;
    simdjson::dom::array samples;
    if (t.at_key("samples").get(samples) != simdjson::SUCCESS) return NAN;
    std::vector<double> v;
    for (simdjson::dom::element x : samples) {
        double d = 0;
        if (x.get(d) == simdjson::SUCCESS) v.push_back(d);
    }
    if (v.size() < 10) return NAN;
    std::sort(v.begin(), v.end());
    return (v[v.size() * 9 / 10] - v[v.size() / 10]) / med;
}
}  // namespace

json judged_parts(const simdjson::dom::element &root) {
    simdjson::dom::object doc;
    if (root.get(doc) != simdjson::SUCCESS) return nullptr;
    json out = json::object();
    // Each point's repetition times condensed to the one number
    // health_problems reads: no copy of every point's deciles.
    json &spreads = out["point_spreads"] = json::array();
    simdjson::dom::element device, results;
    if (doc.at_key("device").get(device) == simdjson::SUCCESS) out["device"] = to_json(device);
    if (doc.at_key("results").get(results) != simdjson::SUCCESS || !results.is_array()) return out;
    json &rs = out["results"] = json::array();
    json &gpu_warnings = out["gpu_state_warnings"] = json::array();
    for (simdjson::dom::element r : simdjson::dom::array(results)) {
        if (!r.is_object()) continue;
        for (json &w : gpu_state_warnings(r)) gpu_warnings.push_back(std::move(w));
        json one = json::object();
        simdjson::dom::element name, summary;
        simdjson::dom::array series;
        if (r.at_key("experiment").at_key("name").get(name) == simdjson::SUCCESS) one["experiment"] = {{"name", to_json(name)}};
        for (const char *k : {"summary", "summary_values"})
            if (r.at_key(k).get(summary) == simdjson::SUCCESS) one[k] = to_json(summary);
        if (r.at_key("series").get(series) == simdjson::SUCCESS)
            for (simdjson::dom::element s : series) {
                simdjson::dom::array points;
                if (s.at_key("points").get(points) != simdjson::SUCCESS) continue;
                for (simdjson::dom::element p : points) {
                    simdjson::dom::object t;
                    if (p.at_key("time_ms").get(t) != simdjson::SUCCESS) continue;
                    const double spread = repetition_spread(t);
                    if (std::isfinite(spread)) spreads.push_back(spread);
                }
            }
        rs.push_back(std::move(one));
    }
    return out;
}

const std::vector<std::string> &compared_experiments() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> out;
        for (const ComparedRow &c : compared_rows())
            if (std::find(out.begin(), out.end(), c.experiment) == out.end()) out.push_back(c.experiment);
        return out;
    }();
    return names;
}

std::vector<FigureSpec> figure_specs(const std::string &experiment) {
    std::vector<FigureSpec> out;
    for (const ComparedRow &c : compared_rows()) {
        if (experiment != c.experiment) continue;
        out.push_back({c.id, c.label, c.unit, ""});
        if (c.unit == "GB/s") {
            out.push_back({c.id + "/theoretical", c.label + " / theoretical bandwidth", "ratio", "theoretical"});
            out.push_back({c.id + "/copy", c.label + " / stream copy", "ratio", "copy"});
        }
    }
    return out;
}

std::vector<FigureValue> upload_figures(const json &doc) {
    std::vector<FigureValue> out;
    if (!doc.is_object() || !doc.contains("results") || !doc["results"].is_array()) return out;
    const json *device = doc.contains("device") && doc["device"].is_object() ? &doc["device"] : nullptr;
    const double theoretical = number_or_nan(device, "theoretical_bandwidth_gbs");
    double copy = NAN;
    for (const json &r : doc["results"])
        if (r.is_object() && r.contains("experiment") && r["experiment"].value("name", "") == "stream") copy = number_or_nan(summary_of(r), "copy_gbs");
    for (const json &r : doc["results"]) {
        if (!r.is_object() || !r.contains("experiment") || !r["experiment"].is_object()) continue;
        const std::string exp = r["experiment"].value("name", "");
        const json *summary = summary_of(r);
        for (const FigureSpec &f : figure_specs(exp)) {
            if (!f.basis.empty()) continue;
            const double v = number_or_nan(summary, f.id.c_str());
            if (!std::isfinite(v)) continue;
            out.push_back({exp, f.id, v});
            if (f.unit != "GB/s") continue;
            if (std::isfinite(theoretical) && theoretical > 0) out.push_back({exp, f.id + "/theoretical", v / theoretical});
            if (std::isfinite(copy) && copy > 0) out.push_back({exp, f.id + "/copy", v / copy});
        }
    }
    return out;
}

std::vector<PointRow> figure_rows(const std::string &run_id, const std::vector<FigureValue> &figures) {
    std::vector<PointRow> rows;
    rows.reserve(figures.size());
    for (const FigureValue &f : figures) rows.push_back({run_id, kFiguresSet, f.experiment + "/" + f.figure, "figure", 0, f.value});
    return rows;
}

bool split_figure_series(const std::string &series, std::string *experiment, std::string *figure) {
    // Experiment names have no '/'; figure ids may ("<id>/theoretical").
    const std::size_t slash = series.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == series.size()) return false;
    *experiment = series.substr(0, slash);
    *figure = series.substr(slash + 1);
    return true;
}

std::vector<std::string> health_problems(const json &doc) {
    std::vector<std::string> problems;
    if (!doc.is_object()) return problems;
    // A whole document is condensed first: the spread rule lives in judged_parts.
    if (!doc.contains("point_spreads")) {
        const json parts = judged_parts(doc.dump());
        return parts.is_object() && parts.contains("point_spreads") ? health_problems(parts) : problems;
    }
    const json *device = doc.contains("device") && doc["device"].is_object() ? &doc["device"] : nullptr;
    const double max_clock = number_or_nan(device, "sm_clock_mhz");
    // The pointer-chasing experiments measure the SM clock they ran at.
    std::vector<double> clocks, spreads;
    if (doc.contains("results") && doc["results"].is_array())
        for (const json &r : doc["results"]) {
            const double measured = r.is_object() ? number_or_nan(summary_of(r), "sm_clock_mhz_measured") : NAN;
            if (std::isfinite(measured)) clocks.push_back(measured);
        }
    for (const json &x : doc["point_spreads"])
        if (x.is_number()) spreads.push_back(x.get<double>());
    const double clock = median_of(clocks);
    if (std::isfinite(clock) && std::isfinite(max_clock) && max_clock > 0 && clock < kThrottledClockShare * max_clock) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "throttled: the SM clock was measured at %.0f MHz, %.0f %% of the device's maximum %.0f MHz", clock,
                      100 * clock / max_clock, max_clock);
        problems.push_back(buf);
    }
    if (const std::string degraded = gpu_state_problem(doc.value("gpu_state_warnings", json::array())); !degraded.empty())
        problems.push_back(degraded);
    const double spread = median_of(spreads);
    if (std::isfinite(spread) && spread > kUnstableSpread) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "unstable: the middle 80 %% of repetitions spread over %.0f %% of the median (typical point)", 100 * spread);
        problems.push_back(buf);
    }
    return problems;
}

}  // namespace gmserver
