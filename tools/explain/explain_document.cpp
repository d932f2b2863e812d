#include "explain/explain_document.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "explain/names/kernel_name.hpp"
#include "explain/program/program_launch.hpp"
#include "explain/source_lines.hpp"

namespace gmexplain {

using nlohmann::json;

json finding_json(const Finding &f) {
    json evidence = json::object();
    for (const auto &[k, v] : f.evidence) evidence[k] = v;
    json cost = {{"found", f.cost.found}};
    if (f.cost.found) {
        cost["value"] = f.cost.value;
        cost["text"] = f.cost_text;
        cost["source"] = f.cost.source;
        cost["at"] = f.cost.at_x;
        cost["baseline"] = f.cost.baseline_x;
        cost["from"] = f.cost.from;
        if (!f.cost.measurement.is_null()) cost["measured"] = f.cost.measurement;
    } else {
        cost["missing"] = f.cost.missing;
        if (!f.measure.is_null()) cost["measure"] = f.measure;
    }
    return {{"rule", f.rule},       {"title", f.title},         {"text", f.text},
            {"experiment", f.experiment}, {"evidence", evidence}, {"cost", cost},
            {"gain_ms", f.gain_ms ? json(*f.gain_ms) : json(nullptr)}, {"fix", f.fix}, {"guide", f.guide},
            {"launches", f.launches}, {"see_also", f.see_also}, {"limiting", f.limiting},
            {"not_limiting", f.limiting ? json(nullptr) : json(f.not_limiting)},
            {"gain_band", f.gain_band_why.empty() ? json(nullptr) : json{{"factor", f.gain_band}, {"why", f.gain_band_why}}}};
}


namespace {

// A frame of the CUDA runtime linked into the program, or the kernel's own
// host stub: not the user's line.
bool runtime_frame(const std::string &function, const std::string &kernel) {
    if (function.empty()) return false;
    for (const char *prefix : {"libcudart_static", "cuda", "__cuda", "__device_stub__", "cudart::", "__nv", "_GLOBAL__"})
        if (function.rfind(prefix, 0) == 0) return true;
    auto plain = [](std::string f) { return f.rfind("void ", 0) == 0 ? f.substr(5) : f; };
    return !kernel.empty() && plain(function) == plain(kernel);
}

}  // namespace

json call_site_json(const CallSiteRecord &site, const std::string &kernel) {
    CallSiteRecord s = site;
    json j = {{"op", s.op}, {"inner_op", s.inner_op}, {"backward", s.backward}};
    if (!s.addresses.empty() && s.line == 0) {  // a C/C++ program: its executable and the calls' addresses
        j["executable"] = s.file;
        j["addresses"] = s.addresses;
        std::uint64_t chosen = s.addresses.front();
        HostLine host = host_source_line(s.file, chosen);
        for (auto a : s.addresses) {
            const HostLine h = host_source_line(s.file, a);
            if (runtime_frame(h.function, kernel)) continue;
            chosen = a;
            host = h;
            break;
        }
        j["address"] = chosen;
        s.file = host.file;
        s.line = host.line;
        if (!host.function.empty() && !runtime_frame(host.function, kernel)) s.function = host.function;
    }
    j["file"] = s.file;
    j["line"] = s.line;
    j["function"] = s.function;
    j["source"] = source_line(s.file, s.line);
    return j;
}

std::string call_site_text(const json &site) {
    if (!site.is_object()) return "";
    const std::string file = site.value("file", ""), op = site.value("op", ""), backward = site.value("backward", "");
    const int line = site.value("line", 0);
    std::string text;
    if (line > 0) {
        text = "at " + file + ":" + std::to_string(line);
        const std::string function = site.value("function", "");
        if (!function.empty() && function != "<module>") text += " in " + function;
        const std::string source = site.value("source", "");
        if (!source.empty()) text += ": " + source;
    } else if (!site.value("function", std::string()).empty()) {
        text = "in " + site.value("function", std::string());  // a C/C++ program without debug lines
    } else if (site.contains("executable")) {
        char hex[32];
        std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(site.value("address", 0ull)));
        text = "at " + site.value("executable", std::string()) + "+" + hex;
    } else {
        text = "at an unknown line";
    }
    std::string tags = op;
    if (const std::string inner = site.value("inner_op", ""); !inner.empty()) tags += " > " + inner;
    if (!backward.empty()) tags += (tags.empty() ? "" : ", ") + std::string("backward: ") + backward;
    if (!tags.empty()) text += "  [" + tags + "]";
    return text;
}


