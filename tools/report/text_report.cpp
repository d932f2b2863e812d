#include "text_report.hpp"

#include <cmath>
#include <set>

#include "chart_specs.hpp"
#include "document.hpp"
#include "table.hpp"

namespace gmreport {

using gmcli::Table;
using gmcli::bytes_text;
using gmcli::fixed;
using gmcli::readable;
using nlohmann::json;

namespace {

void emit(std::ostream &os, const Table &t, bool markdown) {
    if (markdown) {
        os << "\n";
        t.print_markdown(os);
    } else {
        t.print(os, "    ");
    }
}

void heading(std::ostream &os, const std::string &text, int level, bool markdown) {
    if (markdown)
        os << "\n" << std::string(level, '#') << " " << text << "\n";
    else
        os << "\n" << (level <= 2 ? "== " : "  ") << text << "\n";
}

std::string x_text(const json &s, const json &p) {
    const double x = p["x"].get<double>();
    if (s["x"].value("unit", "") == "bytes") return bytes_text(x);
    return fixed(x, x == std::floor(x) ? 0 : 3);
}

}  // namespace

void write_result_text(std::ostream &os, const json &r, bool markdown) {
    const std::string name = r["experiment"]["name"];
    heading(os, name + " — " + r["experiment"].value("summary", ""), 2, markdown);
    os << (markdown ? "\n" : "  ") << chart_spec(name).explanation << "\n";
    if (is_quick(r)) os << (markdown ? "\n**" : "  ") << kQuickNote << (markdown ? "**\n" : "\n");
    if (!r.value("applicable", true)) os << (markdown ? "\n**" : "  ") << "not applicable on this machine (see the notes)" << (markdown ? "**\n" : "\n");
    for (const json &s : r["series"]) {
        heading(os, s["name"].get<std::string>(), 3, markdown);
        std::set<std::string> predicted, values;
        for (const json &p : s["points"]) {
            if (p.contains("predicted"))
                for (auto it = p["predicted"].begin(); it != p["predicted"].end(); ++it) predicted.insert(it.key());
            if (p.contains("values"))
                for (auto it = p["values"].begin(); it != p["values"].end(); ++it) values.insert(it.key());
        }
        const bool bandwidth = !s["points"].empty() && s["points"][0].contains("bandwidth_gbs");
        std::vector<std::string> headers = {s["x"].value("name", "x"), "median ms", "stddev %", "n"};
        if (bandwidth) headers.insert(headers.end(), {"GB/s", "GB/s min..max", "of peak %", "of memcpy %"});
        for (const auto &k : values) headers.push_back(k);
        for (const auto &k : predicted) headers.push_back("pred. " + k);
        Table t(headers);
        for (const json &p : s["points"]) {
            const json &tm = p["time_ms"];
            const double median = tm["median"].get<double>();
            std::vector<std::string> row = {x_text(s, p), fixed(median, 4),
                                            fixed(median > 0 ? 100.0 * tm["stddev"].get<double>() / median : NAN, 1),
                                            std::to_string(tm["n"].get<long long>())};
            if (bandwidth) {
                row.push_back(fixed(p["bandwidth_gbs"].get<double>(), 1));
                row.push_back(fixed(p["bandwidth_gbs_min"].get<double>(), 0) + ".." + fixed(p["bandwidth_gbs_max"].get<double>(), 0));
                row.push_back(fixed(100.0 * p.value("fraction_of_theoretical", NAN), 1));
                row.push_back(fixed(100.0 * p.value("fraction_of_memcpy", NAN), 1));
            }
            for (const auto &k : values) row.push_back(readable(p.contains("values") ? p["values"].value(k, NAN) : NAN));
            for (const auto &k : predicted) row.push_back(readable(p["predicted"].value(k, NAN)));
            t.add(row);
        }
        emit(os, t, markdown);
        if (s.contains("attributes") && s["attributes"].contains("checks")) {
            Table checks({"check", "capability"});
            for (auto it = s["attributes"]["checks"].begin(); it != s["attributes"]["checks"].end(); ++it)
                checks.add({it.key(), it.value().get<std::string>()});
            emit(os, checks, markdown);
        }
    }
    if (r.contains("summary") && !r["summary"].empty()) {
        heading(os, "key figures", 3, markdown);
        Table t({"name", "value"});
        for (auto it = r["summary"].begin(); it != r["summary"].end(); ++it) t.add({it.key(), readable(it.value().get<double>())});
        emit(os, t, markdown);
    }
    const json rows = published_rows(r);
    if (!rows.empty()) {
        heading(os, "published figures: " + r["published"].value("source", ""), 3, markdown);
        Table t({"variant", "ours", "published", "ours / base", "published / base"});
        for (const json &row : rows)
            t.add({row["name"], readable(row["ours"].get<double>()), readable(row["published"].get<double>()),
                   row["ours_ratio"].is_number() ? fixed(row["ours_ratio"].get<double>(), 2) : "-",
                   row["published_ratio"].is_number() ? fixed(row["published_ratio"].get<double>(), 2) : "-"});
        emit(os, t, markdown);
    }
    if (r.contains("verification")) {
        const json &v = r["verification"];
        os << (markdown ? "\n" : "\n  ") << "verified: " << (v.value("passed", false) ? "yes" : "no") << ", "
           << v.value("elements_checked", 0ull) << " elements (" << v.value("method", "") << ")\n";
    }
    if (r.contains("memory")) os << (markdown ? "\n" : "  ") << "device memory allocated: " << bytes_text(r["memory"].value("device_bytes_allocated", 0.0)) << "\n";
    if (r.contains("notes"))
        for (const json &n : r["notes"]) os << (markdown ? "\n- " : "  - ") << n.get<std::string>() << "\n";
}

void write_run_text(std::ostream &os, const json &run, bool markdown) {
    const json &d = run["device"];
    os << (markdown ? "# " : "") << "gmlab report: " << d.value("name", "?") << " (compute capability " << d.value("compute_capability", "?")
       << ", " << fixed(d.value("theoretical_bandwidth_gbs", 0.0), 1) << " GB/s theoretical, L2 " << bytes_text(d.value("l2_cache_bytes", 0.0))
       << ")\n";
    os << (markdown ? "\n" : "") << "driver " << d.value("driver_version", "?") << ", runtime " << d.value("runtime_version", "?") << "; gmlab "
       << run.value("library", json::object()).value("version", "?") << "; " << run.value("created_at", "") << "\n";
    if (!run.value("command", "").empty()) os << (markdown ? "\n`" : "command: ") << run["command"].get<std::string>() << (markdown ? "`\n" : "\n");
    if (is_quick(run)) os << (markdown ? "\n**" : "") << kQuickNote << (markdown ? "**\n" : "\n");
    if (run.contains("settings") && run["settings"].is_object()) {
        std::string line;
        for (auto it = run["settings"].begin(); it != run["settings"].end(); ++it) line += (line.empty() ? "" : ", ") + it.key() + " " + it.value().dump();
        os << (markdown ? "\n" : "") << "settings: " << line << "\n";
    }
    for (const json &r : run["results"]) write_result_text(os, r, markdown);
}

}  // namespace gmreport
