#include "text_report.hpp"

#include <cmath>
#include <map>
#include <set>

#include "chart_specs.hpp"
#include "consistency.hpp"
#include "counter_columns.hpp"
#include "document.hpp"
#include "glance.hpp"
#include "table.hpp"

namespace gmreport {

using gmreport::Table;
using gmreport::bytes_text;
using gmreport::fixed;
using gmreport::readable;
using gmreport::x_text;
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

// What the "of memcpy" column divides a point's bandwidth by: the
// experiment's own cudaMemcpy at the same x where it times one
// (Chart::memcpy_series), else the context's reference copy.
class MemcpyBase {
public:
    explicit MemcpyBase(const json &r) {
        const std::string name = chart_spec(r["experiment"]["name"].get<std::string>()).memcpy_series;
        for (const json &s : r["series"])
            if (!name.empty() && s.value("name", "") == name && !s["points"].empty()) series_ = &s;
        // Its points by x, looked up (the first with a bandwidth, as a search would find).
        if (series_)
            for (const json &m : (*series_)["points"])
                if (m.contains("x") && m["x"].is_number() && m.value("bandwidth_gbs", 0.0) > 0)
                    by_x_.emplace(m["x"].get<double>(), m["bandwidth_gbs"].get<double>());
        if (r.contains("reference") && r["reference"].is_object()) reference_ = r["reference"].value("memcpy_d2d_gbs", NAN);
    }
    std::string header() const { return series_ ? "of same-size memcpy %" : "of ref. memcpy %"; }
    double percent(const json &p) const {
        if (!series_) return 100.0 * p.value("fraction_of_memcpy", NAN);
        if (!p.contains("x") || !p["x"].is_number()) return NAN;
        const auto it = by_x_.find(p["x"].get<double>());
        return it == by_x_.end() ? NAN : 100.0 * p.value("bandwidth_gbs", NAN) / it->second;
    }
    std::string note() const {
        if (series_)
            return header() + ": bandwidth / that of this run's " + (*series_)["name"].get<std::string>() +
                   " series at the same " + (*series_)["x"].value("name", "x") + " (so " + (*series_)["name"].get<std::string>() +
                   " itself is 100 %).";
        return header() + ": bandwidth / reference.memcpy_d2d_gbs" +
               (std::isfinite(reference_) ? " (" + fixed(reference_, 1) + " GB/s)" : std::string()) +
               ", a device-to-device cudaMemcpy timed once per context at a size of its own, not at this experiment's.";
    }

private:
    const json *series_ = nullptr;
    std::map<double, double> by_x_;
    double reference_ = NAN;
};

// The bandwidth column's header: what the series declares it measures (1.3),
// so that an L2 or link figure is not read as DRAM's; plain "GB/s" for an
// older document.
std::string bandwidth_header(const json &s) {
    static const std::map<std::string, std::string> kHeaders = {{"dram_bandwidth", "DRAM GB/s"},
                                                                {"l2_bandwidth", "L2 GB/s"},
                                                                {"l1_shared_bandwidth", "L1/shared GB/s"},
                                                                {"link_bandwidth", "link GB/s"}};
    const std::string q = s.contains("quantity") && s["quantity"].is_object() ? s["quantity"].value("name", "") : "";
    const auto it = kHeaders.find(q);
    return it == kHeaders.end() ? "GB/s" : it->second;
}

bool any_point_has(const json &s, const char *field) {
    for (const json &p : s["points"])
        if (p.contains(field)) return true;
    return false;
}

}  // namespace

