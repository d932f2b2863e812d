#include "check_output.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "check_judge.hpp"

namespace gmcli::check {

using nlohmann::json;

namespace {

std::string num(double v, const char *fmt = "%.4g") {
    if (!std::isfinite(v)) return "-";
    char b[48];
    std::snprintf(b, sizeof b, fmt, v);
    return b;
}

int status_code(const std::string &verdict) {
    return verdict == "unusable" ? 2 : verdict == "degraded" ? 1 : verdict == "not_checked" ? 3 : verdict == "unjudged" ? 4 : 0;
}

// The last column: what a figure is judged by where the columns cannot say
// it (the theoretical floor or latency ceiling), and why nothing judged it.
std::string figure_note(const json &f) {
    std::string note;
    const auto add = [&note](const std::string &part) { note += (note.empty() ? "" : "; ") + part; };
    if (f.value("burst", false)) add("burst");
    const json &t = f["theoretical"];
    if (t.contains("floor")) add("floor " + num(100 * t["floor"].get<double>(), "%.0f") + "%");
    if (t.contains("ceiling_ns")) add("ceiling " + num(t["ceiling_ns"].get<double>(), "%.0f") + " ns");
    if (!f.value("judged", true)) add("not judged: " + f.value("not_judged", std::string("nothing to judge it by")));
    return note;
}

// A table row without the blanks an empty last column leaves.
std::string trimmed(const char *line) {
    std::string s = line;
    while (s.size() > 1 && s[s.size() - 2] == ' ') s.erase(s.size() - 2, 1);
    return s;
}

std::string shortfall_text(const json &j) {
    return j.contains("shortfall") ? num(100 * j["shortfall"].get<double>(), "%.1f") + "%" : "-";
}

// One judgement column: "ok", "FLAG", or "-" (not judged).
std::string mark(const json &j) {
    if (!j.value("judged", false)) return "-";
    return j.value("flag", false) ? "FLAG" : "ok";
}

const json *gpu_figures_of(const json &figures, int ordinal) {
    if (!figures.contains("gpus") || !figures["gpus"].is_array()) return nullptr;
    for (const json &g : figures["gpus"])  // references into figures, not into a copy
        if (g.value("ordinal", -1) == ordinal) return &g;
    return nullptr;
}

}  // namespace

std::string label_value(const std::string &s) {
    std::string out;
    for (char c : s) {
        if (c == '\\') out += "\\\\";
        else if (c == '"') out += "\\\"";
        else if (c == '\n') out += "\\n";
        else out += c;
    }
    return out;
}

void write_table(std::ostream &out, const json &figures, const json &verdicts) {
    char line[1024];
    const char *const kRow = "  %-18s %10s %-5s %10s %6s %5s %10s %5s %10s %6s %4s %8s %5s  %s\n";
    bool any_burst = false;
    for (const json &g : verdicts["gpus"]) {
        out << "GPU " << g["ordinal"].get<int>() << " " << g.value("name", "") << " (" << g.value("uuid", "") << "): "
            << g["verdict"].get<std::string>() << "\n";
        if (!g["figures"].empty()) {
            std::snprintf(line, sizeof line, kRow, "figure", "value", "unit", "node ref", "short", "node", "percentile", "dist",
                          "ref median", "short", "ref", "of theo.", "theo", "");
            out << trimmed(line);
        }
        for (const json &f : g["figures"]) {
            const json &n = f["node"], &d = f["distribution"], &r = f.value("reference", json::object()), &t = f["theoretical"];
            any_burst |= f.value("burst", false);
            std::snprintf(line, sizeof line, kRow, f["figure"].get<std::string>().c_str(), num(f["value"].get<double>()).c_str(),
                          f["unit"].get<std::string>().c_str(), num(n.value("reference", NAN)).c_str(), shortfall_text(n).c_str(),
                          mark(n).c_str(), num(d.value("percentile", NAN), "%.0f").c_str(), mark(d).c_str(),
                          num(r.value("median", NAN)).c_str(), shortfall_text(r).c_str(), mark(r).c_str(),
                          t.contains("fraction") ? (num(100 * t["fraction"].get<double>(), "%.1f") + "%").c_str() : "-",
                          mark(t).c_str(), figure_note(f).c_str());
            out << trimmed(line);
        }
        for (const json &note : g["notes"]) out << "  note: " << note.get<std::string>() << "\n";
    }
    if (any_burst)
        out << "burst: the median of single timed launches, each shorter than the GPU's time slice, so a process sharing the GPU "
               "does not lower it; dram_sustained_gbs is the DRAM figure that sees one\n";
    if (!verdicts["peer"].empty()) {
        out << "peer copy bandwidth (copy engine), GB/s:\n";
        for (const json &p : verdicts["peer"]) {
            std::snprintf(line, sizeof line, "  %d->%d %10s  %s of the link's theoretical  node: %s\n", p["src"].get<int>(),
                          p["dst"].get<int>(), num(p["copy_gbs"].get<double>()).c_str(),
                          p.contains("fraction_of_theoretical") ? (num(100 * p["fraction_of_theoretical"].get<double>(), "%.1f") + " %").c_str()
                                                                : "-",
                          mark(p["node"]).c_str());
            out << line;
        }
    }
    const json &peer = figures.value("peer", json::object());
    if (peer.contains("error")) out << "peer: " << peer["error"].get<std::string>() << "\n";
    for (const auto &[what, how] : verdicts["judged_with"].items()) out << "judged with " << what << ": " << how.get<std::string>() << "\n";
    if (figures.contains("wall_s")) out << "wall time: " << num(figures["wall_s"].get<double>(), "%.1f") << " s\n";
    const json &node = verdicts["node"];
    out << "node: " << node["verdict"].get<std::string>() << " (exit " << node["exit_code"].get<int>() << ")\n";
    for (const json &r : node["reasons"]) out << "  " << r.get<std::string>() << "\n";
}

std::string prometheus_text(const json &figures, const json &verdicts) {
    std::ostringstream o;
    o.precision(10);
    auto family = [&o](const char *name, const char *type, const char *help) {
        o << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n";
    };
    auto gpu_labels = [](const json &g) {
        return "gpu=\"" + std::to_string(g.value("ordinal", -1)) + "\",uuid=\"" + label_value(g.value("uuid", "")) + "\",model=\"" +
               label_value(g.value("name", "")) + "\"";
    };
    family("gmlab_check_figure", "gauge", "A figure gmlab check measured on a GPU, in the unit its name ends with.");
    for (const json &g : verdicts["gpus"])
        for (const json &f : g["figures"])
            o << "gmlab_check_figure{" << gpu_labels(g) << ",figure=\"" << label_value(f["figure"].get<std::string>()) << "\"} "
              << f["value"].get<double>() << "\n";
    family("gmlab_check_figure_flagged", "gauge", "1 when a figure was judged degraded (node, distribution, reference or theoretical), else 0.");
    for (const json &g : verdicts["gpus"])
        for (const json &f : g["figures"])
            o << "gmlab_check_figure_flagged{" << gpu_labels(g) << ",figure=\"" << label_value(f["figure"].get<std::string>())
              << "\"} " << (f["flag"].get<bool>() ? 1 : 0) << "\n";
    family("gmlab_check_figure_judged", "gauge", "1 when a figure was judged (node, distribution, reference or theoretical), 0 when nothing judged it.");
    for (const json &g : verdicts["gpus"])
        for (const json &f : g["figures"])
            o << "gmlab_check_figure_judged{" << gpu_labels(g) << ",figure=\"" << label_value(f["figure"].get<std::string>())
              << "\"} " << (f.value("judged", true) ? 1 : 0) << "\n";
    family("gmlab_check_gpu_status", "gauge", "A GPU's verdict: 0 healthy, 1 degraded, 2 unusable, 3 not checked (MIG), 4 unjudged.");
    for (const json &g : verdicts["gpus"])
        o << "gmlab_check_gpu_status{" << gpu_labels(g) << "} " << status_code(g["verdict"].get<std::string>()) << "\n";
    family("gmlab_check_node_status", "gauge", "The node's verdict: 0 healthy, 1 degraded, 2 unusable, 3 not checked (MIG), 4 unjudged.");
    o << "gmlab_check_node_status " << status_code(verdicts["node"]["verdict"].get<std::string>()) << "\n";
    family("gmlab_check_peer_copy_gbs", "gauge", "Copy-engine bandwidth from one GPU to another, GB/s.");
    for (const json &p : verdicts["peer"])
        o << "gmlab_check_peer_copy_gbs{src=\"" << p["src"].get<int>() << "\",dst=\"" << p["dst"].get<int>() << "\"} "
          << p["copy_gbs"].get<double>() << "\n";
    family("gmlab_check_ecc_errors", "gauge", "ECC error counts NVML reports, by type (volatile: since the driver loaded).");
    for (const json &g : verdicts["gpus"]) {
        const json *fg = gpu_figures_of(figures, g.value("ordinal", -1));
        if (!fg) continue;
        const json &ecc = fg->value("health", json::object()).value("ecc", json::object());
        for (const char *k : {"volatile_corrected", "volatile_uncorrected", "aggregate_corrected", "aggregate_uncorrected"})
            if (ecc.contains(k)) o << "gmlab_check_ecc_errors{" << gpu_labels(g) << ",type=\"" << k << "\"} " << ecc[k].get<double>() << "\n";
    }
    family("gmlab_check_pcie_link", "gauge", "The PCIe link NVML reports: generation and width, current and maximum.");
    for (const json &g : verdicts["gpus"]) {
        const json *fg = gpu_figures_of(figures, g.value("ordinal", -1));
        if (!fg) continue;
        const json &pcie = fg->value("health", json::object()).value("pcie", json::object());
        for (const char *k : {"current_generation", "max_generation", "current_width", "max_width"})
            if (pcie.contains(k)) o << "gmlab_check_pcie_link{" << gpu_labels(g) << ",field=\"" << k << "\"} " << pcie[k].get<double>() << "\n";
    }
    family("gmlab_check_nvlink_active_links", "gauge", "Active NVLink links NVML reports.");
    for (const json &g : verdicts["gpus"]) {
        const json *fg = gpu_figures_of(figures, g.value("ordinal", -1));
        const json nv = fg ? fg->value("health", json::object()).value("nvlink", json::object()) : json::object();
        if (nv.contains("active_links")) o << "gmlab_check_nvlink_active_links{" << gpu_labels(g) << "} " << nv["active_links"].get<double>() << "\n";
    }
    if (figures.contains("wall_s")) {
        family("gmlab_check_duration_seconds", "gauge", "Wall time of the whole check.");
        o << "gmlab_check_duration_seconds " << figures["wall_s"].get<double>() << "\n";
    }
    if (figures.contains("finished_unix")) {
        family("gmlab_check_last_run_timestamp_seconds", "gauge", "When the check finished, seconds since the epoch.");
        o << "gmlab_check_last_run_timestamp_seconds " << figures["finished_unix"].get<double>() << "\n";
    }
    return o.str();
}

}  // namespace gmcli::check
