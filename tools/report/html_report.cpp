#include "html_report.hpp"

#include <cmath>
#include <map>
#include <sstream>

#include "chart_specs.hpp"
#include "interrupt.hpp"
#include "consistency.hpp"
#include "document.hpp"
#include "glance.hpp"
#include "table.hpp"
#include "text_report.hpp"

namespace gmreport {

namespace assets {
extern const bool have_chartjs;
extern const char *const chartjs;
extern const char *const report_js;
extern const char *const report_css;
}  // namespace assets

using nlohmann::json;

namespace {

// JSON inside <script>: every '<' as \u003c (the same JSON once parsed), so
// that neither "</script>" nor "<!--" in a series name can end the element.
std::string script_json(const json &j) {
    std::string s;
    for (char c : j.dump(-1, ' ', false, json::error_handler_t::replace)) s += c == '<' ? std::string("\\u003c") : std::string(1, c);
    return s;
}

std::string cell(double v) { return std::isfinite(v) ? gmreport::readable(v) : "-"; }

void page_head(std::ostringstream &h, const std::string &title) {
    h << "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" << escape_html(title)
      << "</title>\n<style>\n" << assets::report_css << "</style>\n</head>\n<body>\n";
}

// The chart data, Chart.js and the drawing script, at the end of the body.
void page_tail_scripts(std::ostringstream &h, const json &charts) {
    h << "<script id=\"gmlab-charts\" type=\"application/json\">" << script_json(charts) << "</script>\n";
    h << "<script>\n" << assets::chartjs << "\n</script>\n<script>\n" << assets::report_js << "</script>\n";
}

void page_tail(std::ostringstream &h, const json &charts) {
    page_tail_scripts(h, charts);
    h << "</body>\n</html>\n";
}

void device_table(std::ostringstream &h, const json &d) {
    const std::pair<const char *, std::string> rows[] = {
        {"device", d.value("name", "?")},
        {"compute capability", d.value("compute_capability", "?")},
        {"multiprocessors", std::to_string(d.value("multiprocessors", 0))},
        {"global memory", gmreport::bytes_text(d.value("global_memory_bytes", 0.0))},
        {"L2 cache", gmreport::bytes_text(d.value("l2_cache_bytes", 0.0))},
        {"theoretical bandwidth", gmreport::fixed(d.value("theoretical_bandwidth_gbs", 0.0), 1) + " GB/s"},
        {"memory bus", std::to_string(d.value("memory_bus_width_bits", 0)) + " bits at " + gmreport::fixed(d.value("memory_clock_mhz", 0.0), 0) + " MHz"},
        {"driver / runtime", d.value("driver_version", "?") + " / " + d.value("runtime_version", "?")},
    };
    h << "<table class=\"device\">\n";
    for (const auto &[k, v] : rows) h << "<tr><th>" << k << "</th><td>" << escape_html(v) << "</td></tr>\n";
    h << "</table>\n";
}

void published_table(std::ostringstream &h, const json &r) {
    const json rows = published_rows(r);
    if (rows.empty()) return;
    h << "<h3>Published figures beside ours</h3>\n<p>" << escape_html(r["published"].value("source", ""))
      << ". The hardware differs, so read the ratios against the same base.</p>\n<table>\n<tr><th>variant</th><th>ours</th><th>published</th>"
         "<th>ours / base</th><th>published / base</th></tr>\n";
    for (const json &row : rows)
        h << "<tr><td>" << escape_html(row["name"]) << "</td><td>" << cell(row["ours"].get<double>()) << "</td><td>"
          << cell(row["published"].get<double>()) << "</td><td>"
          << (row["ours_ratio"].is_number() ? gmreport::fixed(row["ours_ratio"].get<double>(), 2) : "-") << "</td><td>"
          << (row["published_ratio"].is_number() ? gmreport::fixed(row["published_ratio"].get<double>(), 2) : "-") << "</td></tr>\n";
    h << "</table>\n";
}

// Model against counters: per series, each counted figure the experiment says
// equals its prediction, and at how many points it did; or why there are no
// counters.
void counters_section(std::ostringstream &h, const json &r) {
    if (!r.contains("counters") || !r["counters"].is_object()) return;  // a document older than 1.2
    const json &c = r["counters"];
    if (!c.value("available", false)) {
        if (c.value("mode", "") != "off")
            h << "<p class=\"counters\">Hardware counters: not available: " << escape_html(c.value("reason", "")) << "</p>\n";
        return;
    }
    bool any = false;
    for (const json &s : r["series"]) any |= s.contains("agreement") && s["agreement"].is_object() && !s["agreement"].empty();
    if (any) {
        h << "<h3>Model and hardware counters</h3>\n<p>Each counted figure from one more, untimed launch per point, "
             "against the prediction it should equal. Where the chart has a dashed model line, crosses mark the counters on it.</p>\n"
             "<table class=\"counters\">\n<tr><th>series</th><th>counted</th><th>predicted</th><th>tolerance</th><th>agreeing points</th></tr>\n";
        for (const json &s : r["series"]) {
            if (!s.contains("agreement") || !s["agreement"].is_object()) continue;
            for (auto it = s["agreement"].begin(); it != s["agreement"].end(); ++it) {
                const json &a = it.value();
                const int agreeing = a.value("agreeing", 0), points = a.value("points", 0);
                h << "<tr" << (agreeing < points ? " class=\"flagged\"" : "") << "><td>" << escape_html(s.value("name", ""))
                  << "</td><td>" << escape_html(it.key()) << "</td><td>" << escape_html(a.value("prediction", "")) << "</td><td>"
                  << (a.value("tolerance", 0.0) > 0 ? gmreport::fixed(100 * a.value("tolerance", 0.0), 1) + " %" : "exact") << "</td><td>"
                  << agreeing << " of " << points << "</td></tr>\n";
            }
        }
        h << "</table>\n";
    }
    if (c.contains("errors") && c["errors"].is_array())
        for (const json &e : c["errors"]) h << "<p class=\"counters\">Counting failed: " << escape_html(e.get<std::string>()) << "</p>\n";
}

}  // namespace

bool html_available() { return assets::have_chartjs; }

std::string escape_html(const std::string &s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        default: out += c;
        }
    }
    return out;
}

