#include "check_judge.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "check_limits.hpp"

namespace gmcli::check {

using nlohmann::json;

namespace {

// How far `value` falls short of `reference`, as a fraction of it: positive
// when worse (lower for bandwidths, higher for latencies).
double shortfall(double value, double reference, bool higher_is_better) {
    if (!(reference > 0)) return 0;
    return higher_is_better ? (reference - value) / reference : (value - reference) / reference;
}

// A quantile document's entry for a figure, or null.
const json *distribution_of(const json &doc, const FigureSpec &f) {
    if (!doc.is_object() || f.crowd_experiment.empty() || !doc.contains("figures") || !doc["figures"].is_object()) return nullptr;
    const json &figs = doc["figures"];  // a reference into doc: the pointer returned stays valid
    const auto it = figs.find(f.crowd_experiment + "/" + f.crowd_figure);
    if (it == figs.end() || !it->is_object() || !it->contains("quantiles")) return nullptr;
    return &*it;
}

double quantile(const json &quantiles, double q) {
    for (const auto &[k, v] : quantiles.items())
        if (std::fabs(std::stod(k) - q) < 1e-9) return v.get<double>();
    return NAN;
}

// The node rule's tolerance for a figure, and where it came from: a
// distribution's relative spread (at least kMinTolerance), else the default.
std::pair<double, std::string> tolerance_of(const FigureSpec &f, const json &baseline, const json &crowd) {
    for (const auto &[doc, source] : {std::pair<const json *, const char *>{&baseline, "baseline"}, {&crowd, "crowd"}}) {
        const json *d = distribution_of(*doc, f);
        if (!d || d->value("n", 0) < static_cast<int>(kMinDistribution)) continue;
        const double q50 = quantile((*d)["quantiles"], 0.5);
        const double tail = quantile((*d)["quantiles"], f.higher_is_better ? kLowQuantile : 1 - kLowQuantile);
        if (!(q50 > 0) || !std::isfinite(tail)) continue;
        return {std::max(kMinTolerance, std::fabs(q50 - tail) / q50), std::string(source) + " spread (q50 - q05) / q50"};
    }
    return {kDefaultTolerance, "default tolerance (no distribution of this figure)"};
}

// The node rule over one figure's values (GPU index -> value). `resolution`:
// the smallest spread of the timed launches behind the figure on the node's
// GPUs (0: unknown); a difference within twice that is the measurement's own.
json node_judgement(const FigureSpec &f, double value, const std::vector<double> &all, std::size_t self, double tolerance,
                    double resolution = 0) {
    json j = {{"gpus", all.size()}};
    if (2 * resolution > tolerance) {
        tolerance = 2 * resolution;
        j["limited_by"] = "the spread of the timed launches";
    }
    if (all.size() < 2) {
        j["judged"] = false;
        j["why"] = "one GPU: nothing to compare it with";
        return j;
    }
    if (all.size() == 2) {
        const double other = all[1 - self];
        const double s = shortfall(value, other, f.higher_is_better);
        j["judged"] = true;
        j["reference"] = other;
        j["shortfall"] = s;
        j["limit"] = tolerance;
        j["flag"] = s > tolerance;
        j["why"] = "two GPUs: compared with the other one (the median absolute deviation needs three)";
        return j;
    }
    const double med = median_of(all);
    const double robust_sd = 1.4826 * mad_of(all);
    const double s = shortfall(value, med, f.higher_is_better);
    const double limit = std::max(med > 0 ? kMadZ * robust_sd / med : 0.0, tolerance);
    j["judged"] = true;
    j["reference"] = med;
    j["mad"] = mad_of(all);
    j["shortfall"] = s;
    j["limit"] = limit;
    j["flag"] = s > limit;
    j["why"] = "against the node's median; limit: the larger of 3.5 robust standard deviations and the tolerance";
    return j;
}

json distribution_judgement(const FigureSpec &f, double value, const json *d, const std::string &source) {
    if (!d) return {{"judged", false}, {"why", "no " + source + " distribution of this figure"}};
    const int n = d->value("n", 0);
    json j = {{"source", source}, {"n", n}, {"percentile", percentile_of(value, (*d)["quantiles"])}};
    const double tail = quantile((*d)["quantiles"], f.higher_is_better ? kLowQuantile : 1 - kLowQuantile);
    j["limit"] = tail;
    j["judged"] = n >= static_cast<int>(kMinDistribution) && std::isfinite(tail);
    if (!j["judged"].get<bool>()) j["why"] = std::to_string(n) + " uploads; " + std::to_string(kMinDistribution) + " needed to judge";
    j["flag"] = j["judged"].get<bool>() && (f.higher_is_better ? value < tail : value > tail);
    return j;
}

json theoretical_judgement(const FigureSpec &f, double value, const json &gpu, const json *d) {
    if (f.name == "l2_hit_latency_ns") return ceiling_judgement(value, gpu);
    if (f.theoretical.empty()) return {{"judged", false}, {"why", "no theoretical figure"}};
    const double t = gpu.value("theoretical", json::object()).value(f.theoretical, 0.0);
    if (!(t > 0)) return {{"judged", false}, {"why", "the theoretical " + f.theoretical + " is not known"}};
    json j = {{"theoretical", t}, {"fraction", value / t}, {"judged", false}};
    if (d && d->contains("fraction_quantiles") && d->value("n", 0) >= static_cast<int>(kMinDistribution)) {
        const double low = quantile((*d)["fraction_quantiles"], kLowQuantile);
        j["judged"] = std::isfinite(low);
        j["limit"] = low;
        j["flag"] = std::isfinite(low) && value / t < low;
    } else {
        j["why"] = "reported only: no distribution of the fraction to judge it by";
    }
    apply_floor(f, j);
    return j;
}

void add_reason(json &gpu_verdict, const std::string &level, const std::string &text) {
    gpu_verdict["reasons"].push_back({{"level", level}, {"text", text}});
    if (verdict_rank(level) > verdict_rank(gpu_verdict["verdict"].get<std::string>())) gpu_verdict["verdict"] = level;
}

// How a flagged figure fell, each way that flagged it, in words.
std::string flag_text(const FigureSpec &f, const json &fj, const std::string &dist_source) {
    std::string how;
    const auto add = [&how](const std::string &part) { how += (how.empty() ? "" : "; ") + part; };
    const json &n = fj["node"], &d = fj["distribution"], &r = fj["reference"], &t = fj["theoretical"];
    if (n.value("flag", false))
        add(pct(n["shortfall"].get<double>()) + " short of the node (" + num(n["reference"].get<double>()) + " " + f.unit +
            ", limit " + pct(n["limit"].get<double>()) + ")");
    if (d.value("flag", false)) add("percentile " + num(d["percentile"].get<double>()) + " of the " + dist_source);
    if (r.value("flag", false)) add(describe_reference(r, f));
    if (t.value("flag", false)) {
        if (t.contains("ceiling_ns")) add(describe_ceiling(t));
        else if (t.value("below_floor", false)) add(describe_floor(t));
        else add(pct(t["fraction"].get<double>()) + " of theoretical");
    }
    return how;
}

// Why no way judged a figure: each way's own reason, joined.
std::string not_judged_text(const json &fj) {
    std::string why;
    for (const char *way : {"node", "distribution", "reference", "theoretical"})
        if (fj[way].contains("why")) why += (why.empty() ? "" : "; ") + fj[way]["why"].get<std::string>();
    return why;
}

// ECC, memory repair, NVLink links and throttling during the check, from the health blocks.
void judge_health(const json &gpu, json &v) {
    const std::string who = "GPU " + std::to_string(gpu.value("ordinal", -1));
    const json &h = gpu.value("health", json::object());
    if (h.value("source", "") != "nvml") {
        v["notes"].push_back("no NVML health figures: " + h.value("reason", std::string("not read")));
        return;
    }
    const json &ecc = h.value("ecc", json::object());
    if (ecc.value("volatile_uncorrected", 0) > 0)
        add_reason(v, "unusable", who + ": " + std::to_string(ecc["volatile_uncorrected"].get<long long>()) +
                                      " uncorrectable ECC errors since the driver loaded");
    const json &rows = h.value("remapped_rows", json::object());
    if (rows.value("failure", false)) add_reason(v, "unusable", who + ": row remapping failed (the GPU needs service)");
    if (rows.value("pending", false)) add_reason(v, "degraded", who + ": a row remap is pending (reset the GPU to apply it)");
    const json &pages = h.value("retired_pages", json::object());
    if (pages.value("pending", false)) add_reason(v, "degraded", who + ": a page retirement is pending (reset the GPU)");
    const json &nv = h.value("nvlink", json::object());
    for (const json &l : nv.value("links", json::array()))
        if (!l.value("active", true) && nv.value("active_links", 0) > 0)
            add_reason(v, "degraded", who + ": NVLink link " + std::to_string(l.value("link", -1)) + " is down (" +
                                          std::to_string(nv.value("active_links", 0)) + " active)");
    static const char *const kBad[] = {"hw_slowdown", "sw_thermal_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown"};
    for (const char *when : {"state_during", "state_after"}) {
        const json &s = gpu.value(when, json::object());
        for (const json &r : s.value("clock_event_reasons", json::array()))
            if (std::find(std::begin(kBad), std::end(kBad), r.get<std::string>()) != std::end(kBad))
                add_reason(v, "degraded", who + ": clocks held down by " + r.get<std::string>() + " during the check");
    }
}

json judge_gpu(const json &gpu, std::size_t self, const json &all_gpus, const json &crowd_doc, const json &baseline_doc,
               const json &reference) {
    // Distributions of another model do not judge this GPU (a node may hold several models).
    const std::string model = gpu.value("name", "");
    const json crowd = crowd_doc.is_object() && model_mismatch(crowd_doc, model).empty() ? crowd_doc : json();
    const json baseline = baseline_doc.is_object() && model_mismatch(baseline_doc, model).empty() ? baseline_doc : json();
    json v = {{"ordinal", gpu.value("ordinal", -1)}, {"name", gpu.value("name", "")}, {"uuid", gpu.value("uuid", "")},
              {"verdict", "healthy"}, {"reasons", json::array()}, {"notes", json::array()}, {"figures", json::array()}};
    const std::string who = "GPU " + std::to_string(v["ordinal"].get<int>());
    if (gpu.value("mig", false)) {
        add_reason(v, "not_checked", who + ": MIG mode is enabled; a whole-GPU check needs it off (MIG instances are not checked)");
        return v;
    }
    for (const json &e : gpu.value("errors", json::array())) add_reason(v, "unusable", who + ": " + e.get<std::string>());
    judge_health(gpu, v);
    const json &figs = gpu.value("figures", json::object());
    bool any_judged = false;
    for (const FigureSpec &f : figure_specs()) {
        if (!figs.contains(f.name)) continue;
        const double value = figs[f.name].get<double>();
        std::vector<double> all;
        std::size_t me = 0;
        double resolution = 0;  // the smallest spread: a clean GPU's, not one a load made noisy
        for (std::size_t i = 0; i < all_gpus.size(); ++i) {
            const json &o = all_gpus[i].value("figures", json::object());
            if (!o.contains(f.name) || all_gpus[i].value("mig", false)) continue;
            if (i == self) me = all.size();
            all.push_back(o[f.name].get<double>());
            const json spread = all_gpus[i].value("spread", json::object());
            if (spread.contains(f.name) && spread[f.name].is_number()) {
                const double sp = spread[f.name].get<double>();
                resolution = resolution > 0 ? std::min(resolution, sp) : sp;
            }
        }
        const auto [tol, tol_source] = tolerance_of(f, baseline, crowd);
        const json *dist = distribution_of(baseline, f);
        const std::string dist_source = dist ? "baseline" : "crowd";
        if (!dist) dist = distribution_of(crowd, f);
        json fj = {{"figure", f.name}, {"value", value}, {"unit", f.unit}, {"tolerance", tol}, {"tolerance_source", tol_source}};
        if (f.burst) fj["burst"] = true;
        fj["node"] = node_judgement(f, value, all, me, tol, resolution);
        fj["distribution"] = distribution_judgement(f, value, dist, dist_source);
        // The embedded reference judges what no baseline or crowd distribution judges.
        fj["reference"] = fj["distribution"].value("judged", false)
                              ? json{{"judged", false}, {"why", "the " + dist_source + " distribution judges it"}}
                              : reference_judgement(f, value, reference_of_model(reference, model), model);
        fj["theoretical"] = theoretical_judgement(f, value, gpu, dist);
        bool judged = false, flagged = false;
        for (const char *way : {"node", "distribution", "reference", "theoretical"}) {
            judged |= fj[way].value("judged", false);
            flagged |= fj[way].value("flag", false);
        }
        fj["judged"] = judged;
        fj["flag"] = flagged;
        if (!judged) fj["not_judged"] = not_judged_text(fj);
        any_judged |= judged;
        if (flagged) add_reason(v, "degraded", who + ": " + f.name + " " + num(value) + " " + f.unit + ": " + flag_text(f, fj, dist_source));
        v["figures"].push_back(std::move(fj));
    }
    // A GPU no judgement covered is never called healthy.
    if (!any_judged && v["verdict"] == "healthy")
        add_reason(v, "unjudged", who + ": unjudged: none of its figures could be judged (no other GPU, no distribution or reference of " +
                                      (model.empty() ? std::string("its model") : model) + ", no theoretical figure known)");
    return v;
}

// A slow link is named on both its GPUs, unless one of them already fell on
// its own figures (memory shared with another program, a throttled GPU): a
// copy to or from that GPU is slow because of it, so the link is named on
// that GPU alone and the other, whose own figures held, stays healthy.
void name_slow_link(json &gpu_verdicts, const json &src, const json &dst, const std::string &text) {
    std::vector<json *> ends, fallen;
    for (json &g : gpu_verdicts)
        if (g["ordinal"] == src || g["ordinal"] == dst) {
            ends.push_back(&g);
            if (g.value("verdict", "healthy") != "healthy") fallen.push_back(&g);
        }
    if (fallen.size() == 1) {
        add_reason(*fallen.front(), "degraded", text + ", on GPU " + (*fallen.front())["ordinal"].dump() +
                                                   " alone: its own figures fell");
        return;
    }
    for (json *g : ends) add_reason(*g, "degraded", text);
}

// Peer pairs: each ordered pair against the node's other pairs and against its link's theoretical figure.
json judge_peer(const json &figures, json &gpu_verdicts) {
    json out = json::array();
    const json &pairs = figures.value("peer", json::object()).value("pairs", json::array());
    std::vector<double> all;
    for (const json &p : pairs)
        if (p.contains("copy_gbs")) all.push_back(p["copy_gbs"].get<double>());
    const FigureSpec f{"peer_copy_gbs", "GB/s", true, "", "", "", "copy-engine bandwidth between two GPUs"};
    for (std::size_t i = 0, k = 0; i < pairs.size(); ++i) {
        const json &p = pairs[i];
        if (!p.contains("copy_gbs")) continue;
        const double value = p["copy_gbs"].get<double>();
        json pj = {{"src", p["src"]}, {"dst", p["dst"]}, {"copy_gbs", value}};
        pj["node"] = node_judgement(f, value, all, k++, kDefaultTolerance);
        if (p.value("theoretical_gbs", 0.0) > 0) pj["fraction_of_theoretical"] = value / p["theoretical_gbs"].get<double>();
        // The floor where the GPUs reach each other: without peer access a copy is staged through host memory.
        const bool floored = pj.contains("fraction_of_theoretical") && p.value("peer_access", true);
        const bool below = floored && pj["fraction_of_theoretical"].get<double>() < kPeerFloor;
        if (floored) pj["floor"] = kPeerFloor;
        pj["flag"] = pj["node"].value("flag", false) || below;
        if (pj["flag"].get<bool>()) {
            std::string text = "link " + p["src"].dump() + "->" + p["dst"].dump() + ": peer copy " + num(value) + " GB/s";
            if (pj["node"].value("flag", false))
                text += ", " + pct(pj["node"]["shortfall"].get<double>()) + " short of the node's pairs (" +
                        num(pj["node"]["reference"].get<double>()) + " GB/s)";
            if (below)
                text += ", " + pct(pj["fraction_of_theoretical"].get<double>()) + " of the link's theoretical (" +
                        num(p["theoretical_gbs"].get<double>()) + " GB/s), below the theoretical floor of " + pct(kPeerFloor);
            name_slow_link(gpu_verdicts, p["src"], p["dst"], text);
        }
        out.push_back(std::move(pj));
    }
    return out;
}

}  // namespace

const std::vector<FigureSpec> &figure_specs() {
    static const std::vector<FigureSpec> specs = {
        {"dram_copy_gbs", "GB/s", true, "dram_gbs", "stream", "copy_gbs",
         "DRAM bandwidth, stream copy (burst: single timed launches, blind to a process sharing the GPU)", kDramFloor, true},
        {"dram_triad_gbs", "GB/s", true, "dram_gbs", "stream", "triad_gbs",
         "DRAM bandwidth, stream triad (burst: single timed launches, blind to a process sharing the GPU)", kDramFloor, true},
        {"dram_sustained_gbs", "GB/s", true, "dram_gbs", "check", "dram_sustained_gbs",
         "DRAM copy bandwidth held over 0.25 s, host-timed (falls when the GPU is shared)", kDramFloor},
        {"l2_copy_gbs", "GB/s", true, "", "check", "l2_copy_gbs", "L2 bandwidth, stream copy of arrays that fit in L2"},
        {"l2_hit_latency_ns", "ns", false, "", "memory_spaces", "l2_ns", "L2 hit latency, pointer chase"},
        {"h2d_pinned_gbs", "GB/s", true, "host_link_gbs", "transfer", "pinned_h2d_peak_gbs", "pinned host to device bandwidth",
         kHostLinkFloor},
        {"d2h_pinned_gbs", "GB/s", true, "host_link_gbs", "transfer", "pinned_d2h_peak_gbs", "pinned device to host bandwidth",
         kHostLinkFloor},
    };
    return specs;
}

double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double mad_of(const std::vector<double> &v) {
    const double m = median_of(v);
    std::vector<double> dev;
    for (double x : v) dev.push_back(std::fabs(x - m));
    return median_of(dev);
}

double percentile_of(double value, const json &quantiles) {
    std::vector<std::pair<double, double>> q;  // (value, quantile)
    for (const auto &[k, v] : quantiles.items()) q.emplace_back(v.get<double>(), std::stod(k));
    if (q.empty()) return NAN;
    std::sort(q.begin(), q.end());
    if (value <= q.front().first) return q.front().second * 100;
    if (value >= q.back().first) return q.back().second * 100;
    for (std::size_t i = 1; i < q.size(); ++i)
        if (value <= q[i].first) {
            const double span = q[i].first - q[i - 1].first;
            const double t = span > 0 ? (value - q[i - 1].first) / span : 0.5;
            return 100 * (q[i - 1].second + t * (q[i].second - q[i - 1].second));
        }
    return q.back().second * 100;
}

std::string model_mismatch(const json &quantiles, const std::string &model) {
    if (!quantiles.is_object() || !quantiles.contains("figures")) return "it is not a quantiles document (no \"figures\")";
    const std::string m = quantiles.value("model", "");
    auto lower = [](std::string s) {
        std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
        return s;
    };
    if (lower(m) != lower(model)) return "it is for " + (m.empty() ? std::string("no model") : m) + ", not " + model;
    return "";
}

int verdict_rank(const std::string &v) {
    return v == "unusable" ? 4 : v == "degraded" ? 3 : v == "not_checked" ? 2 : v == "unjudged" ? 1 : 0;
}

namespace {

// What judged the node, in words, for the table and "judged_with".
json judged_with(const json &gpus, const json &crowd, const json &baseline, const json &reference) {
    std::size_t measured = 0;
    std::vector<std::string> models;
    for (const json &g : gpus) {
        measured += g.value("mig", false) ? 0 : 1;
        const std::string m = g.value("name", "");
        if (!m.empty() && std::find(models.begin(), models.end(), m) == models.end()) models.push_back(m);
    }
    std::string ref;
    for (const std::string &m : models) {
        const json *doc = reference_of_model(reference, m);
        ref += (ref.empty() ? "" : "; ") +
               (doc ? "the embedded reference of " + m + " (" + std::to_string(doc->value("uploads", 0)) +
                          " files in results/: standard-suite and idle check runs), for each figure no baseline or crowd distribution judges"
                    : "no embedded reference of " + m);
    }
    char floor[256];
    std::snprintf(floor, sizeof floor,
                  "the theoretical floor: DRAM %.0f %%, host link %.0f %%, peer link %.0f %% of theoretical; "
                  "L2 hit latency against a ceiling of %.0f cycles at the SM clock",
                  100 * kDramFloor, 100 * kHostLinkFloor, 100 * kPeerFloor, kL2LatencyCeilingCycles);
    return {{"node", measured >= 3   ? "median absolute deviation over " + std::to_string(measured) + " GPUs"
                     : measured == 2 ? "two GPUs: each against the other, by the tolerance"
                                     : "one GPU: no node comparison"},
            {"crowd", crowd.is_object() ? "the crowd's quantiles of " + crowd.value("model", std::string("?")) + " (" +
                                              std::to_string(crowd.value("uploads", 0)) + " uploads)"
                                        : "no crowd"},
            {"baseline", baseline.is_object() ? "the site's baseline" : "no baseline"},
            {"reference", ref.empty() ? "no embedded reference" : ref},
            {"floor", floor}};
}

}  // namespace

json judge(const json &figures, const json &crowd, const json &baseline, const json &reference) {
    if (!figures.is_object() || figures.value("schema", "") != "gmlab.check/1")
        throw std::runtime_error("not a gmlab.check/1 figures document (\"schema\" is not gmlab.check/1)");
    const json &gpus = figures.value("gpus", json::array());
    if (!gpus.is_array() || gpus.empty()) throw std::runtime_error("the figures document has no \"gpus\"");
    for (const json &g : gpus)
        if (!g.is_object() || !g.contains("ordinal") || (g.contains("figures") && !g["figures"].is_object()))
            throw std::runtime_error("each of \"gpus\" needs an \"ordinal\" and a \"figures\" object");
    json out = {{"schema", "gmlab.check.verdicts/1"}, {"gpus", json::array()}};
    for (std::size_t i = 0; i < gpus.size(); ++i) out["gpus"].push_back(judge_gpu(gpus[i], i, gpus, crowd, baseline, reference));
    out["peer"] = judge_peer(figures, out["gpus"]);
    out["judged_with"] = judged_with(gpus, crowd, baseline, reference);
    json node = {{"verdict", "healthy"}, {"reasons", json::array()}};
    int worst = 0;
    for (const json &g : out["gpus"]) {
        const std::string v = g["verdict"].get<std::string>();
        const int rank = verdict_rank(v);
        if (rank > worst) {
            worst = rank;
            node["verdict"] = v;
        }
        for (const json &r : g["reasons"])  // a link's reason is on both its GPUs: named once
            if (std::find(node["reasons"].begin(), node["reasons"].end(), r["text"]) == node["reasons"].end())
                node["reasons"].push_back(r["text"]);
    }
    node["exit_code"] = worst == 4 ? kUnusable : worst == 3 ? kDegraded : worst == 2 ? kNotChecked : worst == 1 ? kUnjudged : kHealthy;
    out["node"] = node;
    return out;
}

}  // namespace gmcli::check
