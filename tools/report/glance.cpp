#include "glance.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

#include "document.hpp"
#include "html_report.hpp"
#include "table.hpp"

namespace gmreport {

using nlohmann::json;

namespace {

// Where a glance figure is read from in the run document.
enum class Kind {
    Summary,     // the result's summary[key]
    BestSeries,  // the best bandwidth_gbs of every series (any experiment) whose declared quantity is `key`
    BestValue,   // the largest values[key] of the result's points
};

// Which theoretical figure of the device block a row stands beside.
enum class Peak { None, Dram, HostLink };

struct RowSpec {
    const char *section, *label, *unit;
    Kind kind;
    const char *experiment;  // Summary, BestValue; "" for BestSeries
    const char *key;
    Peak peak;
};

const std::vector<RowSpec> &rows() {
    static const std::vector<RowSpec> r = {
        {"DRAM", "read (alone)", "GB/s", Kind::Summary, "read_write", "read_gbs", Peak::Dram},
        {"DRAM", "write (alone)", "GB/s", Kind::Summary, "read_write", "write_gbs", Peak::Dram},
        {"DRAM", "copy (STREAM copy kernel)", "GB/s", Kind::Summary, "stream", "copy_gbs", Peak::Dram},
        {"DRAM", "cudaMemcpy device to device", "GB/s", Kind::Summary, "stream", "cudaMemcpy_gbs", Peak::Dram},
        {"caches", "L2 bandwidth (best series declared L2)", "GB/s", Kind::BestSeries, "", "l2_bandwidth", Peak::None},
        {"caches", "L1 bandwidth (ld.ca hits, all SMs)", "GB/s", Kind::BestValue, "carveout", "read_gbs", Peak::None},
        {"latency", "L1 hit", "ns", Kind::Summary, "latency", "l1_ns", Peak::None},
        {"latency", "L2 hit (near partition)", "ns", Kind::Summary, "latency", "l2_near_ns", Peak::None},
        {"latency", "DRAM", "ns", Kind::Summary, "latency", "dram_ns", Peak::None},
        {"host link", "pinned, host to device", "GB/s", Kind::Summary, "transfer", "pinned_h2d_peak_gbs", Peak::HostLink},
        {"host link", "pinned, device to host", "GB/s", Kind::Summary, "transfer", "pinned_d2h_peak_gbs", Peak::HostLink},
        {"host link", "pageable, host to device", "GB/s", Kind::Summary, "transfer", "pageable_h2d_peak_gbs", Peak::HostLink},
        {"host link", "pageable, device to host", "GB/s", Kind::Summary, "transfer", "pageable_d2h_peak_gbs", Peak::HostLink},
        {"peer", "copy to another GPU, best pair", "GB/s", Kind::Summary, "peer", "copy_gbs_max", Peak::None},
        {"peer", "both directions at once, best pair", "GB/s", Kind::Summary, "peer", "bidirectional_gbs_max", Peak::None},
    };
    return r;
}

bool positive(const json &v) { return v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() > 0; }

// Why a result cannot give the row's figure ("" where it can).
std::string result_missing(const json *r, const std::string &experiment) {
    if (!r) return "not measured: the run has no " + experiment + " result";
    if (r->value("applicable", true)) return "";
    std::string why = "not measured: " + experiment + " is not applicable here";
    if (r->contains("notes") && (*r)["notes"].is_array() && !(*r)["notes"].empty() && (*r)["notes"][0].is_string())
        why += ": " + (*r)["notes"][0].get<std::string>();
    return why;
}

void read_summary(const json &run, const RowSpec &s, json &row) {
    const json *r = find_result(run, s.experiment);
    if (const std::string why = result_missing(r, s.experiment); !why.empty()) {
        row["missing"] = why;
        return;
    }
    const json &summary = r->value("summary", json::object());
    if (!summary.contains(s.key) || !positive(summary[s.key])) {
        row["missing"] = std::string("not measured: ") + s.experiment + " recorded no " + s.key;
        return;
    }
    row["value"] = summary[s.key].get<double>();
}

// "'copy' at array size 256 MiB", "'exchange ...' at cluster size 8 blocks".
std::string quoted_point(const json &series, const json &point) {
    const json x = series.value("x", json::object());
    const std::string unit = x.value("unit", "");
    return "'" + series.value("name", "") + "' at " + x.value("name", "x") + " " + x_text(point.value("x", 0.0), unit) +
           (unit.empty() || unit == "bytes" ? "" : " " + unit);
}

void read_best_series(const json &run, const RowSpec &s, json &row) {
    double best = 0;
    for (const json &r : run["results"]) {
        if (!r.contains("series") || !r["series"].is_array()) continue;
        for (const json &series : r["series"]) {
            const json q = series.value("quantity", json::object());
            if (!q.is_object() || q.value("name", "") != s.key || !series.contains("points")) continue;
            for (const json &p : series["points"])
                if (p.contains("bandwidth_gbs") && positive(p["bandwidth_gbs"]) && p["bandwidth_gbs"].get<double>() > best) {
                    best = p["bandwidth_gbs"].get<double>();
                    row["experiment"] = r["experiment"]["name"];
                    row["figure"] = "bandwidth_gbs";
                    row["from"] = r["experiment"]["name"].get<std::string>() + " " + quoted_point(series, p);
                }
        }
    }
    if (best > 0)
        row["value"] = best;
    else
        row["missing"] = std::string("not measured: no series of the run declares ") + s.key + " with a bandwidth";
}

void read_best_value(const json &run, const RowSpec &s, json &row) {
    const json *r = find_result(run, s.experiment);
    if (const std::string why = result_missing(r, s.experiment); !why.empty()) {
        row["missing"] = why;
        return;
    }
    double best = 0;
    for (const json &series : r->value("series", json::array()))
        for (const json &p : series.value("points", json::array())) {
            const json v = p.value("values", json::object());
            if (v.is_object() && v.contains(s.key) && positive(v[s.key]) && v[s.key].get<double>() > best) {
                best = v[s.key].get<double>();
                row["from"] = std::string(s.experiment) + " values." + s.key + " of " + quoted_point(series, p);
            }
        }
    if (best > 0)
        row["value"] = best;
    else
        row["missing"] = std::string("not measured: ") + s.experiment + " has no point with " + s.key;
}

// The device block's theoretical figure for the row, and what it is.
void add_theoretical(const json &device, Peak peak, json &row) {
    if (peak == Peak::Dram && positive(device.value("theoretical_bandwidth_gbs", json()))) {
        row["theoretical"] = device["theoretical_bandwidth_gbs"].get<double>();
        row["theoretical_from"] = "device.theoretical_bandwidth_gbs";
    }
    const json link = device.value("host_link", json::object());
    if (peak == Peak::HostLink && link.is_object() && positive(link.value("theoretical_gbs", json()))) {
        row["theoretical"] = link["theoretical_gbs"].get<double>();
        row["theoretical_from"] = "device.host_link.theoretical_gbs";
    }
    if (row.contains("theoretical") && row.contains("value"))
        row["of_theoretical"] = row["value"].get<double>() / row["theoretical"].get<double>();
}

void add_crowd(const json &crowd, json &row) {
    const std::string id = row.value("experiment", "") + "/" + row.value("figure", "");
    const json figures = crowd.value("figures", json::object());
    if (figures.is_object() && figures.contains(id) && positive(figures[id].value("median", json())))
        row["crowd"] = figures[id];
    else
        row["crowd_missing"] = "the server has no median of " + id + " for this model";
}

json row_of(const json &run, const RowSpec &s, const json &crowd) {
    json row = {{"section", s.section}, {"label", s.label}, {"unit", s.unit}};
    if (*s.experiment) {
        row["experiment"] = s.experiment;
        row["figure"] = s.kind == Kind::BestValue ? std::string("values.") + s.key : std::string(s.key);
        row["from"] = std::string(s.experiment) + " " + row["figure"].get<std::string>();
    }
    if (s.kind == Kind::Summary) read_summary(run, s, row);
    if (s.kind == Kind::BestSeries) read_best_series(run, s, row);
    if (s.kind == Kind::BestValue) read_best_value(run, s, row);
    add_theoretical(run.value("device", json::object()), s.peak, row);
    if (crowd.is_object() && s.kind == Kind::Summary) add_crowd(crowd, row);
    if (crowd.is_object() && s.kind != Kind::Summary) row["crowd_missing"] = "not one of the figures the server compares";
    return row;
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

}  // namespace

// A row whose figure cannot be what its label says, with why: the best
// series the run declares L2 below the DRAM read (each such series reads a
// working set partly from DRAM; none is bound by L2 alone).
void add_caveats(json &rows) {
    const json *dram = nullptr, *l2 = nullptr;
    for (const json &row : rows) {
        if (row["section"] == "DRAM" && row["label"] == "read (alone)") dram = &row;
        if (row["section"] == "caches" && row.value("figure", "") == "bandwidth_gbs") l2 = &row;
    }
    if (!dram || !l2 || !dram->contains("value") || !l2->contains("value")) return;
    const double dram_gbs = (*dram)["value"].get<double>(), l2_gbs = (*l2)["value"].get<double>();
    if (l2_gbs >= dram_gbs) return;
    for (json &row : rows)
        if (&row == l2)
            row["caveat"] = "below the DRAM read (" + fixed(dram_gbs, 0) + " GB/s): the series that declare L2 read working sets "
                            "partly from DRAM, and no experiment of the suite is bound by L2 alone, so this is not L2's limit";
}

json glance(const json &run, const json &crowd) {
    json out = {{"device", run.value("device", json::object())}, {"rows", json::array()}};
    for (const RowSpec &s : rows()) out["rows"].push_back(row_of(run, s, crowd));
    add_caveats(out["rows"]);
    if (crowd.is_object()) out["crowd"] = {{"server", crowd.value("server", "")}, {"model", crowd.value("model", "")},
                                           {"problems", crowd.value("problems", json::array())}};
    return out;
}

std::vector<std::string> glance_experiments() {
    std::vector<std::string> out;
    for (const RowSpec &s : rows())
        if (s.kind == Kind::Summary && std::find(out.begin(), out.end(), s.experiment) == out.end()) out.push_back(s.experiment);
    return out;
}

json crowd_from_answers(const std::string &server, const std::string &model,
                        const std::vector<std::pair<std::string, json>> &answers) {
    json crowd = {{"server", server}, {"model", model}, {"figures", json::object()}, {"problems", json::array()}};
    for (const auto &[experiment, answer] : answers) {
        if (!answer.is_object() || !answer.contains("models") || !answer["models"].is_array()) {
            crowd["problems"].push_back(experiment + ": " + (answer.is_string() ? answer.get<std::string>() : "no answer"));
            continue;
        }
        const json *chosen = nullptr;
        for (const json &m : answer["models"])
            if (m.is_object() && lower(m.value("name", "")) == lower(model) &&
                (!chosen || m.value("uploads", 0) > chosen->value("uploads", 0)))
                chosen = &m;
        if (!chosen || !(*chosen).contains("figures") || !(*chosen)["figures"].is_object()) continue;
        for (auto it = (*chosen)["figures"].begin(); it != (*chosen)["figures"].end(); ++it)
            if (it.key().find('/') == std::string::npos && it.value().is_object() && positive(it.value().value("median", json())))
                crowd["figures"][experiment + "/" + it.key()] = {{"median", it.value()["median"]},
                                                                  {"n", it.value().value("n", 0)},
                                                                  {"key", chosen->value("key", "")}};
    }
    return crowd;
}

namespace {

// "NVIDIA H100 80GB HBM3: theoretical DRAM 3352.3 GB/s (...), host link ..."
std::string device_line(const json &g) {
    const json &d = g["device"];
    std::string line = d.value("name", "?");
    if (positive(d.value("theoretical_bandwidth_gbs", json())))
        line += "; theoretical DRAM " + fixed(d["theoretical_bandwidth_gbs"].get<double>(), 1) + " GB/s (" +
                std::to_string(d.value("memory_bus_width_bits", 0)) + "-bit bus at " + fixed(d.value("memory_clock_mhz", 0.0), 0) +
                " MHz, two transfers a clock)";
    const json link = d.value("host_link", json::object());
    if (link.is_object() && positive(link.value("theoretical_gbs", json()))) {
        line += "; host link " + link.value("type", std::string("?"));
        if (link.value("generation", 0) > 0) line += " gen " + std::to_string(link.value("generation", 0)) + " x" + std::to_string(link.value("width", 0));
        line += ", " + fixed(link["theoretical_gbs"].get<double>(), 1) + " GB/s a direction";
    }
    return line;
}

std::string value_cell(const json &row, const char *field) {
    if (!row.contains(field)) return "";
    return readable(row[field].get<double>()) + " " + row["unit"].get<std::string>();
}

std::string of_theoretical_cell(const json &row) {
    return row.contains("of_theoretical") ? fixed(100.0 * row["of_theoretical"].get<double>(), 1) + " %" : "";
}

std::string crowd_cell(const json &row) {
    if (!row.contains("crowd")) return "-";
    return readable(row["crowd"]["median"].get<double>()) + " " + row["unit"].get<std::string>() + " (n " +
           std::to_string(row["crowd"].value("n", 0)) + ")";
}

// What a row's footnote says: why its figure is missing, or its caveat.
std::string footnote(const json &row) {
    if (row.contains("missing")) return row["missing"];
    return row.value("caveat", "");
}

// The footnotes, each once, numbered in order of appearance.
std::vector<std::string> missing_reasons(const json &g) {
    std::vector<std::string> out;
    for (const json &row : g["rows"])
        if (const std::string f = footnote(row); !f.empty() && std::find(out.begin(), out.end(), f) == out.end())
            out.push_back(f);
    return out;
}

std::size_t reason_number(const std::vector<std::string> &reasons, const json &row) {
    return std::find(reasons.begin(), reasons.end(), footnote(row)) - reasons.begin() + 1;
}

constexpr const char *kAbout =
    "Each figure is the run's own, named by the experiment and figure it comes from; theoretical: the device block's "
    "(DRAM: bus width x memory clock x 2; host link: PCIe generation x width, one direction).";
constexpr const char *kCrowdAbout =
    "crowd: the median of the model's accepted uploads on the server, for the figures it compares (\"-\": none)";

}  // namespace

void write_glance_text(std::ostream &os, const json &g, bool markdown) {
    const bool crowd = g.contains("crowd");
    os << (markdown ? "\n## " : "\n== ") << "This GPU at a glance\n" << (markdown ? "\n" : "  ") << device_line(g) << "\n";
    std::vector<std::string> headers = {"", "figure", "measured", "theoretical", "of theoretical"};
    if (crowd) headers.push_back("crowd median");
    headers.push_back("from");
    Table t(headers, false);
    const std::vector<std::string> reasons = missing_reasons(g);
    std::string section;
    for (const json &row : g["rows"]) {
        const std::string sec = row["section"];
        std::string measured =
            row.contains("value") ? value_cell(row, "value") : "not measured [" + std::to_string(reason_number(reasons, row)) + "]";
        if (row.contains("caveat")) measured += " [" + std::to_string(reason_number(reasons, row)) + "]";
        std::vector<std::string> cells = {sec == section ? "" : sec, row["label"], measured, value_cell(row, "theoretical"),
                                          of_theoretical_cell(row)};
        if (crowd) cells.push_back(crowd_cell(row));
        cells.push_back(row.value("from", ""));
        t.add(cells);
        section = sec;
    }
    if (markdown) {
        os << "\n";
        t.print_markdown(os);
    } else {
        t.print(os, "    ");
    }
    const std::string pad = markdown ? "\n" : "  ";
    for (std::size_t i = 0; i < reasons.size(); ++i) os << pad << "[" << i + 1 << "] " << reasons[i] << "\n";
    os << pad << kAbout << "\n";
    if (crowd) {
        os << pad << kCrowdAbout << "; model " << g["crowd"].value("model", "") << " from " << g["crowd"].value("server", "") << "\n";
        for (const json &p : g["crowd"].value("problems", json::array())) os << pad << "crowd: " << p.get<std::string>() << "\n";
    }
}

std::string glance_html(const json &g) {
    const bool crowd = g.contains("crowd");
    std::ostringstream h;
    h << "<section id=\"glance\">\n<h2>This GPU at a glance</h2>\n<p>" << escape_html(device_line(g)) << "</p>\n"
      << "<table class=\"glance\">\n<tr><th>figure</th><th>measured</th><th>theoretical</th><th>of theoretical</th>"
      << (crowd ? "<th>crowd median</th>" : "") << "<th class=\"from\">from</th></tr>\n";
    const std::vector<std::string> reasons = missing_reasons(g);
    std::string section;
    for (const json &row : g["rows"]) {
        if (row["section"] != section) {
            section = row["section"];
            h << "<tr class=\"section\"><th colspan=\"" << (crowd ? 6 : 5) << "\">" << escape_html(section) << "</th></tr>\n";
        }
        h << "<tr><td>" << escape_html(row["label"].get<std::string>()) << "</td>";
        if (row.contains("value"))
            h << "<td class=\"measured\">" << escape_html(value_cell(row, "value"))
              << (row.contains("caveat") ? "<sup>" + std::to_string(reason_number(reasons, row)) + "</sup>" : "") << "</td>";
        else
            h << "<td class=\"missing\">not measured<sup>" << reason_number(reasons, row) << "</sup></td>";
        h << "<td>" << escape_html(value_cell(row, "theoretical")) << "</td><td>" << escape_html(of_theoretical_cell(row)) << "</td>";
        if (crowd) h << "<td>" << escape_html(crowd_cell(row)) << "</td>";
        h << "<td class=\"from\">" << escape_html(row.value("from", "")) << "</td></tr>\n";
    }
    h << "</table>\n";
    if (!reasons.empty()) {
        h << "<ol class=\"glance-notes\">\n";
        for (const std::string &r : reasons) h << "<li>" << escape_html(r) << "</li>\n";
        h << "</ol>\n";
    }
    h << "<p class=\"notes\">" << escape_html(kAbout);
    if (crowd)
        h << "<br>" << escape_html(std::string(kCrowdAbout) + "; model " + g["crowd"].value("model", "") + " from " +
                                   g["crowd"].value("server", ""));
    h << "</p>\n";
    if (crowd)
        for (const json &p : g["crowd"].value("problems", json::array()))
            h << "<p class=\"flagged\">crowd: " << escape_html(p.get<std::string>()) << "</p>\n";
    h << "</section>\n";
    return h.str();
}

}  // namespace gmreport
