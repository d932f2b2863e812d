#include "run_document.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <set>

#include "gmlab.h"

namespace gmcli {

using nlohmann::json;

json make_run_document(const json &device, const json &settings, const std::vector<json> &results,
                       const std::string &command) {
    json list = json::array();
    bool quick = false, current = true;
    for (json r : results) {
        r.erase("device");  // the run's one device block stands for all of them
        quick = quick || r.value("quick", false);
        // 1.3 promises every series' quantity; results of an older version keep the run at 1.2.
        current = current && r.value("schema", "") == "gmlab.result/1.3";
        list.push_back(std::move(r));
    }
    std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char created[32];
    std::strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm);
    json run = {{"schema", current ? "gmlab.run/1.3" : "gmlab.run/1.2"},
                {"library", {{"name", "gmlab"}, {"version", gm_version()}, {"abi", gm_abi_version()}}},
                {"command", command},
                {"created_at", created},
                {"device", device},
                {"settings", settings},
                {"results", list}};
    if (quick) run["quick"] = true;  // a smoke check (gmlab run --quick): not figures to compare
    return run;
}

void round_to_significant_digits(nlohmann::json &value, int digits) {
    if (value.is_structured()) {
        for (auto &v : value) round_to_significant_digits(v, digits);
        return;
    }
    if (!value.is_number_float()) return;
    const double v = value.get<double>();
    if (!std::isfinite(v) || (std::fabs(v) < 9007199254740992.0 && v == std::floor(v))) return;
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    value = std::strtod(buf, nullptr);
}

namespace {

// A cell quoted where it holds a comma, quote or line break; a text that a
// spreadsheet would take for a formula (=, +, -, @, tab or CR first) quoted
// with a ' in front, so that it stays text (a series or experiment name is
// whatever the document says).
std::string csv_cell(const std::string &s) {
    const bool formula = !s.empty() && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' || s[0] == '\r');
    if (!formula && s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string out = formula ? "\"'" : "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string num(const json &v) {
    if (!v.is_number()) return "";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", v.get<double>());
    return buf;
}

}  // namespace

std::string results_csv(const std::vector<json> &results) {
    // Prediction columns: the union of every point's predictions, in name order.
    // Then the hardware counters (schema 1.2) the same way, as "counters_<name>".
    std::set<std::string> predicted, counters;
    for (const json &r : results)
        for (const json &s : r["series"])
            for (const json &p : s["points"]) {
                if (p.contains("predicted"))
                    for (auto it = p["predicted"].begin(); it != p["predicted"].end(); ++it) predicted.insert(it.key());
                if (p.contains("counters") && p["counters"].is_object())
                    for (auto it = p["counters"].begin(); it != p["counters"].end(); ++it) counters.insert(it.key());
            }
    std::string out = "experiment,series,variant,x_name,x,bytes,median_ms,min_ms,max_ms,mean_ms,stddev_ms,n,"
                      "bandwidth_gbs,fraction_of_theoretical,fraction_of_memcpy";
    for (const auto &k : predicted) out += "," + csv_cell("predicted_" + k);
    for (const auto &k : counters) out += "," + csv_cell("counters_" + k);
    out += "\n";
    for (const json &r : results) {
        for (const json &s : r["series"]) {
            for (const json &p : s["points"]) {
                const json &t = p["time_ms"];
                out += csv_cell(r["experiment"]["name"].get<std::string>()) + "," +
                       csv_cell(s["name"].get<std::string>()) + "," + csv_cell(s.value("variant", "")) + "," +
                       csv_cell(s["x"]["name"].get<std::string>()) + "," + num(p["x"]) + "," + num(p.value("bytes", json())) +
                       "," + num(t["median"]) + "," + num(t["min"]) + "," + num(t["max"]) + "," + num(t["mean"]) + "," +
                       num(t["stddev"]) + "," + num(t["n"]) + "," + num(p.value("bandwidth_gbs", json())) + "," +
                       num(p.value("fraction_of_theoretical", json())) + "," + num(p.value("fraction_of_memcpy", json()));
                for (const auto &k : predicted)
                    out += "," + (p.contains("predicted") ? num(p["predicted"].value(k, json())) : std::string());
                for (const auto &k : counters)
                    out += "," + (p.contains("counters") && p["counters"].is_object() ? num(p["counters"].value(k, json())) : std::string());
                out += "\n";
            }
        }
    }
    return out;
}

}  // namespace gmcli
