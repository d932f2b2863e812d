#include "consistency.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>
#include <sstream>
#include <vector>

#include "document.hpp"
#include "dram_ordering.hpp"
#include "html_report.hpp"
#include "library_descriptions.hpp"
#include "table.hpp"
#include "vocabulary/consistency.hpp"

namespace gmreport {

using nlohmann::json;

namespace {

using gmvocab::ConsistencyRule;
enum class Role { Agree, Shown };

// One figure of a quantity, as an experiment declared it
// (Experiment::consistency, read from its description).
struct Source {
    std::string experiment;  // "device": the run's device block
    std::string key;         // the summary key (or device field, or "<series>@<x>")
    std::string high_key;    // Bracket: the first size past the capacity; "" for a figure that is a point
    Role role;
    std::string what;        // what the figure is, in a few words
    std::string reason;      // Shown: why it measures something else
};

// Every declared figure of `quantity`, in the registry's order.
std::vector<Source> declared_sources(const std::string &quantity) {
    std::vector<Source> out;
    for (const auto &[experiment, d] : library_descriptions()) {
        if (!d.contains("consistency") || !d["consistency"].is_array()) continue;
        for (const json &j : d["consistency"]) {
            const gmvocab::ConsistencyFigure f = gmvocab::consistency_from_json(j);
            if (f.quantity != quantity) continue;
            out.push_back({f.from_device ? "device" : experiment, f.key, f.high_key, f.agrees ? Role::Agree : Role::Shown,
                           f.what, f.reason});
        }
    }
    return out;
}

// "<series name>@<x>": the bandwidth of that series' point at x.
double series_point(const json &result, const std::string &key) {
    const std::size_t at = key.rfind('@');
    const std::string name = key.substr(0, at);
    const double x = std::strtod(key.c_str() + at + 1, nullptr);
    if (!result.contains("series") || !result["series"].is_array()) return NAN;
    for (const json &s : result["series"]) {
        if (!s.is_object() || s.value("name", "") != name || !s.contains("points") || !s["points"].is_array()) continue;
        for (const json &p : s["points"])
            if (p.is_object() && p.value("x", NAN) == x && p.contains("bandwidth_gbs") && p["bandwidth_gbs"].is_number())
                return p["bandwidth_gbs"].get<double>();
    }
    return NAN;
}

// A finite positive number at `key` of the result's summary (or the device
// block), or of a series' point where the key is "<series name>@<x>".
double figure(const json &run, const std::string &experiment, const std::string &key) {
    if (key.empty()) return NAN;
    if (key.find('@') != std::string::npos) {
        const json *r = experiment == "device" ? nullptr : find_result(run, experiment);
        const double v = r ? series_point(*r, key) : NAN;
        return std::isfinite(v) && v > 0 ? v : NAN;
    }
    const json *holder = nullptr;
    if (experiment == "device") {
        if (run.contains("device") && run["device"].is_object()) holder = &run["device"];
    } else if (const json *r = find_result(run, experiment); r && r->contains("summary") && (*r)["summary"].is_object()) {
        holder = &(*r)["summary"];
    }
    if (!holder || !holder->contains(key) || !(*holder)[key].is_number()) return NAN;
    const double v = (*holder)[key].get<double>();
    return std::isfinite(v) && v > 0 ? v : NAN;
}

double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string percent(double fraction) {
    std::ostringstream o;
    o.setf(std::ios::fixed);
    o.precision(1);
    o << (fraction >= 0 ? "+" : "") << 100.0 * fraction << " %";
    return o.str();
}

std::string name_of(const json &f) { return f["experiment"].get<std::string>() + " " + f["key"].get<std::string>(); }

// Spread: the median of the figures that should agree, how far apart they
// are, and which of them are off where the spread is beyond the tolerance.
void judge_spread(json &g, double tol) {
    std::vector<double> agree;
    for (const json &f : g["figures"])
        if (f["role"] == "agree") agree.push_back(f["value"].get<double>());
    const double ref = median_of(agree);
    const auto [lo, hi] = std::minmax_element(agree.begin(), agree.end());
    const double spread = (*hi - *lo) / ref;
    const bool flagged = spread > tol;
    std::string off;
    for (json &f : g["figures"]) {
        const double dev = f["value"].get<double>() / ref - 1;
        f["deviation"] = dev;
        const bool agrees = f["role"] == "agree";
        f["outside"] = agrees ? flagged && std::fabs(dev) > tol / 2 : std::fabs(dev) > tol;
        if (agrees && f["outside"].get<bool>()) off += (off.empty() ? "" : ", ") + name_of(f) + " " + percent(dev);
    }
    g["reference"] = ref;
    g["spread"] = spread;
    g["flagged"] = flagged;
    if (flagged) g["why"] = "spread " + percent(spread).substr(1) + " beyond " + percent(tol).substr(1) + " of the median: " + off;
}

// Bracket: each figure's interval [value x (1 - tol), the first size past it]
// (a point: value x (1 +- tol); no size past it: unbounded), and their overlap.
void judge_bracket(json &g, double tol) {
    struct Interval {
        double lo, hi;
    };
    auto interval = [tol](const json &f) {
        const double v = f["value"].get<double>();
        if (!f.contains("high_key")) return Interval{v * (1 - tol), v * (1 + tol)};
        return Interval{v * (1 - tol), f.contains("high") ? f["high"].get<double>() : std::numeric_limits<double>::infinity()};
    };
    double lo = 0, hi = std::numeric_limits<double>::infinity();
    for (const json &f : g["figures"])
        if (f["role"] == "agree") {
            lo = std::max(lo, interval(f).lo);
            hi = std::min(hi, interval(f).hi);
        }
    const bool flagged = lo > hi;
    std::string off;
    for (json &f : g["figures"]) {
        const Interval mine = interval(f);
        bool outside = false;
        if (f["role"] == "agree") {
            for (const json &o : g["figures"])
                if (o["role"] == "agree" && (interval(o).hi < mine.lo || interval(o).lo > mine.hi)) outside = true;
            if (outside) off += (off.empty() ? "" : ", ") + name_of(f);
        } else {
            outside = !flagged && (f["value"].get<double>() < lo || f["value"].get<double>() > hi);
        }
        f["outside"] = outside;
    }
    g["flagged"] = flagged;
    if (!flagged) {
        g["overlap_from"] = lo;
        if (std::isfinite(hi)) g["overlap_to"] = hi;
    } else {
        g["why"] = "the brackets do not overlap (each widened by " + percent(tol).substr(1) + "): " + off;
    }
}

json group_of(const json &run, const gmvocab::SharedQuantity &q) {
    json figures = json::array();
    std::set<std::string> agreeing;  // the experiments with a figure expected to agree
    for (const Source &s : declared_sources(q.name)) {
        const double v = figure(run, s.experiment, s.key);
        if (!std::isfinite(v)) continue;
        json f = {{"experiment", s.experiment}, {"key", s.key}, {"value", v}, {"role", s.role == Role::Agree ? "agree" : "shown"},
                  {"what", s.what}};
        if (!s.high_key.empty()) {
            f["high_key"] = s.high_key;
            const double h = figure(run, s.experiment, s.high_key);
            if (std::isfinite(h)) f["high"] = h;
        }
        if (s.role == Role::Shown) f["reason"] = s.reason;
        if (s.role == Role::Agree) agreeing.insert(s.experiment);
        figures.push_back(std::move(f));
    }
    if (agreeing.size() < 2) return nullptr;  // one experiment alone is nothing to compare
    json g = {{"quantity", q.name}, {"label", q.label}, {"unit", q.unit}, {"rule", q.rule == ConsistencyRule::Spread ? "spread" : "bracket"},
              {"tolerance", q.tolerance}, {"figures", figures}};
    if (q.rule == ConsistencyRule::Spread)
        judge_spread(g, q.tolerance);
    else
        judge_bracket(g, q.tolerance);
    return g;
}

std::string value_text(double v, const std::string &unit) {
    return unit == "bytes" ? gmreport::bytes_text(v) : gmreport::readable(v);
}

// Ordering, not flagged: every operation within the tolerance of the bar, or
// below it with the reason its result states.
std::string ordering_verdict(const json &g) {
    int explained = 0;
    for (const json &f : g["figures"]) explained += f.value("explained", false);
    std::string v = "consistent: no operation more than " + percent(g["tolerance"].get<double>()).substr(1) +
                    " below the best of copy, triad and cudaMemcpy (" + g.value("reference_key", "") + ", " +
                    readable(g["reference"].get<double>()) + " GB/s)";
    if (explained > 0) v += " without a stated reason; " + std::to_string(explained) + " below it with one";
    return v;
}

std::string verdict(const json &g) {
    const std::string limit = percent(g["tolerance"].get<double>()).substr(1);
    if (g["flagged"].get<bool>()) return "FLAGGED: " + g.value("why", "");
    if (g["rule"] == "ordering") return ordering_verdict(g);
    if (g["rule"] == "spread") return "consistent: spread " + percent(g["spread"].get<double>()).substr(1) + " (limit " + limit + ")";
    const std::string unit = g["unit"];
    return "consistent: the brackets overlap from " + value_text(g["overlap_from"].get<double>(), unit) +
           (g.contains("overlap_to") ? " to " + value_text(g["overlap_to"].get<double>(), unit) : std::string(" up"));
}

// "208000" or, for a bracket, "203 KiB .. 256 KiB".
constexpr const char *kComputedNote =
    "(computed by this report: the run's own consistency block, written by an older gmlab, has no such group)";

std::string figure_text(const json &f, const std::string &unit) {
    std::string t = value_text(f["value"].get<double>(), unit);
    if (f.contains("high_key")) t += " .. " + (f.contains("high") ? value_text(f["high"].get<double>(), unit) : std::string("?"));
    return t;
}

// The header of the deviation column, "" where the rule has none.
std::string deviation_header(const json &g) {
    if (g["rule"] == "spread") return "from median";
    if (g["rule"] == "ordering") return "from best copy";
    return "";
}

// The mark beside a figure: off, differs (a shown one), or below with its reason.
std::string mark_of(const json &f) {
    if (!f["outside"].get<bool>()) return "";
    if (f.contains("explained")) return f["explained"].get<bool>() ? "explained" : "OFF";
    return f["role"] == "shown" ? "differs" : "OFF";
}

// What the figure is, and for a shown one or one below with a stated reason, why.
std::string what_of(const json &f) {
    std::string w = f["what"].get<std::string>();
    if (f.contains("direction")) w += " (" + f["direction"].get<std::string>() + ")";
    if (f["role"] == "shown") return "(shown) " + w + ": " + f["reason"].get<std::string>();
    if (f.value("explained", false)) w += "; stated reason: " + f["reason"].get<std::string>();
    return w;
}

}  // namespace

json consistency(const json &run) {
    json groups = json::array();
    int flagged = 0;
    for (const gmvocab::SharedQuantity &q : gmvocab::kSharedQuantities) {
        json g = group_of(run, q);
        if (g.is_null()) continue;
        flagged += g["flagged"].get<bool>();
        groups.push_back(std::move(g));
    }
    if (json g = dram_ordering(run); !g.is_null()) {
        flagged += g["flagged"].get<bool>();
        groups.push_back(std::move(g));
    }
    return {{"groups", groups}, {"flagged", flagged}};
}

json consistency_of(const json &run) {
    const json computed = consistency(run);
    if (!run.contains("consistency") || !run["consistency"].is_object() || !run["consistency"].contains("groups") ||
        !run["consistency"]["groups"].is_array())
        return computed;
    // The run's own verdicts as gmlab run wrote them; a quantity this report
    // knows and the run's gmlab did not is computed and marked as such.
    json block = run["consistency"];
    std::set<std::string> known;
    for (const json &g : block["groups"]) known.insert(g.value("quantity", ""));
    int flagged = block.value("flagged", 0);
    for (const json &g : computed["groups"]) {
        if (known.count(g["quantity"].get<std::string>())) continue;
        json added = g;
        added["computed_by_report"] = true;
        flagged += added["flagged"].get<bool>();
        block["groups"].push_back(std::move(added));
    }
    block["flagged"] = flagged;
    return block;
}

void write_consistency_text(std::ostream &os, const json &block, bool markdown) {
    const json &groups = block["groups"];
    os << (markdown ? "\n## " : "\n== ") << "consistency: one quantity, several experiments\n";
    if (groups.empty()) {
        os << (markdown ? "\n" : "  ") << "No quantity was measured by two experiments of this run.\n";
        return;
    }
    os << (markdown ? "\n" : "  ") << block.value("flagged", 0) << " of " << groups.size()
       << " quantities flagged. Spread: (largest - smallest) / median of the figures expected to agree; a shown figure "
          "measures something else, for the reason given.\n";
    for (const json &g : groups) {
        const std::string unit = g["unit"];
        os << (markdown ? "\n### " : "\n  ") << g["label"].get<std::string>() << " (" << unit << "): " << verdict(g) << "\n";
        if (g.value("computed_by_report", false)) os << (markdown ? "\n" : "    ") << kComputedNote << "\n";
        const std::string deviation = deviation_header(g);
        gmreport::Table t({"experiment", "figure", unit, deviation, "", "what"}, false);
        for (const json &f : g["figures"])
            t.add({f["experiment"], f["key"], figure_text(f, unit), deviation.empty() ? "" : percent(f["deviation"].get<double>()),
                   mark_of(f), what_of(f)});
        if (markdown) {
            os << "\n";
            t.print_markdown(os);
        } else {
            t.print(os, "    ");
        }
    }
}

std::string consistency_html(const json &block) {
    std::ostringstream h;
    const json &groups = block["groups"];
    h << "<section id=\"consistency\">\n<h2>Consistency: one quantity, several experiments</h2>\n";
    if (groups.empty()) {
        h << "<p>No quantity was measured by two experiments of this run.</p>\n</section>\n";
        return h.str();
    }
    h << "<p>" << block.value("flagged", 0) << " of " << groups.size()
      << " quantities flagged. Spread: (largest - smallest) / median of the figures expected to agree; a capacity is "
         "bracketed by the last size that fitted and the first that did not. A shown figure measures something else, "
         "for the reason given, and flags nothing.</p>\n";
    for (const json &g : groups) {
        const std::string unit = g["unit"];
        const bool flagged = g["flagged"].get<bool>();
        const std::string deviation = deviation_header(g);
        h << "<h3>" << escape_html(g["label"].get<std::string>()) << " (" << escape_html(unit) << ")</h3>\n<p"
          << (flagged ? " class=\"flagged\"" : "") << ">" << escape_html(verdict(g)) << "</p>\n";
        if (g.value("computed_by_report", false)) h << "<p class=\"counters\">" << escape_html(kComputedNote) << "</p>\n";
        h << "<table>\n<tr><th>experiment</th><th>figure</th><th>" << escape_html(unit) << "</th>"
          << (deviation.empty() ? "" : "<th>" + escape_html(deviation) + "</th>") << "<th>what</th></tr>\n";
        for (const json &f : g["figures"]) {
            const bool shown = f["role"] == "shown";
            const bool off = mark_of(f) == "OFF";
            h << "<tr" << (off ? " class=\"flagged\"" : "") << "><td>" << escape_html(f["experiment"].get<std::string>())
              << "</td><td>" << escape_html(f["key"].get<std::string>()) << "</td><td>" << escape_html(figure_text(f, unit)) << "</td>";
            if (!deviation.empty()) h << "<td>" << escape_html(percent(f["deviation"].get<double>())) << "</td>";
            if (shown)
                h << "<td><em>shown</em>: " << escape_html(f["what"].get<std::string>()) << " &mdash; "
                  << escape_html(f["reason"].get<std::string>()) << "</td></tr>\n";
            else
                h << "<td>" << escape_html(what_of(f)) << "</td></tr>\n";
        }
        h << "</table>\n";
    }
    h << "</section>\n";
    return h.str();
}

}  // namespace gmreport