void write_result_text(std::ostream &os, const json &r, bool markdown) {
    const std::string name = r["experiment"]["name"];
    heading(os, name + " — " + r["experiment"].value("summary", ""), 2, markdown);
    os << (markdown ? "\n" : "  ") << chart_spec(name).explanation << "\n";
    if (is_quick(r)) os << (markdown ? "\n**" : "  ") << kQuickNote << (markdown ? "**\n" : "\n");
    if (!r.value("applicable", true)) os << (markdown ? "\n**" : "  ") << "not applicable on this machine (see the notes)" << (markdown ? "**\n" : "\n");
    const MemcpyBase memcpy_base(r);
    bool memcpy_noted = false;
    for (const json &s : r["series"]) {
        heading(os, s["name"].get<std::string>(), 3, markdown);
        std::set<std::string> predicted, values, counters;
        for (const json &p : s["points"]) {
            if (p.contains("counters") && p["counters"].is_object())
                for (auto it = p["counters"].begin(); it != p["counters"].end(); ++it)
                    if (shown_counter(it.key())) counters.insert(it.key());
            if (p.contains("predicted"))
                for (auto it = p["predicted"].begin(); it != p["predicted"].end(); ++it) predicted.insert(it.key());
            if (p.contains("values"))
                for (auto it = p["values"].begin(); it != p["values"].end(); ++it) values.insert(it.key());
        }
        const bool bandwidth = !s["points"].empty() && s["points"][0].contains("bandwidth_gbs");
        // The fractions only where the series' points carry them: DRAM (and
        // a link's of peak) since 1.3, every bandwidth before.
        const bool of_peak = bandwidth && any_point_has(s, "fraction_of_theoretical");
        const bool of_memcpy = bandwidth && any_point_has(s, "fraction_of_memcpy");
        std::vector<std::string> headers = {s["x"].value("name", "x"), "median ms", "stddev %", "n"};
        if (bandwidth) headers.insert(headers.end(), {bandwidth_header(s), "GB/s min..max"});
        if (of_peak) headers.push_back("of peak %");
        if (of_memcpy) headers.push_back(memcpy_base.header());
        for (const auto &k : values) headers.push_back(k);
        for (const auto &k : predicted) headers.push_back("pred. " + k);
        for (const auto &k : counters) headers.push_back(counter_label(k));
        Table t(headers);
        for (const json &p : s["points"]) {
            const json &tm = p["time_ms"];
            const double median = tm["median"].get<double>();
            std::vector<std::string> row = {x_text(p["x"].get<double>(), s["x"].value("unit", "")), fixed(median, 4),
                                            fixed(median > 0 ? 100.0 * tm["stddev"].get<double>() / median : NAN, 1),
                                            std::to_string(tm["n"].get<long long>())};
            if (bandwidth) {
                row.push_back(fixed(p["bandwidth_gbs"].get<double>(), 1));
                row.push_back(fixed(p["bandwidth_gbs_min"].get<double>(), 0) + ".." + fixed(p["bandwidth_gbs_max"].get<double>(), 0));
            }
            if (of_peak) row.push_back(fixed(100.0 * p.value("fraction_of_theoretical", NAN), 1));
            if (of_memcpy) row.push_back(fixed(memcpy_base.percent(p), 1));
            for (const auto &k : values) row.push_back(readable(p.contains("values") ? p["values"].value(k, NAN) : NAN));
            for (const auto &k : predicted) row.push_back(readable(p["predicted"].value(k, NAN)));
            for (const auto &k : counters) {
                // A figure outside its range (an older document's) is shown as missing, not as a measurement.
                const bool has = p.contains("counters") && p["counters"].contains(k) && p["counters"][k].is_number() &&
                                 counter_in_range(k, p["counters"][k].get<double>());
                row.push_back(readable(has ? p["counters"][k].get<double>() : NAN));
            }
            t.add(row);
        }
        emit(os, t, markdown);
        if (of_memcpy && !memcpy_noted) {
            os << (markdown ? "\n" : "    ") << memcpy_base.note() << "\n";
            memcpy_noted = true;
        }
        if (s.contains("agreement") && s["agreement"].is_object() && !s["agreement"].empty()) {
            std::string line;
            for (auto it = s["agreement"].begin(); it != s["agreement"].end(); ++it)
                line += (line.empty() ? "" : ", ") + it.key() + " = pred. " + it.value().value("prediction", "?") + " at " +
                        std::to_string(it.value().value("agreeing", 0)) + "/" + std::to_string(it.value().value("points", 0)) +
                        " points";
            os << (markdown ? "\n" : "    ") << "counters vs model: " << line << "\n";
        }
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
    if (r.contains("counters") && r["counters"].is_object() && !r["counters"].value("available", false) &&
        r["counters"].value("mode", "") != "off")
        os << (markdown ? "\n" : "  ") << "hardware counters: not available: " << r["counters"].value("reason", "") << "\n";
    if (r.contains("counters") && r["counters"].contains("errors"))
        for (const json &e : r["counters"]["errors"]) os << (markdown ? "\n" : "  ") << "counting failed: " << e.get<std::string>() << "\n";
    if (r.contains("verification")) {
        const json &v = r["verification"];
        os << (markdown ? "\n" : "\n  ") << "verified: " << (v.value("passed", false) ? "yes" : "no") << ", "
           << v.value("elements_checked", 0ull) << " elements (" << v.value("method", "") << ")\n";
    }
    if (const std::string g = gpu_state_line(r); !g.empty()) os << (markdown ? "\n" : "  ") << g << "\n";
    if (r.contains("gpu_state") && r["gpu_state"].contains("warnings"))
        for (const json &w : r["gpu_state"]["warnings"]) os << (markdown ? "\n**" : "  ") << "GPU STATE: " << w.get<std::string>() << (markdown ? "**\n" : "\n");
    if (r.contains("memory")) os << (markdown ? "\n" : "  ") << "device memory allocated: " << bytes_text(r["memory"].value("device_bytes_allocated", 0.0)) << "\n";
    if (r.contains("notes"))
        for (const json &n : r["notes"]) os << (markdown ? "\n- " : "  - ") << n.get<std::string>() << "\n";
}

void write_run_text(std::ostream &os, const json &run, bool markdown, const json &crowd) {
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
    write_glance_text(os, glance(run, crowd), markdown);
    for (const json &r : run["results"]) write_result_text(os, r, markdown);
    // The run's consistency section (computed for a document that has none):
    // left out only for a lone result with nothing to compare.
    const json block = consistency_of(run);
    if (!block["groups"].empty() || run["results"].size() > 1) write_consistency_text(os, block, markdown);
    write_gpu_state_summary(os, run, markdown);
}

namespace {

// "1980 MHz" or "1980 -> 1755 MHz" from the readings before and after.
std::string before_after(const json &g, const char *key, const char *unit, int decimals) {
    const json &b = g.value("before", json::object()), &a = g.value("after", json::object());
    const bool hb = b.contains(key) && b[key].is_number(), ha = a.contains(key) && a[key].is_number();
    if (!hb && !ha) return "";
    const std::string sb = hb ? fixed(b[key].get<double>(), decimals) : "?";
    const std::string sa = ha ? fixed(a[key].get<double>(), decimals) : "?";
    return (sb == sa ? sb : sb + " -> " + sa) + unit;
}

}  // namespace

std::string gpu_state_line(const json &r) {
    if (!r.contains("gpu_state") || !r["gpu_state"].is_object()) return "";
    const json &g = r["gpu_state"];
    std::string line;
    auto add = [&line](const std::string &label, const std::string &value) {
        if (!value.empty()) line += (line.empty() ? "" : ", ") + label + value;
    };
    add("SM ", before_after(g, "sm_clock_mhz", " MHz", 0));
    add("memory ", before_after(g, "memory_clock_mhz", " MHz", 0));
    add("", before_after(g, "power_w", " W", 0));
    add("", before_after(g, "temperature_c", " C", 0));
    add("P-state ", before_after(g, "pstate", "", 0));
    if (g.contains("power_violation_ms") || g.contains("thermal_violation_ms"))
        add("held down by power / thermal limits ", fixed(g.value("power_violation_ms", 0.0), 1) + " / " +
                                                        fixed(g.value("thermal_violation_ms", 0.0), 1) + " ms");
    return "gpu state (before -> after it measured): " + (line.empty() ? std::string("nothing read") : line);
}

void write_gpu_state_summary(std::ostream &os, const json &run, bool markdown) {
    int with_state = 0;
    std::string flagged;
    for (const json &r : run["results"]) {
        if (!r.contains("gpu_state") || !r["gpu_state"].is_object()) continue;
        ++with_state;
        const json &w = r["gpu_state"].value("warnings", json::array());
        if (w.empty()) continue;
        std::string why;
        for (const json &x : w) why += (why.empty() ? "" : "; ") + x.get<std::string>();
        flagged += (markdown ? "\n- " : "\n  - ") + r["experiment"]["name"].get<std::string>() + ": " + why;
    }
    if (with_state == 0) return;
    os << (markdown ? "\n## " : "\n== ") << "the state the GPU was in\n" << (markdown ? "\n" : "  ");
    if (flagged.empty())
        os << "In none of the " << with_state << " results did a clock fall or a clock event reason other than idle "
           << "show while it measured.\n";
    else
        os << "Measured while a clock fell or the clocks were held down (gpu_state.warnings):" << flagged << "\n";
}

}  // namespace gmreport
