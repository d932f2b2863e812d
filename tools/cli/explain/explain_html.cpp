#include "explain_html.hpp"

#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "chart_specs.hpp"
#include "document.hpp"
#include "html_report.hpp"

namespace gmcli {

using nlohmann::json;
using gmreport::escape_html;

namespace {

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

// The result with only the series named `series`; null where it has none of that name.
json with_only_series(const json &result, const std::string &series) {
    json out = result;
    out["series"] = json::array();
    for (const auto &s : result.value("series", json::array()))
        if (s.value("name", "") == series) out["series"].push_back(s);
    return out["series"].empty() ? json() : out;
}

// The series' own line and its spread (which the legend leaves out): its
// model's line, counters and the experiment's markers belong to the report.
void keep_series_only(json &chart, const std::string &series) {
    json kept = json::array();
    for (const auto &d : chart["datasets"])
        if (d.value("label", "") == series || d.contains("band")) kept.push_back(d);
    chart["datasets"] = kept;
}

}  // namespace

json finding_chart(const json &lab, const json &finding, const std::string &canvas, const std::string &kernel) {
    const json *result = gmreport::find_result(lab, finding.value("experiment", ""));
    if (!result) return nullptr;
    json chart = gmreport::chart_data(*result, canvas);
    const json &cost = finding["cost"];
    const std::string source = cost.value("source", "");
    const auto slash = source.find(" / ");
    // A cost read from a summary figure names no series: the experiment's chart stands whole beside it.
    if (chart.is_null() || !cost.value("found", false) || slash == std::string::npos || chart.value("kind", "line") == "bar")
        return chart;
    const std::string series = source.substr(slash + 3);
    const json only = with_only_series(*result, series);
    if (only.is_null()) return chart;
    json narrow = gmreport::chart_data(only, canvas);
    if (narrow.is_null()) return chart;
    keep_series_only(narrow, series);
    if (narrow["datasets"].empty()) return chart;
    for (const auto &p : narrow["datasets"][0]["data"])
        if (p.contains("x") && p["x"].get<double>() == cost.value("at", -1.0))
            narrow["datasets"].push_back({{"label", "this kernel: " + kernel},
                                          {"data", json::array({p})},
                                          {"color", "#d62728"},
                                          {"markers", true}});
    return narrow;
}

namespace {

void add_finding(std::string &body, json &charts, const json &lab, const json &f, const std::string &kernel) {
    body += "<h3>" + escape_html(f.value("title", "")) + "</h3><p>" + escape_html(f.value("text", "")) + "</p><p>evidence: ";
    std::string ev;
    for (const auto &[k, v] : f["evidence"].items()) ev += (ev.empty() ? "" : ", ") + k + " " + number(v.get<double>());
    body += escape_html(ev) + "</p>";
    if (f["cost"].value("found", false))
        body += "<p>cost on this GPU: " + escape_html(f["cost"].value("text", "")) + " (" + escape_html(f["cost"].value("source", "")) +
                (f["cost"].contains("measured") ? ", measured now in " + number(f["cost"]["measured"].value("seconds", 0.0)) + " s" : "") +
                ")</p>";
    else
        body += "<p>cost: not measured on this GPU: " + escape_html(f["cost"].value("missing", "")) + "</p>";
    if (!f.value("limiting", true))
        body += "<p>present, not limiting: " + escape_html(f.value("not_limiting", std::string())) + "</p>";
    else if (f.contains("gain_ms") && !f["gain_ms"].is_null())
        body += "<p>estimated gain: up to " + number(f["gain_ms"].get<double>()) + " ms</p>";
    body += "<p>fix: " + escape_html(f.value("fix", "")) + "</p>";
    const std::string canvas = "finding" + std::to_string(charts.size());
    json chart = finding_chart(lab, f, canvas, kernel);
    if (chart.is_null()) return;
    body += "<p>demonstrated by <code>gmlab run " + escape_html(f.value("experiment", "")) + "</code> on this GPU:</p>"
            "<canvas id=\"" + canvas + "\" width=\"960\" height=\"420\"></canvas>";
    charts.push_back(chart);
}

// The whole demangled and mangled names, folded away under the short one.
std::string full_name(const json &kernel) {
    return "<details><summary>full name</summary><p><code>" + escape_html(kernel.value("name", "")) + "</code></p><p><code>" +
           escape_html(kernel.value("mangled", "")) + "</code></p></details>";
}

// --lines: the kernel's source lines, as the text prints them.
void add_source_lines(std::string &body, const json &kernel) {
    if (kernel.contains("lines_missing")) {
        body += "<p>source lines: none: " + escape_html(kernel["lines_missing"].get<std::string>()) + "</p>";
        return;
    }
    if (!kernel.contains("lines") || kernel["lines"].empty()) return;
    body += "<h3>source lines</h3><ul>";
    for (const auto &l : kernel["lines"])
        body += "<li><code>" + escape_html(l.value("file", "")) + ":" + std::to_string(l.value("line", 0)) + "</code> " +
                escape_html(l.value("text", "")) + "</li>";
    body += "</ul>";
}

}  // namespace

std::string explanation_html(const json &doc) {
    if (!gmreport::html_available()) throw std::runtime_error("this build of gmlab has no Chart.js to inline: --html is not available");
    json lab;
    if (doc["lab"].contains("results")) {  // costs measured on the spot: their results are in the document
        lab = {{"results", doc["lab"]["results"]}};
    } else if (doc["lab"].contains("run") && doc["lab"]["run"].is_string()) {
        std::ifstream in(doc["lab"]["run"].get<std::string>());
        if (in) lab = json::parse(in, nullptr, false);
    }
    std::string command;
    for (const auto &a : doc["command"]) command += (command.empty() ? "" : " ") + a.get<std::string>();
    std::string body = "<h1>gmlab explain</h1><p><code>" + escape_html(command) + "</code> on " +
                       escape_html(doc["device"].value("name", "")) + "</p>";
    json charts = json::array();
    for (const auto &k : doc["kernels"]) {
        if (!k.value("counted", false)) continue;
        const std::string name = k.value("short_name", k["name"].get<std::string>());
        body += "<h2>#" + std::to_string(k["rank"].get<int>()) + " " + escape_html(name) + "</h2>" + full_name(k) + "<p>" +
                std::to_string(k["launches"].get<std::uint64_t>()) + " launches, " + number(k["total_ms"].get<double>()) + " ms</p>";
        const json slow = k.value("traced_vs_counted", json::object());
        if (slow.value("slow_launches", 0) > 0)  // its traced launches far slower than the counted one, and why
            body += "<p>traced: " + escape_html(slow.value("text", "")) + "<br>likely cause: " + escape_html(slow.value("cause_text", "")) + "</p>";
        if (k["findings"].empty()) body += "<p>no finding</p>";
        for (const auto &f : k["findings"]) add_finding(body, charts, lab, f, name);
        add_source_lines(body, k);
    }
    body += "<h2>Whole program</h2>";
    if (doc["run"]["findings"].empty()) body += "<p>no finding</p>";
    for (const auto &f : doc["run"]["findings"]) add_finding(body, charts, lab, f, "the program");
    return gmreport::html_page("gmlab explain", body, charts);
}

}  // namespace gmcli
