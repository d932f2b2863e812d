// The server's web pages. Every page is built from escaped text: user-supplied
// strings (GPU names, drivers, series names, notes, ids) pass through
// gmreport::escape_html, and URL parts are percent-encoded before that. Charts
// use the report's chart_data() JSON shape so that the report's own script
// draws them.
#include "web/pages.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "chart_specs.hpp"
#include "compare.hpp"
#include "document.hpp"
#include "html_report.hpp"
#include "table.hpp"

#include "http/guards/request_deadline.hpp"
#include "storage/counter_rows.hpp"
#include "web/number_text.hpp"
#include "web/url.hpp"

namespace gmserver {

using nlohmann::json;
using gmreport::escape_html;

std::string series_color(std::size_t i) {
    static const char *const kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                           "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
    return kPalette[i % (sizeof kPalette / sizeof *kPalette)];
}

namespace {

// An href attribute value: encoded, then escaped (a no-op today, but the
// attribute stays safe whatever url_encode lets through).
std::string gpu_href(const std::string &key) { return escape_html("/gpu/" + url_encode(key)); }
std::string result_href(const std::string &id) { return escape_html("/result/" + url_encode(id)); }
std::string compare_runs_href(const std::string &a, const std::string &b) {
    return escape_html("/compare?a=" + url_encode(a) + "&b=" + url_encode(b));
}
std::string compare_gpus_href(const std::string &a, const std::string &b) {
    return escape_html("/compare?gpu_a=" + url_encode(a) + "&gpu_b=" + url_encode(b));
}

// Every number a page prints: a few significant digits whatever its size.
std::string num(double v) { return number_text(v); }

// A point's number as a double, NaN where there is none (json::value with
// NAN as its default would read it as a float: -1e308 as -inf).
double number_of(const json &p, const char *key) {
    const auto it = p.find(key);
    return it != p.end() && it->is_number() ? it->get<double>() : NAN;
}

// "NVIDIA H200, compute 9.0, 140 GiB, 6016-bit bus"
std::string gpu_line(const GpuIdentity &g) {
    std::string s = g.name.empty() ? g.key : g.name;
    if (!g.compute_capability.empty()) s += ", compute " + g.compute_capability;
    if (g.memory_bytes) s += ", " + gmreport::bytes_text(static_cast<double>(g.memory_bytes));
    if (g.bus_width_bits) s += ", " + std::to_string(g.bus_width_bits) + "-bit bus";
    return s;
}

// The line at the top of every page: back to the list, and where we are.
std::string crumbs(const std::vector<std::pair<std::string, std::string>> &links) {
    std::string h = "<nav class=\"crumbs\"><a href=\"/\">gmlab results</a>";
    for (const auto &[href, text] : links) h += " &rsaquo; " + (href.empty() ? escape_html(text) : "<a href=\"" + href + "\">" + escape_html(text) + "</a>");
    return h + "</nav>\n";
}

// Axis titles for the headline fields the experiments use; the aggregate keeps
// only the field's name, not the document's unit.
std::string field_title(const std::string &field) {
    static const std::map<std::string, std::string> titles = {
        {"bandwidth_gbs", "effective bandwidth (GB/s)"}, {"median_ms", "time (ms)"},
        {"ns_per_warp_access", "time per warp access (ns)"}, {"cycles_per_element", "clock64 cycles per element"},
        {"max_abs_error", "largest difference from the host model"}};
    const auto it = titles.find(field);
    return it != titles.end() ? it->second : field;
}

// x as drawn: the report draws byte-sized x in MiB where its spec says so.
double drawn_x(const gmreport::Chart &spec, double x) {
    const std::string mib = "(MiB)";
    const bool in_mib = spec.x_title.size() >= mib.size() && spec.x_title.compare(spec.x_title.size() - mib.size(), mib.size(), mib) == 0;
    return in_mib ? x / 1048576.0 : x;
}

// Series of an aggregate that a bar chart shows: one point each, and the same
// headline field as the first of them. The others are in the tables only.
std::vector<const json *> bar_series(const json &agg) {
    std::vector<const json *> out;
    std::string field;
    for (const json &s : agg["series"]) {
        if (s["points"].size() != 1) continue;
        if (field.empty()) field = s.value("field", "");
        if (s.value("field", "") == field) out.push_back(&s);
    }
    return out;
}

// Chart of one GPU's aggregate: a median line with a q1..q3 band per series,
// or for bar experiments one bar per series with its q1..q3 range.
json aggregate_chart(const std::string &experiment, const json &agg, const std::string &canvas) {
    const gmreport::Chart spec = gmreport::chart_spec(experiment);
    if (!agg.contains("series") || agg["series"].empty()) return nullptr;
    const std::string field = agg["series"][0].value("field", "");
    json chart = {{"canvas", canvas}, {"kind", spec.kind}, {"y_title", spec.y_title.empty() ? field_title(field) : spec.y_title},
                  {"x_log", spec.x_log}, {"y_log", spec.y_log}};
    json datasets = json::array();
    if (spec.kind == "bar") {
        const auto series = bar_series(agg);
        if (series.empty()) return nullptr;
        json labels = json::array(), medians = json::array(), ranges = json::array();
        for (const json *s : series) {
            const json &p = (*s)["points"][0];
            labels.push_back((*s)["name"]);
            medians.push_back(chart_number(p["median"]));
            ranges.push_back(json::array({chart_number(p["q1"]), chart_number(p["q3"])}));
        }
        chart["labels"] = labels;
        chart["y_title"] = field_title(series.front()->value("field", ""));
        datasets.push_back({{"label", "median across uploads"}, {"data", medians}, {"color", series_color(0)}});
        datasets.push_back({{"label", "first to third quartile"}, {"data", ranges}, {"color", "#333333"}, {"range", true}});
    } else {
        chart["x_title"] = spec.x_title.empty() ? "x" : spec.x_title;
        std::size_t i = 0;
        for (const json &s : agg["series"]) {
            json med = json::array(), lo = json::array(), hi = json::array();
            for (const json &p : s["points"]) {
                const json x = chart_number(drawn_x(spec, p["x"].get<double>()));
                med.push_back({{"x", x}, {"y", chart_number(p["median"])}});
                lo.push_back({{"x", x}, {"y", chart_number(p["q1"])}});
                hi.push_back({{"x", x}, {"y", chart_number(p["q3"])}});
            }
            const std::string c = series_color(i++);
            datasets.push_back({{"label", s["name"]}, {"data", med}, {"color", c}});
            // The script fills a "high" band down to the dataset just before it.
            datasets.push_back({{"label", "quartiles"}, {"data", lo}, {"color", c}, {"band", "low"}});
            datasets.push_back({{"label", "quartiles"}, {"data", hi}, {"color", c}, {"band", "high"}});
        }
    }
    chart["datasets"] = datasets;
    return chart;
}

// What the aggregate left out (HistogramAggregate::result(): no more series
// or points than the fullest upload had), said where anything was.
std::string left_out_note(const json &agg) {
    if (!agg.contains("left_out") || !agg["left_out"].is_object()) return "";
    const json &l = agg["left_out"];
    const std::uint64_t series = l.value("series", std::uint64_t{0}), points = l.value("points", std::uint64_t{0});
    if (!series && !points) return "";
    std::ostringstream h;
    h << "<p class=\"left-out\">Not shown: " << series << " series and " << points << " points that fewer uploads have than "
      << "those shown (a model's page shows no more series, nor points of a series, than its fullest upload had).</p>\n";
    return h.str();
}

// Every point of an aggregate as a table, folded away: the numbers behind the chart.
std::string aggregate_table(const json &agg) {
    std::ostringstream h;
    h << "<details><summary>All points (median and quartiles across uploads)</summary>\n<table>\n"
         "<tr><th>series</th><th>x</th><th>n</th><th>median</th><th>q1</th><th>q3</th></tr>\n";
    for (const json &s : agg["series"])
        for (const json &p : s["points"])
            h << "<tr><td>" << escape_html(s.value("name", "")) << "</td><td>" << num(p["x"].get<double>()) << "</td><td>"
              << p["n"].get<std::uint64_t>() << "</td><td>" << num(number_of(p, "median")) << "</td><td>" << num(number_of(p, "q1"))
              << "</td><td>" << num(number_of(p, "q3")) << "</td></tr>\n";
    h << "</table>\n</details>\n";
    return h.str();
}

// ---- Model against hardware counters (storage/counter_rows.hpp) ------------

// One counted point of a series across the model's uploads.
struct CounterPoint {
    double x = 0, model = NAN, median = NAN, q1 = NAN, q3 = NAN, tolerance = 0;
    std::uint64_t n = 0;  // uploads that counted the point
};

// A figure a series counts and predicts, e.g. stride_copy's
// sectors_per_request_ld of "guide, 4-byte words".
struct CounterFigure {
    std::string series, counter;
    std::vector<CounterPoint> points;
};

// The medians of an aggregate entry's points by x.
std::map<double, double> medians_by_x(const json &entry) {
    std::map<double, double> out;
    for (const json &p : entry["points"]) out[p["x"].get<double>()] = number_of(p, "median");
    return out;
}

// The aggregate's counter rows paired up per (series, counted figure): the
// counted quartiles, with the model's value and the tolerance at the same x
// (their medians across uploads: one value unless the library changed them).
std::vector<CounterFigure> counter_figures(const json &agg) {
    std::vector<CounterFigure> out;
    if (!agg.contains("counters") || !agg["counters"].is_array()) return out;  // none, or stored before counter rows
    const json &entries = agg["counters"];
    auto entry_of = [&](const std::string &series, CounterRow kind, const std::string &counter) -> const json * {
        const std::string field = counter_field(kind, counter);
        for (const json &e : entries)
            if (e.value("name", "") == series && e.value("field", "") == field) return &e;
        return nullptr;
    };
    for (const json &e : entries) {
        std::string_view counter;
        const std::string field = e.value("field", "");
        if (counter_row(field, &counter) != CounterRow::Counted) continue;
        CounterFigure f{e.value("name", ""), std::string(counter), {}};
        const json *model = entry_of(f.series, CounterRow::Model, f.counter);
        const json *tolerance = entry_of(f.series, CounterRow::Tolerance, f.counter);
        const std::map<double, double> models = model ? medians_by_x(*model) : std::map<double, double>{};
        const std::map<double, double> tolerances = tolerance ? medians_by_x(*tolerance) : std::map<double, double>{};
        for (const json &p : e["points"]) {
            CounterPoint cp;
            cp.x = p["x"].get<double>();
            cp.n = p.value("n", std::uint64_t{0});
            cp.median = number_of(p, "median");
            cp.q1 = number_of(p, "q1");
            cp.q3 = number_of(p, "q3");
            if (const auto it = models.find(cp.x); it != models.end()) cp.model = it->second;
            if (const auto it = tolerances.find(cp.x); it != tolerances.end()) cp.tolerance = it->second;
            f.points.push_back(cp);
        }
        out.push_back(std::move(f));
    }
    return out;
}

// The library's test of a counted figure against its model (counters.cpp):
// within the relative tolerance, "exactly" allowing for rounding in doubles.
bool counter_agrees(const CounterPoint &p) {
    if (!std::isfinite(p.median) || !std::isfinite(p.model)) return false;
    return std::fabs(p.median - p.model) <= std::max(p.tolerance, 1e-9) * std::fabs(p.model) + 1e-12;
}

std::string tolerance_text(double tolerance) {
    return tolerance > 0 ? number_text(100 * tolerance, 3) + " %" : "exact";
}

// The model as a dashed line and the counted medians as crosses, per series
// and figure, for experiments drawn against x (a bar experiment's points do
// not form lines; its tables say the same). Each series keeps its colour of
// the experiment's chart above.
json counters_chart(const std::string &experiment, const json &agg, const std::vector<CounterFigure> &figures,
                    const std::string &canvas) {
    const gmreport::Chart spec = gmreport::chart_spec(experiment);
    if (spec.kind != "line" || figures.empty()) return nullptr;
    std::vector<std::string> series;  // the experiment chart's order, then any other
    if (agg.contains("series"))
        for (const json &s : agg["series"]) series.push_back(s.value("name", ""));
    json datasets = json::array();
    std::set<std::pair<std::string, std::string>> model_lines;  // (series, data): figures sharing a model draw it once
    for (const CounterFigure &f : figures) {
        auto at = std::find(series.begin(), series.end(), f.series);
        if (at == series.end()) at = series.insert(series.end(), f.series);
        const std::string c = series_color(static_cast<std::size_t>(at - series.begin()));
        json model = json::array(), counted = json::array();
        for (const CounterPoint &p : f.points) {
            const json x = chart_number(drawn_x(spec, p.x));
            if (std::isfinite(p.model)) model.push_back({{"x", x}, {"y", chart_number(p.model)}});
            if (std::isfinite(p.median)) counted.push_back({{"x", x}, {"y", chart_number(p.median)}});
        }
        if (!model.empty() && model_lines.insert({f.series, model.dump()}).second)
            datasets.push_back({{"label", f.series + ": model"}, {"data", model}, {"color", c}, {"dashed", true}});
        if (!counted.empty())
            datasets.push_back({{"label", f.series + ": " + f.counter}, {"data", counted}, {"color", c}, {"markers", true}});
    }
    if (datasets.empty()) return nullptr;
    return {{"canvas", canvas}, {"kind", "line"}, {"x_title", spec.x_title.empty() ? "x" : spec.x_title}, {"x_log", spec.x_log},
            {"y_log", false}, {"y_title", "counted figure"}, {"datasets", datasets}};
}

// One counted figure's points as a table, folded away unless a median
// differs from the model; the summary line says how many agree.
std::string counter_figure_table(const CounterFigure &f) {
    std::size_t agreeing = 0;
    for (const CounterPoint &p : f.points) agreeing += counter_agrees(p) ? 1 : 0;
    const bool all = agreeing == f.points.size();
    // The tolerance of the series' first point: one per series and figure in a document.
    const double tolerance = f.points.empty() ? 0 : f.points.front().tolerance;
    std::ostringstream h;
    h << "<details class=\"counter-figure\"" << (all ? "" : " open") << "><summary><strong>" << escape_html(f.series) << "</strong>: <code>"
      << escape_html(f.counter) << "</code> against the model (" << tolerance_text(tolerance) << "): median equal to the model at "
      << agreeing << " of " << f.points.size() << " points</summary>\n<table class=\"counters\">\n"
      << "<tr><th>x</th><th>model</th><th>counted median</th><th>q1</th><th>q3</th><th>n</th><th>median = model</th></tr>\n";
    for (const CounterPoint &p : f.points) {
        const bool ok = counter_agrees(p);
        h << "<tr" << (ok ? "" : " class=\"flagged\"") << "><td>" << num(p.x) << "</td><td>" << num(p.model) << "</td><td>" << num(p.median)
          << "</td><td>" << num(p.q1) << "</td><td>" << num(p.q3) << "</td><td>" << p.n << "</td><td>" << (ok ? "yes" : "no") << "</td></tr>\n";
    }
    h << "</table>\n</details>\n";
    return h.str();
}

// The section of an experiment whose series compare counters with their
// model: the chart (line experiments) and a table per series and figure.
// Empty when the model's uploads have no counter rows for it.
std::string counters_section(const std::string &experiment, const json &agg, json &charts) {
    const std::vector<CounterFigure> figures = counter_figures(agg);
    if (figures.empty()) return "";
    std::ostringstream h;
    h << "<h3 id=\"" << escape_html(experiment + "-counters") << "\">Model and hardware counters</h3>\n<p>Each figure the experiment "
      << "predicts and also counts (one more, untimed launch per point, on uploads made with <code>--counters</code>): the model's "
      << "value, and the counted value's median and quartiles across the uploads that counted the point (n; with <code>--counters "
      << "auto</code> an upload counts only some points). The median agrees where it equals the model within the series' "
      << "tolerance. In the chart the model is dashed and the counted medians are crosses, on the line where they agree.</p>\n";
    const std::string canvas = "chart-" + std::to_string(charts.size());
    json chart = counters_chart(experiment, agg, figures, canvas);
    if (!chart.is_null()) {
        h << "<canvas id=\"" << canvas << "\" width=\"960\" height=\"420\"></canvas>\n";
        charts.push_back(chart);
    }
    for (const CounterFigure &f : figures) h << counter_figure_table(f);
    return h.str();
}

// Experiment name -> aggregate, from either an object of that shape or an
// array of [name, aggregate] pairs (what the pairs page_gpu takes become as JSON).
std::vector<std::pair<std::string, json>> experiments_of(const json &agg) {
    std::vector<std::pair<std::string, json>> out;
    if (agg.is_object()) {
        for (auto it = agg.begin(); it != agg.end(); ++it) out.emplace_back(it.key(), it.value());
    } else if (agg.is_array()) {
        for (const json &e : agg)
            if (e.is_array() && e.size() == 2 && e[0].is_string()) out.emplace_back(e[0].get<std::string>(), e[1]);
    }
    return out;
}

const json *find_series(const json &agg, const std::string &name) {
    if (!agg.contains("series")) return nullptr;
    for (const json &s : agg["series"])
        if (s.value("name", "") == name) return &s;
    return nullptr;
}

// Uploads behind an aggregate: its count where it has one, else the largest n
// of its points (an aggregate made elsewhere need not count them).
std::uint64_t uploads_of(const json &agg) {
    if (agg.contains("uploads") && agg["uploads"].is_number_unsigned()) return agg["uploads"].get<std::uint64_t>();
    std::uint64_t n = 0;
    for (const json &s : agg.value("series", json::array()))
        for (const json &p : s["points"]) n = std::max(n, p.value("n", std::uint64_t{0}));
    return n;
}

// Splices a navigation line in after <body> of a page made by the report.
std::string with_header(const std::string &page, const std::string &header) {
    const std::string body = "<body>\n";
    const auto at = page.find(body);
    if (at == std::string::npos) return page;
    return page.substr(0, at + body.size()) + header + page.substr(at + body.size());
}

// A run's document parsed, or null when the stored text is not JSON.
json parse_document(const StoredRun &run) {
    json doc = json::parse(run.document, nullptr, false);
    return doc.is_discarded() ? json() : doc;
}


}  // namespace

std::string page_home(const std::vector<GpuCount> &gpus) {
    std::ostringstream h;
    h << crumbs({}) << "<h1>gmlab results</h1>\n<p>Memory benchmarks of the CUDA Best Practices Guide, measured by their owners on "
         "their own GPUs and uploaded with <code>gmlab run --upload URL</code> or <code>gmlab-upload</code>.</p>\n";
    if (gpus.empty()) {
        h << "<p>No results have been uploaded yet.</p>\n";
        return gmreport::html_page("gmlab results", h.str(), json::array());
    }
    std::uint64_t total = 0;
    for (const GpuCount &g : gpus) total += g.uploads;
    h << "<p>" << total << " uploads of " << gpus.size() << " GPU models.</p>\n<table class=\"gpus\">\n"
         "<tr><th>GPU</th><th>compute capability</th><th>memory</th><th>memory bus</th><th>uploads</th><th>latest driver / runtime</th></tr>\n";
    for (const GpuCount &g : gpus)
        h << "<tr><td><a href=\"" << gpu_href(g.gpu.key) << "\">" << escape_html(g.gpu.name.empty() ? g.gpu.key : g.gpu.name)
          << "</a></td><td>" << escape_html(g.gpu.compute_capability) << "</td><td>"
          << (g.gpu.memory_bytes ? gmreport::bytes_text(static_cast<double>(g.gpu.memory_bytes)) : "?") << "</td><td>"
          << (g.gpu.bus_width_bits ? std::to_string(g.gpu.bus_width_bits) + " bits" : "?") << "</td><td>" << g.uploads << "</td><td>"
          << escape_html(g.gpu.driver_version) << " / " << escape_html(g.gpu.runtime_version) << "</td></tr>\n";
    h << "</table>\n";
    if (gpus.size() >= 2) {
        // A plain GET form: the page it leads to has the shareable URL.
        h << "<h2>Compare two GPU models</h2>\n<form method=\"get\" action=\"/compare\">\n";
        for (const char *field : {"gpu_a", "gpu_b"}) {
            h << "<select name=\"" << field << "\">\n";
            for (std::size_t i = 0; i < gpus.size(); ++i)
                h << "<option value=\"" << escape_html(gpus[i].gpu.key) << "\""
                  << ((std::string(field) == "gpu_a" ? i == 0 : i == 1) ? " selected" : "") << ">" << escape_html(gpu_line(gpus[i].gpu))
                  << "</option>\n";
            h << "</select>\n";
        }
        h << "<button type=\"submit\">compare</button>\n</form>\n<p>For example: <a href=\""
          << compare_gpus_href(gpus[0].gpu.key, gpus[1].gpu.key) << "\">" << escape_html(gpus[0].gpu.name) << " against "
          << escape_html(gpus[1].gpu.name) << "</a>.</p>\n";
    }
    return gmreport::html_page("gmlab results", h.str(), json::array());
}

std::string page_gpu(const GpuIdentity &gpu, const std::vector<std::pair<std::string, json>> &experiments,
                     const std::vector<StoredRun> &recent) {
    std::ostringstream h;
    const std::string name = gpu.name.empty() ? gpu.key : gpu.name;
    h << crumbs({{"", name}}) << "<h1>" << escape_html(name) << "</h1>\n<p>" << escape_html(gpu_line(gpu)) << ". Model key <code>"
      << escape_html(gpu.key) << "</code>.</p>\n<p>Each chart shows, per point, the median across uploads with the first to third "
      << "quartile shaded (bars: the quartiles as a range); n is the number of uploads with that point.</p>\n";
    if (!experiments.empty()) {
        h << "<nav>";
        for (const auto &[exp, agg] : experiments) h << "<a href=\"#" << escape_html(exp) << "\">" << escape_html(exp) << "</a>";
        h << "</nav>\n";
    }
    json charts = json::array();
    for (const auto &[exp, agg] : experiments) {
        check_request_deadline();
        const gmreport::Chart spec = gmreport::chart_spec(exp);
        h << "<section id=\"" << escape_html(exp) << "\">\n<h2>" << escape_html(exp) << "</h2>\n<p class=\"what\"><strong>What this shows.</strong> "
          << escape_html(spec.explanation) << "</p>\n";
        // An experiment that was not applicable (peer with one GPU) has no points.
        if (uploads_of(agg) > 0) h << "<p>" << uploads_of(agg) << " uploads.</p>\n";
        else h << "<p>No measured points: the experiment was not applicable on these uploads.</p>\n";
        h << left_out_note(agg);
        const std::string canvas = "chart-" + std::to_string(charts.size());
        json chart = aggregate_chart(exp, agg, canvas);
        if (!chart.is_null()) {
            h << "<canvas id=\"" << canvas << "\" width=\"960\" height=\"420\"></canvas>\n";
            charts.push_back(chart);
        }
        h << aggregate_table(agg) << counters_section(exp, agg, charts) << "</section>\n";
    }
    if (experiments.empty()) h << "<p>No measurements of this model are stored.</p>\n";
    h << "<h2>Recent uploads</h2>\n";
    if (recent.empty()) {
        h << "<p>None.</p>\n";
    } else {
        h << "<table class=\"uploads\">\n<tr><th>upload</th><th>uploaded</th><th>driver / runtime</th><th></th></tr>\n";
        for (std::size_t i = 0; i < recent.size(); ++i) {
            const StoredRun &r = recent[i];
            h << "<tr><td><a href=\"" << result_href(r.id) << "\"><code>" << escape_html(r.id) << "</code></a></td><td>"
              << escape_html(r.created_at) << "</td><td>" << escape_html(r.gpu.driver_version) << " / " << escape_html(r.gpu.runtime_version)
              << "</td><td>";
            if (i + 1 < recent.size())
                h << "<a href=\"" << compare_runs_href(recent[i + 1].id, r.id) << "\">compare with the upload before</a>";
            h << "</td></tr>\n";
        }
        h << "</table>\n";
    }
    h << "<p><a href=\"" << escape_html("/compare?a=" + url_encode(gpu.key)) << "\">Compare this model with up to three others</a>.</p>\n";
    h << "<form method=\"get\" action=\"/compare\"><input type=\"hidden\" name=\"gpu_a\" value=\"" << escape_html(gpu.key)
      << "\"><label>Compare with the GPU model key <input name=\"gpu_b\" size=\"40\"></label> <button type=\"submit\">compare</button></form>\n";
    return gmreport::html_page("gmlab results: " + name, h.str(), charts);
}

std::string page_result(const StoredRun &run) {
    const json doc = parse_document(run);
    if (doc.is_null()) return page_error(500, "the stored document of " + run.id + " cannot be read");
    const std::string name = run.gpu.name.empty() ? run.gpu.key : run.gpu.name;
    std::ostringstream h;
    h << crumbs({{gpu_href(run.gpu.key), name}, {"", "upload " + run.id}}) << "<p class=\"upload\">Upload <code>" << escape_html(run.id)
      << "</code>, " << escape_html(run.created_at) << ". <a href=\"" << gpu_href(run.gpu.key) << "\">All uploads of " << escape_html(name)
      << "</a>. <a href=\"" << escape_html("/api/v1/results/" + url_encode(run.id)) << "\">The document (JSON)</a>.</p>\n"
      << "<form method=\"get\" action=\"/compare\"><input type=\"hidden\" name=\"a\" value=\"" << escape_html(run.id)
      << "\"><label>Compare with upload <input name=\"b\" size=\"34\"></label> <button type=\"submit\">compare</button></form>\n";
    try {
        return with_header(gmreport::html_report(doc), h.str());
    } catch (const std::exception &e) {
        return page_error(500, std::string("the report of ") + run.id + " cannot be made: " + e.what());
    }
}

std::string page_compare_runs(const StoredRun &a, const StoredRun &b) {
    const json da = parse_document(a), db = parse_document(b);
    if (da.is_null() || db.is_null()) return page_error(500, "a stored document cannot be read");
    std::ostringstream h;
    h << crumbs({{"", "compare uploads"}}) << "<p class=\"upload\"><strong>A</strong>: <a href=\"" << result_href(a.id) << "\"><code>"
      << escape_html(a.id) << "</code></a> (<a href=\"" << gpu_href(a.gpu.key) << "\">" << escape_html(a.gpu.name) << "</a>)<br>"
      << "<strong>B</strong>: <a href=\"" << result_href(b.id) << "\"><code>" << escape_html(b.id) << "</code></a> (<a href=\""
      << gpu_href(b.gpu.key) << "\">" << escape_html(b.gpu.name) << "</a>)<br><a href=\"" << compare_runs_href(a.id, b.id)
      << "\">Link to this comparison</a>, <a href=\"" << compare_runs_href(b.id, a.id) << "\">swap A and B</a>.</p>\n";
    try {
        return with_header(gmreport::html_compare(da, db, gmreport::compare_runs(da, db)), h.str());
    } catch (const std::exception &e) {
        return page_error(500, std::string("the comparison cannot be made: ") + e.what());
    }
}

std::string page_compare_gpus(const GpuIdentity &a, const json &agg_a, const GpuIdentity &b, const json &agg_b) {
    const std::string na = a.name.empty() ? a.key : a.name, nb = b.name.empty() ? b.key : b.name;
    std::ostringstream h;
    h << crumbs({{"", "compare GPU models"}}) << "<h1>" << escape_html(na) << " against " << escape_html(nb) << "</h1>\n<p><strong>A</strong>: <a href=\""
      << gpu_href(a.key) << "\">" << escape_html(gpu_line(a)) << "</a><br><strong>B</strong>: <a href=\"" << gpu_href(b.key) << "\">"
      << escape_html(gpu_line(b)) << "</a><br><a href=\"" << compare_gpus_href(a.key, b.key) << "\">Link to this comparison</a>, <a href=\""
      << compare_gpus_href(b.key, a.key) << "\">swap A and B</a>.</p>\n<p>The median across each model's uploads for every point both "
      << "measured (n: uploads with that point), and B / A.</p>\n";
    const auto ea = experiments_of(agg_a), eb = experiments_of(agg_b);
    std::map<std::string, const json *> by_name_b;
    for (const auto &[name, agg] : eb) by_name_b[name] = &agg;
    json charts = json::array();
    std::vector<std::string> only_one;
    for (const auto &[exp, ga] : ea) {
        check_request_deadline();
        const auto found = by_name_b.find(exp);
        if (found == by_name_b.end()) {
            only_one.push_back(exp);
            continue;
        }
        const json &gb = *found->second;
        by_name_b.erase(found);
        const gmreport::Chart spec = gmreport::chart_spec(exp);
        // Series both models have, with their points at the same x.
        struct Row {
            std::string series;
            double x, a, b;
            std::uint64_t na, nb;
        };
        std::vector<Row> rows;
        std::vector<std::pair<const json *, const json *>> pairs;
        static const json no_series = json::array();
        // By reference: pairs keeps pointers into ga.
        const json &series_a = ga.contains("series") ? ga["series"] : no_series;
        for (const json &sa : series_a) {
            const json *sb = find_series(gb, sa.value("name", ""));
            if (!sb) continue;
            pairs.emplace_back(&sa, sb);
            // B's points by x, looked up: linear in the points, not their product.
            std::multimap<double, const json *> b_points;
            for (const json &pb : (*sb)["points"]) b_points.emplace(pb["x"].get<double>(), &pb);
            for (const json &pa : sa["points"]) {
                const auto [from, to] = b_points.equal_range(pa["x"].get<double>());
                for (auto it = from; it != to; ++it)
                    rows.push_back({sa["name"], pa["x"].get<double>(), number_of(pa, "median"), number_of(*it->second, "median"),
                                    pa["n"].get<std::uint64_t>(), (*it->second)["n"].get<std::uint64_t>()});
            }
        }
        h << "<section id=\"" << escape_html(exp) << "\">\n<h2>" << escape_html(exp) << "</h2>\n";
        if (rows.empty()) {
            h << "<p>No points that both models measured.</p>\n</section>\n";
            continue;
        }
        const std::string canvas = "chart-" + std::to_string(charts.size());
        json chart = {{"canvas", canvas}, {"kind", spec.kind}, {"x_log", spec.x_log}, {"y_log", spec.y_log},
                      {"y_title", field_title(pairs.front().first->value("field", ""))}};
        json datasets = json::array();
        if (spec.kind == "bar") {
            json labels = json::array(), va = json::array(), vb = json::array();
            for (const auto &[sa, sb] : pairs) {
                if ((*sa)["points"].size() != 1 || (*sb)["points"].size() != 1) continue;
                labels.push_back((*sa)["name"]);
                va.push_back(chart_number((*sa)["points"][0]["median"]));
                vb.push_back(chart_number((*sb)["points"][0]["median"]));
            }
            chart["labels"] = labels;
            datasets.push_back({{"label", "A: " + na}, {"data", va}, {"color", "#1f77b4"}});
            datasets.push_back({{"label", "B: " + nb}, {"data", vb}, {"color", "#d62728"}});
            if (labels.empty()) chart = nullptr;
        } else {
            chart["x_title"] = spec.x_title.empty() ? "x" : spec.x_title;
            std::size_t i = 0;
            for (const auto &[sa, sb] : pairs) {
                const std::string c = series_color(i++);
                for (int side = 0; side < 2; ++side) {
                    json data = json::array();
                    for (const json &p : (side ? *sb : *sa)["points"]) data.push_back({{"x", chart_number(drawn_x(spec, p["x"].get<double>()))}, {"y", chart_number(p["median"])}});
                    json d = {{"label", (side ? "B: " : "A: ") + (*sa)["name"].get<std::string>()}, {"data", data}, {"color", c}};
                    if (side) d["dashed"] = true;  // B dashed in A's colour: the pairs read together
                    datasets.push_back(d);
                }
            }
        }
        if (!chart.is_null()) {
            chart["datasets"] = datasets;
            h << "<canvas id=\"" << canvas << "\" width=\"960\" height=\"420\"></canvas>\n";
            charts.push_back(chart);
        }
        h << "<details" << (rows.size() <= 12 ? " open" : "") << "><summary>Medians side by side</summary>\n<table>\n"
          << "<tr><th>series</th><th>x</th><th>A median (n)</th><th>B median (n)</th><th>B / A</th></tr>\n";
        for (const Row &r : rows)
            h << "<tr><td>" << escape_html(r.series) << "</td><td>" << num(r.x) << "</td><td>" << num(r.a) << " (" << r.na << ")</td><td>"
              << num(r.b) << " (" << r.nb << ")</td><td>" << (r.a != 0 ? ratio_text(r.b / r.a) : num(NAN)) << "</td></tr>\n";
        h << "</table>\n</details>\n</section>\n";
    }
    for (const auto &[name, agg] : by_name_b) only_one.push_back(name);
    if (!only_one.empty()) {
        h << "<p>Measured by only one of the two models: ";
        for (std::size_t i = 0; i < only_one.size(); ++i) h << (i ? ", " : "") << escape_html(only_one[i]);
        h << ".</p>\n";
    }
    return gmreport::html_page("gmlab compare: " + na + " against " + nb, h.str(), charts);
}

std::string page_error(int status, const std::string &message) {
    const char *title = status == 404 ? "Not found" : status == 400 ? "Bad request" : status == 429 ? "Too many requests"
                        : status >= 500                            ? "Server error"
                                                                   : "Error";
    std::ostringstream h;
    h << crumbs({}) << "<h1>" << status << " " << title << "</h1>\n<p class=\"error\">" << escape_html(message) << "</p>\n"
      << "<p><a href=\"/\">Back to the GPU models</a>.</p>\n";
    return gmreport::html_page(std::to_string(status) + " " + title, h.str(), json::array());
}

}  // namespace gmserver