std::string html_page(const std::string &title, const std::string &body_html, const json &charts) {
    const bool drawn = charts.is_array() && !charts.empty();
    if (drawn && !html_available()) throw ReportError("this gmlab was built without Chart.js (Debian: libjs-chart.js); text reports work");
    std::ostringstream h;
    page_head(h, title);
    h << body_html;
    if (drawn) page_tail_scripts(h, charts);
    h << "</body>\n</html>\n";
    return h.str();
}

std::string html_report(const json &run, const json &crowd) {
    if (!html_available()) throw ReportError("this gmlab was built without Chart.js (Debian: libjs-chart.js); text reports work");
    std::ostringstream h;
    const json &d = run["device"];
    page_head(h, "gmlab report: " + d.value("name", "?"));
    h << "<h1>gmlab report: " << escape_html(d.value("name", "?")) << "</h1>\n<p>gmlab "
      << escape_html(run.value("library", json::object()).value("version", "?")) << ", " << escape_html(run.value("created_at", ""));
    if (!run.value("command", "").empty()) h << ", <code>" << escape_html(run["command"].get<std::string>()) << "</code>";
    h << "</p>\n";
    if (is_quick(run)) h << "<p class=\"quick\"><strong>" << escape_html(kQuickNote) << "</strong></p>\n";
    h << glance_html(glance(run, crowd));
    device_table(h, d);
    if (run.contains("settings") && run["settings"].is_object()) {
        h << "<p>Settings: ";
        bool first = true;
        for (auto it = run["settings"].begin(); it != run["settings"].end(); ++it, first = false)
            h << (first ? "" : ", ") << escape_html(it.key()) << " " << escape_html(it.value().dump());
        h << ".</p>\n";
    }
    h << "<nav>";
    for (const json &r : run["results"]) {
        interruption_point();
        const std::string name = r["experiment"]["name"];
        h << "<a href=\"#" << escape_html(name) << "\">" << escape_html(name) << "</a>";
    }
    const json block = consistency_of(run);
    const bool consistent_section = !block["groups"].empty() || run["results"].size() > 1;
    if (consistent_section) h << "<a href=\"#consistency\">consistency</a>";
    h << "</nav>\n";
    json charts = json::array();
    for (const json &r : run["results"]) {
        interruption_point();
        const std::string name = r["experiment"]["name"];
        const Chart spec = chart_spec(name);
        h << "<section id=\"" << escape_html(name) << "\">\n<h2>" << escape_html(name) << "</h2>\n<p>"
          << escape_html(r["experiment"].value("summary", "")) << " <em>" << escape_html(r["experiment"].value("guide_section", ""))
          << "</em></p>\n<p class=\"what\"><strong>What this shows.</strong> " << escape_html(spec.explanation) << "</p>\n";
        const std::string canvas = "chart-" + std::to_string(charts.size());
        json chart = chart_data(r, canvas);
        if (!r.value("applicable", true)) h << "<p class=\"what\"><strong>Not applicable on this machine</strong> (the notes say why): nothing was measured.</p>\n";
        if (!chart.is_null()) {
            h << "<canvas id=\"" << canvas << "\" width=\"960\" height=\"420\"></canvas>\n";
            charts.push_back(chart);
        }
        if (r.contains("summary") && !r["summary"].empty()) {
            h << "<h3>Key figures</h3>\n<table>\n";
            for (auto it = r["summary"].begin(); it != r["summary"].end(); ++it)
                h << "<tr><td>" << escape_html(it.key()) << "</td><td>" << cell(it.value().get<double>()) << "</td></tr>\n";
            h << "</table>\n";
        }
        counters_section(h, r);
        if (const std::string g = gpu_state_line(r); !g.empty()) h << "<p class=\"counters\">" << escape_html(g) << "</p>\n";
        if (r.contains("gpu_state") && r["gpu_state"].contains("warnings"))
            for (const json &w : r["gpu_state"]["warnings"])
                h << "<p class=\"flagged\"><strong>GPU state:</strong> " << escape_html(w.get<std::string>()) << "</p>\n";
        published_table(h, r);
        if (r.contains("notes") && !r["notes"].empty()) {
            h << "<ul class=\"notes\">\n";
            for (const json &n : r["notes"]) h << "<li>" << escape_html(n.get<std::string>()) << "</li>\n";
            h << "</ul>\n";
        }
        std::ostringstream numbers;
        write_result_text(numbers, r, false);
        h << "<details><summary>All numbers</summary>\n<pre>" << escape_html(numbers.str()) << "</pre>\n</details>\n</section>\n";
    }
    if (consistent_section) h << consistency_html(block);
    page_tail(h, charts);
    return h.str();
}

