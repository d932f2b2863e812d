#include "chart_specs.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "library_descriptions.hpp"
#include "table.hpp"
#include "vocabulary/point_fields.hpp"

namespace gmreport {

using nlohmann::json;

namespace {

const char *kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};

std::string color(std::size_t i) { return kPalette[i % (sizeof kPalette / sizeof *kPalette)]; }

// Low and high ends of the repetitions' spread for a point's headline value.
std::pair<double, double> band(const json &p, const std::string &field) {
    if (field == "bandwidth_gbs" && p.contains("bandwidth_gbs_min"))
        return {p["bandwidth_gbs_min"].get<double>(), p["bandwidth_gbs_max"].get<double>()};
    const double y = point_field(p, field), med = p["time_ms"]["median"].get<double>();
    if (field == "max_abs_error" || med <= 0) return {y, y};
    // Values derived from the time (time per access, cycles) spread as the time does.
    return {y * p["time_ms"]["min"].get<double>() / med, y * p["time_ms"]["max"].get<double>() / med};
}

// A dashed vertical line from the lowest to the highest y of the chart at
// each marker's x (a capacity found by the experiment).
void add_markers(json &datasets, const Chart &spec, const json &summary, bool bytes_x) {
    double lo = INFINITY, hi = -INFINITY;
    for (const json &d : datasets)
        for (const json &pt : d["data"]) {
            const double y = pt["y"].get<double>();
            if (std::isfinite(y)) {
                lo = std::min(lo, y);
                hi = std::max(hi, y);
            }
        }
    if (!(lo <= hi)) return;
    for (const auto &[key, label] : spec.markers) {
        if (!summary.contains(key) || !summary[key].is_number()) continue;
        const double v = summary[key].get<double>();
        if (!(v > 0)) continue;
        const double x = bytes_x ? v / 1048576.0 : v;
        datasets.push_back({{"label", label + " (" + (bytes_x ? gmreport::bytes_text(v) : gmreport::readable(v)) + ")"},
                            {"data", json::array({{{"x", x}, {"y", lo}}, {{"x", x}, {"y", hi}}})},
                            {"color", "#555555"},
                            {"dashed", true}});
    }
}

}  // namespace

Chart chart_spec(const std::string &experiment) {
    if (std::optional<Chart> declared = declared_chart(experiment)) return *declared;
    // An experiment this library does not know (a document from another
    // version) or that declares no chart: its series against their x.
    Chart generic;
    generic.explanation = "Measurements of " + experiment + ".";
    return generic;
}

double point_field(const json &p, const std::string &field) { return gmvocab::point_field(p, field).value_or(NAN); }

