#include "dram_ordering.hpp"

#include <cmath>
#include <set>
#include <sstream>
#include <string>

#include "document.hpp"

namespace gmreport {

using nlohmann::json;

namespace {

struct Operation {
    const char *experiment, *key, *what;
    const char *direction;  // "reads and writes": sets the bar; else one direction, held to it
};

constexpr const char *kBoth = "reads and writes";

const Operation kOperations[] = {
    {"read_write", "read_gbs", "reads alone: the summing read kernel", "reads only"},
    {"read_write", "write_gbs", "writes alone: the store kernel", "writes only"},
    {"read_write", "memset_gbs", "cudaMemsetAsync", "writes only"},
    {"stream", "copy_gbs", "STREAM copy kernel", kBoth},
    {"stream", "triad_gbs", "STREAM triad kernel", kBoth},
    {"stream", "cudaMemcpy_gbs", "cudaMemcpy device to device", kBoth},
};

// A finite positive number of the result's summary, else NaN.
double summary_figure(const json *result, const char *key) {
    if (!result || !result->contains("summary") || !(*result)["summary"].is_object()) return NAN;
    const json &s = (*result)["summary"];
    if (!s.contains(key) || !s[key].is_number()) return NAN;
    const double v = s[key].get<double>();
    return std::isfinite(v) && v > 0 ? v : NAN;
}

// The first note of the result that states why it is slower than the bar.
std::string stated_reason(const json *result) {
    if (!result || !result->contains("notes") || !(*result)["notes"].is_array()) return "";
    const std::string prefix = kOrderingNotePrefix;
    for (const json &n : (*result)["notes"])
        if (n.is_string() && n.get<std::string>().compare(0, prefix.size(), prefix) == 0) return n.get<std::string>();
    return "";
}

std::string percent_below(double deviation) {
    std::ostringstream o;
    o.setf(std::ios::fixed);
    o.precision(1);
    o << -100.0 * deviation << " %";
    return o.str();
}

// Each figure against the bar: how far from it, below by more than the
// tolerance, and where so whether its result says why.
json judged(json figures, double bar, const std::string &bar_name) {
    std::string off;
    for (json &f : figures) {
        const double dev = f["value"].get<double>() / bar - 1;
        f["deviation"] = dev;
        f["outside"] = dev < -kOrderingTolerance;
        if (!f["outside"].get<bool>()) continue;
        const std::string reason = f.value("stated_reason", "");
        f["explained"] = !reason.empty();
        if (!reason.empty()) {
            f["reason"] = reason;
        } else {
            off += (off.empty() ? "" : ", ") + f["experiment"].get<std::string>() + " " + f["key"].get<std::string>() + " " +
                   percent_below(dev) + " below";
        }
    }
    for (json &f : figures) f.erase("stated_reason");
    json g = {{"quantity", "dram_ordering"}, {"label", "DRAM bandwidth ordering"}, {"unit", "GB/s"}, {"rule", "ordering"},
              {"tolerance", kOrderingTolerance}, {"reference", bar}, {"reference_key", bar_name}, {"figures", figures},
              {"flagged", !off.empty()}};
    if (!off.empty())
        g["why"] = off + " the best of copy, triad and cudaMemcpy (" + bar_name + "), beyond " +
                   percent_below(-kOrderingTolerance) + ", with no note starting \"" + kOrderingNotePrefix + "\" in its result";
    return g;
}

}  // namespace

json dram_ordering(const json &run) {
    json figures = json::array();
    std::set<std::string> experiments;
    double bar = 0;
    std::string bar_name;
    for (const Operation &op : kOperations) {
        const json *result = find_result(run, op.experiment);
        const double v = summary_figure(result, op.key);
        if (!std::isfinite(v)) continue;
        experiments.insert(op.experiment);
        const bool both = std::string(op.direction) == kBoth;
        if (both && v > bar) {
            bar = v;
            bar_name = std::string(op.experiment) + " " + op.key;
        }
        figures.push_back({{"experiment", op.experiment}, {"key", op.key}, {"value", v}, {"role", "agree"}, {"what", op.what},
                           {"direction", op.direction}, {"stated_reason", stated_reason(result)}});
    }
    if (experiments.size() < 2 || bar <= 0) return nullptr;  // nothing to order, or no copy to hold the others to
    return judged(std::move(figures), bar, bar_name);
}

}  // namespace gmreport