std::string html_compare(const json &a, const json &b, const json &cmp) {
    if (!html_available()) throw ReportError("this gmlab was built without Chart.js (Debian: libjs-chart.js); text reports work");
    std::ostringstream h;
    auto who = [](const json &r) { return r["device"].value("name", "?") + " (" + r.value("created_at", "") + ")"; };
    page_head(h, "gmlab compare: " + who(a) + " vs " + who(b));
    h << "<h1>gmlab compare</h1>\n<p><strong>A</strong>: " << escape_html(who(a)) << "<br><strong>B</strong>: " << escape_html(who(b))
      << "</p>\n<p>B / A for the headline value of every point both runs measured; highlighted where the difference is larger "
         "than the spread of the repetitions (half the min-max range of A plus that of B); hardware counters (counters.*), where "
         "both runs have them, highlighted where they differ by more than 2%.</p>\n";
    if (is_quick(a) || is_quick(b))
        h << "<p class=\"quick\"><strong>" << (is_quick(a) ? "A" : "B") << (is_quick(a) && is_quick(b) ? " and B are" : " is")
          << " a quick run: " << escape_html(kQuickNote) << "</strong></p>\n";
    // One chart and one table per experiment and series.
    std::map<std::string, std::vector<const json *>> groups;
    std::vector<std::string> order;
    for (const json &row : cmp["rows"]) {
        interruption_point();
        // Each hardware counter of a series gets a chart and table of its own.
        const std::string key = row["experiment"].get<std::string>() + " / " + row["series"].get<std::string>() +
                                (row.value("counter", false) ? " (" + row["field"].get<std::string>() + ")" : "");
        if (!groups.count(key)) order.push_back(key);
        groups[key].push_back(&row);
    }
    json charts = json::array();
    for (const std::string &key : order) {
        const auto &rows = groups[key];
        const std::string canvas = "chart-" + std::to_string(charts.size());
        h << "<h2>" << escape_html(key) << "</h2>\n<canvas id=\"" << canvas << "\" width=\"960\" height=\"320\"></canvas>\n";
        // Sizes as the report draws and prints them: the axis in MiB, the labels and cells as "256 MiB".
        const std::string x_unit = (*rows.front())["x_unit"];
        const bool bytes_x = x_unit == "bytes";
        json da = json::array(), db = json::array(), labels = json::array();
        for (const json *r : rows) {
            const double x = (*r)["x"].get<double>();
            da.push_back({{"x", bytes_x ? x / 1048576.0 : x}, {"y", (*r)["a"]}});
            db.push_back({{"x", bytes_x ? x / 1048576.0 : x}, {"y", (*r)["b"]}});
            labels.push_back(gmreport::x_text(x, x_unit));
        }
        json chart = {{"canvas", canvas}, {"y_title", (*rows.front())["field"]},
                      {"x_title", (*rows.front())["x_name"].get<std::string>() + (bytes_x ? " (MiB)" : "")}, {"x_log", false}, {"y_log", false}};
        if (rows.size() == 1) {
            chart["kind"] = "bar";
            chart["labels"] = labels;
            chart["datasets"] = json::array({{{"label", "A"}, {"data", json::array({(*rows.front())["a"]})}, {"color", "#1f77b4"}},
                                             {{"label", "B"}, {"data", json::array({(*rows.front())["b"]})}, {"color", "#d62728"}}});
        } else {
            chart["kind"] = "line";
            chart["datasets"] = json::array({{{"label", "A"}, {"data", da}, {"color", "#1f77b4"}}, {{"label", "B"}, {"data", db}, {"color", "#d62728"}}});
        }
        charts.push_back(chart);
        h << "<table>\n<tr><th>" << escape_html((*rows.front())["x_name"].get<std::string>()) << "</th><th>A</th><th>B</th><th>B / A</th></tr>\n";
        for (const json *r : rows)
            h << "<tr" << ((*r)["flagged"].get<bool>() ? " class=\"flagged\"" : "") << "><td>" << gmreport::x_text((*r)["x"].get<double>(), x_unit) << "</td><td>"
              << cell((*r)["a"].get<double>()) << "</td><td>" << cell((*r)["b"].get<double>()) << "</td><td>"
              << ((*r)["ratio"].is_number() ? gmreport::fixed((*r)["ratio"].get<double>(), 3) : "-") << "</td></tr>\n";
        h << "</table>\n";
    }
    if (cmp["unmatched"].get<int>() > 0)
        h << "<p>" << cmp["unmatched"].get<int>() << " experiments, series or points of A have no counterpart in B and are left out.</p>\n";
    page_tail(h, charts);
    return h.str();
}

}  // namespace gmreport