json kernel_json(const KernelSummary &k, int rank) {
    return {{"rank", rank},
            {"name", k.name},
            {"short_name", k.short_name},
            {"library", kernel_library(k.name)},
            {"mangled", k.mangled},
            {"launches", k.launches},
            {"graph_launches", k.graph_launches},
            {"total_ms", k.total_ms},
            {"mean_us", k.mean_us},
            {"share_of_gpu_time", k.share_of_gpu_time},
            {"grid", {k.grid[0], k.grid[1], k.grid[2]}},
            {"block", {k.block[0], k.block[1], k.block[2]}},
            {"registers", k.registers},
            {"static_shared_bytes", k.static_shared},
            {"dynamic_shared_bytes", k.dynamic_shared},
            {"local_bytes_per_thread", k.local_per_thread},
            {"device", k.device},
            {"call_site", k.site.empty() ? json(nullptr) : call_site_json(k.call_site, k.name)}};
}

namespace {

std::string fmt(const char *format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

// ", measured now: stride_copy {"strides":[1,4]} in 0.41 s" for a cost measured on the spot.
std::string measured_text(const json &cost) {
    if (!cost.contains("measured")) return "";
    const json &m = cost["measured"];
    return "; measured now: " + m.value("experiment", "") + " " + m.value("parameters", json::object()).dump() + " in " +
           fmt("%.2f", m.value("seconds", 0.0)) + " s";
}

// "     to measure it: stride_copy {...}" for a cost without a figure.
std::string to_measure_text(const json &cost) {
    if (!cost.contains("measure") || !cost["measure"].is_object()) return "";
    const json &m = cost["measure"];
    return "     to measure it on this GPU: gmlab explain --measure (runs " + m.value("experiment", "") + " " +
           m.value("parameters", json::object()).dump() + " over its --quick parameters)\n";
}

// Where the costs came from: the run document, or the experiments measured now.
// A pass's time inside the program, where the records give it: "(before
// CUDA 0.12, set-up 0.05, profiler set-up 0.21, counting 0.12, at exit 0.03)".
std::string in_program_text(const json &pass) {
    if (!pass.contains("in_program") || !pass["in_program"].is_object()) return "";
    static const std::pair<const char *, const char *> kPhases[] = {
        {"before_cuda_s", "before CUDA"}, {"initialize_s", "set-up"}, {"profiler_setup_s", "profiler set-up"},
        {"counting_s", "counting"}, {"exit_s", "at exit"}};
    std::string out;
    for (const auto &[key, label] : kPhases)
        if (pass["in_program"].contains(key))
            out += (out.empty() ? "" : ", ") + std::string(label) + " " + fmt("%.2f", pass["in_program"][key].get<double>());
    return out.empty() ? "" : " (" + out + ")";
}

// The passes' times: each run of the program, and explain's own analysis.
std::string time_text(const json &passes) {
    std::string out = "trace " + fmt("%.2f", passes["trace"].value("seconds", 0.0)) + " s" + in_program_text(passes["trace"]) +
                      ", counters " + fmt("%.2f", passes["counters"].value("seconds", 0.0)) + " s" +
                      in_program_text(passes["counters"]);
    if (passes.contains("analysis")) out += ", analysis " + fmt("%.2f", passes["analysis"].value("seconds", 0.0)) + " s";
    return out;
}

std::string costs_from(const json &lab) {
    if (lab["run"].is_null()) return "none (" + lab.value("missing", "") + ")";
    std::string out = lab["run"].get<std::string>();
    const json measured = lab.value("measured", json::array());
    if (measured.empty()) return out;
    out += " on this GPU:";
    for (const auto &m : measured)
        out += " " + m.value("experiment", "") + " (" + fmt("%.2f", m.value("seconds", 0.0)) + " s)";
    return out;
}

void print_findings(std::ostringstream &o, const json &findings) {
    for (const auto &f : findings) {
        o << "   - " << f["title"].get<std::string>() << ": " << f["text"].get<std::string>();
        if (!f.value("launches", std::string()).empty()) o << " (" << f["launches"].get<std::string>() << ")";
        o << "\n";
        std::string ev;
        for (const auto &[k, v] : f["evidence"].items()) ev += (ev.empty() ? "" : ", ") + k + " " + fmt("%.4g", v.get<double>());
        o << "     evidence: " << ev << "\n";
        if (f["cost"]["found"].get<bool>())
            o << "     cost: " << f["cost"]["text"].get<std::string>() << " (" << f["cost"]["source"].get<std::string>()
              << measured_text(f["cost"]) << ")\n";
        else
            o << "     cost: not measured on this GPU: " << f["cost"]["missing"].get<std::string>() << "\n"
              << to_measure_text(f["cost"]);
        if (!f.value("limiting", true))
            o << "     present, not limiting: " << f.value("not_limiting", std::string()) << "\n";
        else if (!f["gain_ms"].is_null()) {
            o << "     estimated gain: up to " << fmt("%.3g", f["gain_ms"].get<double>()) << " ms";
            if (f.contains("gain_band") && f["gain_band"].is_object())
                o << " (within " << fmt("%.3g", f["gain_band"]["factor"].get<double>()) << "x: " << f["gain_band"]["why"].get<std::string>() << ")";
            o << "\n";
        }
        o << "     demonstrated by: gmlab run " << f["experiment"].get<std::string>();
        for (const auto &e : f.value("see_also", json::array())) o << ", gmlab run " << e.get<std::string>();
        o << "\n";
        o << "     fix: " << f["fix"].get<std::string>() << "\n";
    }
}

// "58.9 ms", "41.2 us": a launch's time in the unit that reads best.
std::string duration_text(double us) { return us >= 1000 ? fmt("%.3g", us / 1e3) + " ms" : fmt("%.3g", us) + " us"; }

std::string slowdown_summary(const Slowdown &s) {
    return "its " + std::to_string(s.traced_launches) + " traced launches took " + duration_text(s.traced_mean_us) +
           " on average (max " + duration_text(s.traced_max_us) + "), " + fmt("%.3g", s.traced_mean_us / s.counted_us) +
           "x the counted launch's " + duration_text(s.counted_us) + "; " + std::to_string(s.slow_launches) +
           " of them over " + fmt("%.0f", kSlowRatio) + "x (" + fmt("%.3g", s.excess_ms) + " ms above it in all)";
}

std::string slowdown_cause(const Slowdown &s, int device) {
    const double mib = 1024.0 * 1024.0;
    if (s.cause == "unified_memory") {
        std::string t = "faults: " + fmt("%.0f", s.gpu_page_faults) + " GPU page faults (" + fmt("%.0f", s.gpu_fault_groups) +
                        " fault groups) and " + fmt("%.3g", s.migrated_bytes / mib) + " MiB migrated to the device during its launches";
        if (s.driver_events > 0) t += ", and " + fmt("%.0f", s.driver_events) + " thrashing, throttling or remote-map events";
        return t + " (unified memory: see the whole program's findings)";
    }
    if (s.cause == "managed_memory")
        return "likely unified memory: " + fmt("%.3g", s.managed_bytes / mib) + " MiB of managed memory were allocated and "
               "nothing else overlaps its slow launches; no fault or migration record does either, but the driver can "
               "lose those records before CUPTI sees them";
    if (s.cause == "concurrent_kernels")
        return "contention: other kernels ran on device " + std::to_string(device) + " beside its slow launches for " +
               fmt("%.3g", s.concurrent_ms) + " ms of their " + fmt("%.3g", s.slow_ms) + " ms";
    if (s.cause == "first_launch")
        return "first launch: only its first traced launch is slow (first touch of newly allocated memory, cold caches and TLBs)";
    return "unexplained: no unified-memory fault, migration or driver event and no concurrent kernel overlaps its slow "
           "launches (clock changes, other processes on the GPU and preemption are not traced)";
}

// "unified memory: 12 GPU faults, 64 MiB to the device on demand (60 MiB beside kernels), 3 CPU faults".
std::string unified_memory_text(const json &rf) {
    const double mib = 1024.0 * 1024.0;
    std::string t = "unified memory: " + fmt("%.0f", rf.value("um_gpu_page_faults", 0.0)) + " GPU faults, " +
                    fmt("%.3g", rf.value("um_bytes_htod_on_demand", 0.0) / mib) + " MiB to the device on demand (" +
                    fmt("%.3g", rf.value("um_bytes_htod_in_kernels", 0.0) / mib) + " MiB beside kernels), " +
                    fmt("%.0f", rf.value("um_cpu_page_faults", 0.0)) + " CPU faults";
    const double driver = rf.value("um_thrashing", 0.0) + rf.value("um_throttling", 0.0) + rf.value("um_remote_map", 0.0);
    if (driver > 0) t += ", " + fmt("%.0f", driver) + " thrashing, throttling or remote-map events";
    if (rf.value("unrecorded_wait_ms", 0.0) > 0)
        t += ", " + fmt("%.3g", rf.value("unrecorded_wait_ms", 0.0)) + " ms of slow launches with managed memory and no record";
    return t;
}

// "   traced: ..." under a counted kernel whose traced launches were slow.
std::string slowdown_text(const json &k) {
    const json t = k.value("traced_vs_counted", json::object());
    if (t.value("slow_launches", 0) == 0) return "";
    return "   traced: " + t.value("text", std::string()) + "\n     likely cause: " + t.value("cause_text", std::string()) + "\n";
}

}  // namespace

std::string kernel_display_name(const json &kernel) {
    if (kernel.contains("short_name") && kernel["short_name"].is_string()) return kernel["short_name"].get<std::string>();
    return short_kernel_name(kernel.value("name", std::string()));
}

void add_short_names(json &doc) {
    if (!doc.contains("kernels") || !doc["kernels"].is_array()) return;
    std::vector<std::string> demangled;
    for (const auto &k : doc["kernels"]) {
        if (k.contains("short_name")) return;  // written with them
        const std::string name = k.value("name", std::string());
        if (std::find(demangled.begin(), demangled.end(), name) == demangled.end()) demangled.push_back(name);
    }
    const auto short_names = distinct_short_names(demangled);
    for (auto &k : doc["kernels"]) {
        const auto at = std::find(demangled.begin(), demangled.end(), k.value("name", std::string())) - demangled.begin();
        k["short_name"] = short_names[at];
    }
}

json slowdown_json(const Slowdown &s, int device) {
    const bool slow = s.slow_launches > 0;
    return {{"counted_us", s.counted_us},
            {"traced_launches", s.traced_launches},
            {"traced_mean_us", s.traced_mean_us},
            {"traced_max_us", s.traced_max_us},
            {"ratio", s.traced_mean_us / s.counted_us},
            {"max_ratio", s.traced_max_us / s.counted_us},
            {"threshold", kSlowRatio},
            {"slow_launches", s.slow_launches},
            {"slow_ms", s.slow_ms},
            {"excess_ms", s.excess_ms},
            {"cause", slow ? json(s.cause) : json(nullptr)},
            {"gpu_page_faults", s.gpu_page_faults},
            {"gpu_fault_groups", s.gpu_fault_groups},
            {"migrated_to_device_bytes", s.migrated_bytes},
            {"managed_bytes", s.managed_bytes},
            {"driver_events", s.driver_events},
            {"concurrent_ms", s.concurrent_ms},
            {"text", slow ? slowdown_summary(s) : ""},
            {"cause_text", slow ? slowdown_cause(s, device) : ""}};
}

std::string explanation_text(const json &doc) {
    std::ostringstream o;
    std::string command;
    for (const auto &a : doc["command"]) command += (command.empty() ? "" : " ") + a.get<std::string>();
    o << "gmlab explain: " << command << "\n";
    const json &prog = doc["program"];
    o << "GPU: " << doc["device"].value("name", "unknown") << "; program exit status " << prog["exit_status"].get<int>();
    if (prog.value("signal", 0)) o << " (signal " << prog["signal"].get<int>() << ")";
    o << "; " << prog["processes"].get<int>() << " CUDA process(es)\n";
    o << "costs from: " << costs_from(doc["lab"]) << "\n";
    o << "time: " << time_text(doc["passes"]) << "\n\n";
    o << "Kernels by total time (" << doc["kernels_total"].get<int>() << " kernels, "
      << fmt("%.3g", doc["run"]["figures"].value("kernel_ms", 0.0)) << " ms on the GPU):\n";
    for (const auto &k : doc["kernels"]) {
        o << "#" << k["rank"].get<int>() << " " << kernel_display_name(k);
        if (const std::string library = k.value("library", ""); !library.empty()) o << " (" << library << ")";
        o << "\n";
        if (const std::string site = call_site_text(k.value("call_site", json())); !site.empty())
            o << "   " << site << "\n";
        o << "   " << k["launches"].get<std::uint64_t>() << " launches, " << fmt("%.3g", k["total_ms"].get<double>())
          << " ms (" << fmt("%.0f", 100 * k["share_of_gpu_time"].get<double>()) << " % of kernel time), grid "
          << k["grid"][0] << "x" << k["grid"][1] << "x" << k["grid"][2] << ", block " << k["block"][0] << "x"
          << k["block"][1] << "x" << k["block"][2] << ", " << k["registers"] << " registers\n";
        if (!k.value("counted", false)) {
            o << "   not counted: " << k.value("not_counted", std::string("not among the kernels chosen")) << "\n";
            continue;
        }
        std::string counted;
        const json reported = k.value("reported", json::object());
        for (const auto &[name, v] : reported.items())
            counted += (counted.empty() ? "" : ", ") + name + " " + fmt("%.3g", v.get<double>());
        if (!counted.empty()) o << "   counted: " << counted << "\n";
        o << slowdown_text(k);
        if (k["findings"].empty()) o << "   no finding: every rule's condition was false on its counters\n";
        print_findings(o, k["findings"]);
        if (k.contains("gain_limited_to_ms"))
            o << "   together at most the kernel's own time: " << fmt("%.3g", k["gain_limited_to_ms"].get<double>()) << " ms\n";
        o << source_lines_text(k);
        for (const auto &n : k["not_evaluated"]) o << "   (not evaluated: " << n.get<std::string>() << ")\n";
    }
    o << "\nWhole program (host transfers, overlap, allocations, unified memory):\n";
    const json &rf = doc["run"]["figures"];
    o << "   " << fmt("%.0f", rf.value("copies", 0.0)) << " host copies, " << fmt("%.3g", rf.value("copy_bytes", 0.0) / 1e6)
      << " MB in " << fmt("%.3g", rf.value("copy_ms", 0.0)) << " ms (" << fmt("%.0f", rf.value("pageable_copies", 0.0))
      << " pageable, " << fmt("%.0f", rf.value("small_copies", 0.0)) << " under 256 KiB, "
      << fmt("%.0f", 100 * rf.value("copy_kernel_overlap_share", 0.0)) << " % beside kernels); "
      << fmt("%.0f", rf.value("device_allocs", 0.0)) << " device allocations (" << fmt("%.0f", rf.value("allocs_between_kernels", 0.0))
      << " between kernels); " << unified_memory_text(rf) << "\n";
    if (doc["run"]["findings"].empty()) o << "   no finding\n";
    print_findings(o, doc["run"]["findings"]);
    if (!doc["notes"].empty()) {
        o << "\nNotes:\n";
        for (const auto &n : doc["notes"]) o << "   " << n.get<std::string>() << "\n";
    }
    o << "\n" << doc["summary"]["findings"].get<int>() << " finding(s)";
    if (!doc["summary"]["estimated_gain_ms"].is_null())
        o << ", estimated gain up to " << fmt("%.3g", doc["summary"]["estimated_gain_ms"].get<double>()) << " ms";
    o << "\n";
    return o.str();
}

std::string check_explain_document(const json &doc) {
    if (!doc.is_object()) return "not a JSON object";
    if (doc.value("schema", "").rfind("gmlab.explain/1", 0) != 0) return "schema is not gmlab.explain/1.x";
    for (const char *k : {"command", "device", "program", "lab", "passes", "kernels", "run", "notes", "summary"})
        if (!doc.contains(k)) return std::string("field \"") + k + "\" is missing";
    for (const auto &k : doc["kernels"]) {
        for (const char *f : {"rank", "name", "launches", "total_ms", "counted"})
            if (!k.contains(f)) return std::string("a kernel has no \"") + f + "\"";
        if (!k.contains("lines")) continue;  // --lines only
        if (!k["lines"].is_array()) return "a kernel's \"lines\" is not an array";
        for (const auto &l : k["lines"])
            for (const char *f : {"file", "line", "issues", "text"})
                if (!l.contains(f)) return std::string("a source line has no \"") + f + "\"";
    }
    return "";
}

}  // namespace gmexplain
