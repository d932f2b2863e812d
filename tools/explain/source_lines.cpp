#include "explain/source_lines.hpp"

#include <dirent.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>

#include "explain/trace_records.hpp"
#include "inject/record_types.hpp"

namespace gmexplain {

using nlohmann::json;

namespace {

double record_number(const json &j, const char *key) { return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0; }
std::string record_text(const json &j, const char *key) { return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : ""; }

LineRecord line_record(const json &j) {
    LineRecord r;
    r.mangled = record_text(j, "name");
    r.path = record_text(j, "file");
    r.line = static_cast<unsigned>(record_number(j, "line"));
    r.instructions = record_number(j, "instructions");
    r.ld_requests = record_number(j, "global_ld_requests");
    r.ld_sectors = record_number(j, "global_ld_sectors");
    r.ld_ideal_sectors = record_number(j, "global_ld_ideal_sectors");
    r.st_requests = record_number(j, "global_st_requests");
    r.st_sectors = record_number(j, "global_st_sectors");
    r.st_ideal_sectors = record_number(j, "global_st_ideal_sectors");
    r.shared_requests = record_number(j, "shared_requests");
    r.shared_wavefronts = record_number(j, "shared_wavefronts");
    r.shared_ideal_wavefronts = record_number(j, "shared_ideal_wavefronts");
    r.local_loads = record_number(j, "local_ld");
    r.local_stores = record_number(j, "local_st");
    r.local_sectors = record_number(j, "local_sectors");
    return r;
}

std::string lines_fmt(const char *format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

std::string source_file_name(const std::string &path) {
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A line is named for global accesses when they use at least this many times
// the sectors their data needs (one more sector in ten requests), and for
// shared accesses when they take this many times the conflict-free wavefronts.
constexpr double kLineExcess = 1.1;

bool global_excess(double requests, double sectors, double ideal) {
    return requests > 0 && ideal > 0 && sectors >= kLineExcess * ideal;
}

// The line's JSON: its figures per request, the issues it has and their text.
json line_json(const LineRecord &r) {
    json j = {{"file", source_file_name(r.path)}, {"path", r.path}, {"line", r.line}, {"instructions", r.instructions}};
    if (const std::string text = source_line(r.path, static_cast<int>(r.line)); !text.empty()) j["source"] = text;
    json issues = json::array();
    std::vector<std::string> texts;
    double excess = 0;
    if (r.ld_requests > 0)
        j["global_loads"] = {{"requests", r.ld_requests}, {"sectors_per_request", r.ld_sectors / r.ld_requests},
                             {"ideal_sectors_per_request", r.ld_ideal_sectors / r.ld_requests}};
    if (r.st_requests > 0)
        j["global_stores"] = {{"requests", r.st_requests}, {"sectors_per_request", r.st_sectors / r.st_requests},
                              {"ideal_sectors_per_request", r.st_ideal_sectors / r.st_requests}};
    if (global_excess(r.ld_requests, r.ld_sectors, r.ld_ideal_sectors)) {
        texts.push_back("loads use " + lines_fmt("%.1f", r.ld_sectors / r.ld_requests) + " sectors per request where " +
                        lines_fmt("%.1f", r.ld_ideal_sectors / r.ld_requests) + " suffice");
        excess += r.ld_sectors - r.ld_ideal_sectors;
    }
    if (global_excess(r.st_requests, r.st_sectors, r.st_ideal_sectors)) {
        texts.push_back("stores use " + lines_fmt("%.1f", r.st_sectors / r.st_requests) + " sectors per request where " +
                        lines_fmt("%.1f", r.st_ideal_sectors / r.st_requests) + " suffice");
        excess += r.st_sectors - r.st_ideal_sectors;
    }
    if (!texts.empty()) issues.push_back("global_sectors");
    if (r.shared_requests > 0 && r.shared_ideal_wavefronts > 0) {
        const double ways = r.shared_wavefronts / r.shared_ideal_wavefronts;
        j["shared"] = {{"requests", r.shared_requests}, {"wavefronts_per_request", r.shared_wavefronts / r.shared_requests},
                       {"ideal_wavefronts_per_request", r.shared_ideal_wavefronts / r.shared_requests}, {"conflict_ways", ways}};
        if (ways >= kLineExcess) {
            issues.push_back("shared_bank_conflicts");
            texts.push_back("shared accesses take " + lines_fmt("%.1f", r.shared_wavefronts / r.shared_requests) +
                            " wavefronts per request where " + lines_fmt("%.1f", r.shared_ideal_wavefronts / r.shared_requests) +
                            " suffice (" + lines_fmt("%.1f", ways) + "-way bank conflicts)");
            excess += r.shared_wavefronts - r.shared_ideal_wavefronts;
        }
    }
    if (r.local_loads + r.local_stores > 0) {
        j["local"] = {{"loads", r.local_loads}, {"stores", r.local_stores}, {"sectors", r.local_sectors}};
        issues.push_back("local_memory");
        std::string what;
        if (r.local_loads > 0) what = lines_fmt("%.3g", r.local_loads) + " warp loads";
        if (r.local_stores > 0) what += (what.empty() ? "" : " and ") + lines_fmt("%.3g", r.local_stores) + " warp stores";
        texts.push_back("local memory (spills, or an array kept out of registers): " + what + ", " +
                        lines_fmt("%.3g", r.local_sectors) + " sectors");
        excess += std::max(r.local_sectors, r.local_loads + r.local_stores);
    }
    std::string joined;
    for (const auto &t : texts) joined += (joined.empty() ? "" : "; ") + t;
    j["issues"] = issues;
    j["text"] = joined;
    j["excess"] = excess;  // the sectors and wavefronts over the ideal, and the local sectors: the order of the list
    return j;
}

// Whether the kernel was among those chosen (the lines pass runs on those only).
bool chosen_for_lines(const json &kernel) {
    return kernel.value("counted", false) ||
           kernel.value("not_counted", std::string()).rfind("not among the", 0) != 0;
}

// Why a chosen kernel has no line: the pass's reason, no line table, not launched.
std::string why_no_lines(const LinesRecords &r, const std::string &mangled) {
    if (!r.unavailable.empty()) return "source lines not available: " + r.unavailable;
    if (auto it = r.without_line_info.find(mangled); it != r.without_line_info.end())
        return "built without -lineinfo: its " + lines_fmt("%.0f", it->second) +
               " instructions have no source line in the cubin; add -lineinfo to nvcc's flags (it changes no code) "
               "to have them named by file and line";
    if (r.pids.empty()) return "no records of the lines pass";
    auto it = r.launches.find(mangled);
    if (it == r.launches.end() || it->second == 0) return "the lines run did not launch it (the program is not deterministic)";
    // Measured on an H100 (CUDA 13.0): of two kernels chosen in one context,
    // only the first one launched after SASS metrics were enabled was patched.
    return "the lines run collected no SASS metrics for it: of the chosen kernels of one context, only the first one "
           "launched is collected, and explain gives each other one a run of its own (docs/explain.md, pass 3)";
}

void add_kernel_lines(json &kernel, const LinesRecords &r, std::size_t top) {
    const std::string mangled = kernel.value("mangled", "");
    std::vector<json> lines;
    std::size_t measured = 0;
    for (const auto &l : r.lines) {
        if (l.mangled != mangled) continue;
        ++measured;
        json j = line_json(l);
        if (!j["issues"].empty()) lines.push_back(std::move(j));
    }
    if (measured == 0) {
        kernel["lines_missing"] = why_no_lines(r, mangled);
        return;
    }
    std::stable_sort(lines.begin(), lines.end(),
                     [](const json &a, const json &b) { return a["excess"].get<double>() > b["excess"].get<double>(); });
    if (lines.size() > top) lines.resize(top);
    kernel["lines"] = lines;
    kernel["lines_measured"] = measured;
    if (auto it = r.launches.find(mangled); it != r.launches.end()) kernel["lines_launches"] = it->second;
}

}  // namespace

void add_lines_record(LinesRecords &out, const std::string &line, int pid) {
    const json j = json::parse(line);
    const std::string type = record_text(j, "type");
    if (type == records::kProcess) out.pids.push_back(pid);
    else if (type == records::kLine) out.lines.push_back(line_record(j));
    else if (type == records::kLinesNoInfo) out.without_line_info[record_text(j, "name")] += record_number(j, "instructions");
    else if (type == records::kLinesUnavailable) out.unavailable = record_text(j, "reason");
    else if (type == records::kLaunches) out.launches[record_text(j, "name")] += static_cast<std::uint64_t>(record_number(j, "count"));
    else if (type == records::kNote) out.notes.push_back(record_text(j, "text"));
}

LinesRecords read_lines(const std::string &folder) {
    LinesRecords out;
    read_record_files(folder, "lines", [&](const std::string &line, int pid) { add_lines_record(out, line, pid); },
                      out.notes);
    return out;
}

namespace {

bool has_lines(const LinesRecords &r, const std::string &mangled) {
    return std::any_of(r.lines.begin(), r.lines.end(), [&](const LineRecord &l) { return l.mangled == mangled; });
}

}  // namespace

std::vector<std::string> kernels_without_lines(const LinesRecords &r, const std::vector<std::string> &chosen) {
    std::vector<std::string> out;
    if (!r.unavailable.empty() || r.pids.empty()) return out;
    for (const auto &k : chosen) {
        const auto launched = r.launches.find(k);
        if (launched != r.launches.end() && launched->second > 0 && !r.without_line_info.count(k) && !has_lines(r, k))
            out.push_back(k);
    }
    return out;
}

std::string lines_rerun_folder(const std::string &folder, std::size_t index) {
    return folder + "/lines-kernel-" + std::to_string(index);
}

LinesRecords read_lines_with_reruns(const std::string &folder) {
    LinesRecords r = read_lines(folder);
    for (std::size_t i = 0;; ++i) {
        const std::string sub = lines_rerun_folder(folder, i);
        if (DIR *d = opendir(sub.c_str())) closedir(d);
        else break;
        const LinesRecords own = read_lines(sub);
        for (const int pid : own.pids) r.pids.push_back(pid);
        std::set<std::string> filled;
        for (const auto &l : own.lines)
            if (!has_lines(r, l.mangled) || filled.count(l.mangled)) {
                filled.insert(l.mangled);
                r.lines.push_back(l);
            }
        for (const auto &[kernel, n] : own.without_line_info)
            if (!has_lines(r, kernel)) r.without_line_info[kernel] += n;
        for (const auto &n : own.notes) r.notes.push_back(n);
    }
    return r;
}

void add_source_lines(json &doc, const LinesRecords &records, double seconds, std::size_t top) {
    if (!doc.is_object() || !doc.contains("kernels")) return;
    for (auto &kernel : doc["kernels"])
        if (chosen_for_lines(kernel)) add_kernel_lines(kernel, records, top);
    doc["passes"]["lines"] = {{"ran", !records.pids.empty()}, {"available", records.unavailable.empty()},
                              {"reason", records.unavailable}, {"seconds", seconds},
                              {"processes", records.pids.size()}, {"lines", records.lines.size()}};
    if (!doc["notes"].is_array()) doc["notes"] = json::array();
    if (!records.unavailable.empty()) doc["notes"].push_back("source lines not available: " + records.unavailable);
    else if (records.pids.empty()) doc["notes"].push_back("--lines: no records of the lines pass (lines-<pid>.jsonl)");
    for (const auto &[kernel, n] : records.without_line_info)
        doc["notes"].push_back("built without -lineinfo: " + kernel + " has no source lines; add -lineinfo to nvcc's flags");
    for (const auto &n : records.notes) doc["notes"].push_back(n.rfind("lines: ", 0) == 0 ? n : "lines: " + n);
}

std::string source_line(const std::string &file, int line) {
    if (file.empty() || line <= 0) return "";
    std::ifstream in(file);
    std::string text;
    for (int n = 1; n <= line && std::getline(in, text); ++n)
        if (n == line) {
            const auto first = text.find_first_not_of(" \t");
            const auto last = text.find_last_not_of(" \t\r");
            return first == std::string::npos ? "" : text.substr(first, last - first + 1);
        }
    return "";
}

std::string source_lines_text(const json &kernel) {
    if (kernel.contains("lines_missing")) return "   source lines: none: " + kernel["lines_missing"].get<std::string>() + "\n";
    if (!kernel.contains("lines")) return "";
    std::string out = "   source lines (SASS metrics per instruction";
    if (kernel.contains("lines_launches")) out += ", " + std::to_string(kernel["lines_launches"].get<std::uint64_t>()) + " launches";
    out += "):\n";
    if (kernel["lines"].empty())
        return out + "   - none of its " + std::to_string(kernel.value("lines_measured", 0)) +
               " lines uses more global sectors than ideal, conflicts in shared memory or touches local memory\n";
    for (const auto &l : kernel["lines"]) {
        out += "   - line " + std::to_string(l["line"].get<unsigned>()) + " of " + l["file"].get<std::string>() + ": " +
               l["text"].get<std::string>() + "\n";
        if (l.contains("source")) out += "       | " + l["source"].get<std::string>() + "\n";
    }
    return out;
}

}  // namespace gmexplain