json chart_data(const json &result, const std::string &canvas_id) {
    const Chart spec = chart_spec(result["experiment"]["name"].get<std::string>());
    std::vector<const json *> series;
    for (const json &s : result["series"]) {
        const std::string variant = s.value("variant", "");
        bool skip = false;
        for (const auto &v : spec.leave_out) skip |= v == variant;
        if (!skip) series.push_back(&s);
    }
    if (series.empty()) return nullptr;
    const json &first = *series.front();
    const std::string y_field = first["y"].value("field", "bandwidth_gbs");
    const std::string y_unit = first["y"].value("unit", "");
    // A bandwidth axis says what it is a bandwidth of, as the series declares
    // (1.3: "DRAM bandwidth (GB/s)", "link bandwidth (GB/s)"); others keep the
    // series' own name for its figure.
    std::string y_title = spec.y_title.empty() ? first["y"].value("name", y_field) + (y_unit.empty() ? "" : " (" + y_unit + ")")
                                               : spec.y_title;
    if (y_field == "bandwidth_gbs" && first.contains("quantity") && first["quantity"].is_object() &&
        first["quantity"].contains("label") && first["quantity"]["label"].is_string())
        y_title = "effective " + first["quantity"]["label"].get<std::string>() + " (GB/s)";
    // Every field the experiment declared reaches report.js as declared (the
    // vocabulary's JSON), with what the data decides set over it; the
    // explanation is printed beside the chart, not drawn.
    json chart = gmvocab::chart_to_json(spec);
    chart.erase("explanation");
    chart["canvas"] = canvas_id;
    chart["y_title"] = y_title;
    json datasets = json::array();
    if (spec.kind == "bar") {
        json labels = json::array(), values = json::array(), ranges = json::array();
        for (const json *s : series) {
            const json &p = (*s)["points"][0];
            labels.push_back((*s)["name"]);
            values.push_back(point_field(p, y_field));
            const auto [lo, hi] = band(p, y_field);
            ranges.push_back(json::array({lo, hi}));
        }
        chart["labels"] = labels;
        datasets.push_back({{"label", "median"}, {"data", values}, {"color", color(0)}});
        datasets.push_back({{"label", "min-max of the repetitions"}, {"data", ranges}, {"color", "#333333"}, {"range", true}});
    } else {
        const bool bytes_x = first["x"].value("unit", "") == "bytes";
        chart["x_title"] = spec.x_title.empty() ? first["x"].value("name", "x") : spec.x_title;
        std::size_t i = 0;
        for (const json *s : series) {
            json data = json::array(), lo = json::array(), hi = json::array(), pred = json::array(), counted = json::array();
            const json &pts = (*s)["points"];
            // Counters are drawn only for a series that claims they equal its model (its
            // "agreement" names the counted figure); elsewhere they explain, not confirm.
            const bool draw_counters = !spec.counter.empty() && (*s).contains("agreement") && (*s)["agreement"].is_object() &&
                                       (*s)["agreement"].contains(spec.counter.substr(9));
            const double ref_pred = pts.empty() ? NAN : point_field(pts[0], spec.prediction);
            const double ref_y = pts.empty() ? NAN : point_field(pts[0], y_field);
            for (const json &p : pts) {
                const double x = bytes_x ? p["x"].get<double>() / 1048576.0 : p["x"].get<double>();
                const double y = point_field(p, y_field);
                data.push_back({{"x", x}, {"y", y}});
                const auto [l, h] = band(p, y_field);
                lo.push_back({{"x", x}, {"y", l}});
                hi.push_back({{"x", x}, {"y", h}});
                if (!spec.prediction.empty()) {
                    double v = point_field(p, spec.prediction);
                    // Relative models (sector efficiency, n-way) meet the measurement at the first point;
                    // efficiency lowers a bandwidth, an n-way conflict raises a time.
                    if (spec.prediction_relative && std::isfinite(v) && ref_pred > 0)
                        v = ref_y * v / ref_pred;
                    if (std::isfinite(v)) pred.push_back({{"x", x}, {"y", v}});
                    const double c = point_field(p, spec.counter), m = point_field(p, spec.counter_model);
                    if (draw_counters && std::isfinite(v) && c > 0 && m > 0)
                        counted.push_back({{"x", x}, {"y", spec.counter_inverse ? v * m / c : v * c / m}});
                }
            }
            const std::string c = color(i++);
            datasets.push_back({{"label", (*s)["name"]}, {"data", data}, {"color", c}});
            datasets.push_back({{"label", "spread"}, {"data", lo}, {"color", c}, {"band", "low"}});
            datasets.push_back({{"label", "spread"}, {"data", hi}, {"color", c}, {"band", "high"}});
            if (!pred.empty())
                datasets.push_back({{"label", (*s)["name"].get<std::string>() + ": " + spec.prediction_label}, {"data", pred},
                                    {"color", c}, {"dashed", true}});
            if (!counted.empty())
                datasets.push_back({{"label", (*s)["name"].get<std::string>() + ": hardware counters"}, {"data", counted},
                                    {"color", c}, {"markers", true}});
        }
        if (!spec.markers.empty() && result.contains("summary")) add_markers(datasets, spec, result["summary"], bytes_x);
        if (bytes_x) chart["x_title"] = chart["x_title"].get<std::string>() + (spec.x_title.empty() ? " (MiB)" : "");
    }
    chart["datasets"] = datasets;
    return chart;
}

json published_rows(const json &result) {
    json rows = json::array();
    if (!result.contains("published")) return rows;
    const Chart spec = chart_spec(result["experiment"]["name"].get<std::string>());
    const json &figures = result["published"]["figures"];
    // A figure "simple_gbs" belongs to the series of variant "simple" and its
    // bandwidth; "constant_ms" to variant "constant" and its median time.
    struct Pair {
        std::string name;
        double ours, published;
    };
    std::vector<Pair> pairs;
    for (auto it = figures.begin(); it != figures.end(); ++it) {
        const std::string key = it.key();
        if (result.contains("summary") && result["summary"].contains(key) && result["summary"][key].is_number()) {
            pairs.push_back({key, result["summary"][key].get<double>(), it.value().get<double>()});
            continue;
        }
        const auto us = key.rfind('_');
        if (us == std::string::npos) continue;
        const std::string variant = key.substr(0, us), unit = key.substr(us + 1);
        const std::string field = unit == "gbs" ? "bandwidth_gbs" : unit == "ms" ? "median_ms" : "";
        if (field.empty()) continue;
        for (const json &s : result["series"]) {
            if (s.value("variant", "") != variant || s["points"].empty()) continue;
            // Where a variant has several series (element sizes), the first stands for it.
            pairs.push_back({variant, point_field(s["points"][0], field), it.value().get<double>()});
            break;
        }
    }
    double ours_base = NAN, pub_base = NAN;
    for (const Pair &p : pairs)
        if (p.name == spec.published_base) {
            ours_base = p.ours;
            pub_base = p.published;
        }
    for (const Pair &p : pairs)
        rows.push_back({{"name", p.name}, {"ours", p.ours}, {"published", p.published},
                        {"ours_ratio", std::isfinite(ours_base) ? p.ours / ours_base : NAN},
                        {"published_ratio", std::isfinite(pub_base) ? p.published / pub_base : NAN}});
    return rows;
}

}  // namespace gmreport
