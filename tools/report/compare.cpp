#include "compare.hpp"

#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <unordered_map>
#include <vector>

#include "chart_specs.hpp"
#include "counter_columns.hpp"
#include "document.hpp"
#include "interrupt.hpp"
#include "table.hpp"

namespace gmreport {

using nlohmann::json;

namespace {

// Half the min-max range of the repetitions, relative to the median.
double relative_spread(const json &p) {
    const json &t = p["time_ms"];
    const double med = t["median"].get<double>();
    return med > 0 ? (t["max"].get<double>() - t["min"].get<double>()) / (2 * med) : 0.0;
}

// Counters are counts of the same launch on both machines, not timings: they
// are flagged where they differ by more than this share (DRAM bytes vary a
// little from run to run; sector and wavefront counts do not).
constexpr double kCounterTolerance = 0.02;

// Keys that are equal where the JSON values are (1 and 1.0 as numbers are):
// a number by its value, anything else by its text.
std::string value_key(const json &v) {
    if (v.is_number()) {
        double d = v.get<double>();
        if (d == 0) d = 0;  // -0 and 0 are equal
        std::string k(sizeof d + 1, 'n');
        std::memcpy(&k[1], &d, sizeof d);
        return k;
    }
    return "t" + v.dump();
}
std::string name_key(const json &series) { return series.contains("name") ? value_key(series["name"]) : std::string("-"); }
std::string x_key(const json &point) { return point.contains("x") ? value_key(point["x"]) : std::string("-"); }

}  // namespace

json compare_runs(const json &a, const json &b) {
    json rows = json::array();
    int unmatched = 0;
    std::map<std::string, const json *> b_results;
    for (const json &r : b["results"]) b_results[r["experiment"]["name"].get<std::string>()] = &r;
    for (const json &ra : a["results"]) {
        const std::string exp = ra["experiment"]["name"];
        auto it = b_results.find(exp);
        if (it == b_results.end()) {
            ++unmatched;
            continue;
        }
        const json &rb = *it->second;
        // B's series by name and each one's points by x, looked up rather
        // than searched: a document's series of thousands of points would
        // otherwise cost their product (the last of equal keys wins, as the
        // search did).
        std::unordered_map<std::string, const json *> b_series;
        for (const json &s : rb["series"]) b_series[name_key(s)] = &s;
        for (const json &sa : ra["series"]) {
            const auto found = b_series.find(name_key(sa));
            if (found == b_series.end()) {
                ++unmatched;
                continue;
            }
            const json *sb = found->second;
            const std::string field = sa["y"].value("field", "bandwidth_gbs");
            std::vector<std::pair<const json *, const json *>> pairs;
            std::unordered_map<std::string, const json *> b_points;
            for (const json &p : (*sb)["points"]) b_points[x_key(p)] = &p;
            for (const json &pa : sa["points"]) {
                interruption_point();
                const auto at = b_points.find(x_key(pa));
                if (at == b_points.end()) {
                    ++unmatched;
                    continue;
                }
                const json *pb = at->second;
                pairs.emplace_back(&pa, pb);
                const double va = point_field(pa, field), vb = point_field(*pb, field);
                const double ratio = va != 0 ? vb / va : NAN;
                const bool flagged = std::isfinite(ratio) && std::fabs(ratio - 1.0) > relative_spread(pa) + relative_spread(*pb);
                rows.push_back({{"experiment", exp}, {"series", sa["name"]}, {"x", pa["x"]}, {"x_name", sa["x"].value("name", "x")},
                                {"x_unit", sa["x"].value("unit", "")}, {"field", field}, {"a", va}, {"b", vb}, {"ratio", ratio},
                                {"flagged", flagged}});
            }
            // Then the counters both points have, one field after the other.
            std::set<std::string> counters;
            for (const auto &[pa, pb] : pairs)
                if (pa->contains("counters") && (*pa)["counters"].is_object())
                    for (auto it = (*pa)["counters"].begin(); it != (*pa)["counters"].end(); ++it)
                        if (shown_counter(it.key()) && pb->contains("counters") && (*pb)["counters"].contains(it.key()))
                            counters.insert(it.key());
            for (const std::string &name : counters) {
                const std::string cfield = "counters." + name;
                for (const auto &[pa, pb] : pairs) {
                    interruption_point();
                    const double va = point_field(*pa, cfield), vb = point_field(*pb, cfield);
                    if (!std::isfinite(va) || !std::isfinite(vb)) continue;
                    const double ratio = va != 0 ? vb / va : (vb == 0 ? 1.0 : NAN);
                    const bool flagged = !std::isfinite(ratio) || std::fabs(ratio - 1.0) > kCounterTolerance;
                    rows.push_back({{"experiment", exp}, {"series", sa["name"]}, {"x", (*pa)["x"]},
                                    {"x_name", sa["x"].value("name", "x")}, {"x_unit", sa["x"].value("unit", "")},
                                    {"field", cfield}, {"a", va}, {"b", vb},
                                    {"ratio", ratio}, {"flagged", flagged}, {"counter", true}});
                }
            }
        }
    }
    return {{"rows", rows}, {"unmatched", unmatched}};
}

void write_compare_text(std::ostream &os, const json &a, const json &b, const json &cmp, bool markdown) {
    auto who = [](const json &r) {
        return r["device"].value("name", "?") + " (" + r.value("created_at", "") + ", driver " + r["device"].value("driver_version", "?") + ")";
    };
    os << (markdown ? "# " : "") << "gmlab compare\n" << (markdown ? "\n" : "") << "A: " << who(a) << "\n" << (markdown ? "\n" : "") << "B: " << who(b)
       << "\n";
    os << (markdown ? "\n" : "") << "ratio = B / A of each series' headline value; * where the difference is larger than the spread of "
          "the repetitions (half the min-max range of A plus that of B). Hardware counters (counters.*), where both runs have them: "
          "* where they differ by more than 2%.\n";
    if (is_quick(a) || is_quick(b))
        os << (markdown ? "\n**" : "") << (is_quick(a) ? "A" : "B") << (is_quick(a) && is_quick(b) ? " and B are" : " is")
           << " a quick run. " << kQuickNote << (markdown ? "**\n" : "\n");
    std::string current;
    gmreport::Table *table = nullptr;
    std::vector<gmreport::Table> tables;
    std::vector<std::string> titles;
    for (const json &row : cmp["rows"]) {
        const std::string key = row["experiment"].get<std::string>() + " / " + row["series"].get<std::string>() + " (" +
                                row["field"].get<std::string>() + ")";
        if (key != current) {
            current = key;
            titles.push_back(key);
            tables.emplace_back(std::vector<std::string>{row["x_name"].get<std::string>(), "A", "B", "B / A", ""});
            table = &tables.back();
        }
        table->add({gmreport::x_text(row["x"].get<double>(), row["x_unit"].get<std::string>()), gmreport::readable(row["a"].get<double>()),
                    gmreport::readable(row["b"].get<double>()),
                    row["ratio"].is_number() ? gmreport::fixed(row["ratio"].get<double>(), 3) : "-", row["flagged"].get<bool>() ? "*" : ""});
    }
    for (std::size_t i = 0; i < tables.size(); ++i) {
        os << "\n" << (markdown ? "### " : "== ") << titles[i] << "\n";
        if (markdown) {
            os << "\n";
            tables[i].print_markdown(os);
        } else {
            tables[i].print(os, "    ");
        }
    }
    if (cmp["unmatched"].get<int>() > 0)
        os << "\n" << cmp["unmatched"].get<int>() << " experiments, series or points of A have no counterpart in B and are left out.\n";
}

}  // namespace gmreport
