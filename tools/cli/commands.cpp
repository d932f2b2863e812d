#include "commands.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>

#include <nlohmann/json.hpp>

#include "gmlab.h"
#include "children.hpp"
#include "devices.hpp"
#include "run_document.hpp"
#include "consistency.hpp"
#include "document.hpp"
#include "html_report.hpp"
#include "library_descriptions.hpp"
#include "table.hpp"
#include "text_report.hpp"
#ifdef GM_HAVE_UPLOAD
#include "upload.hpp"
#endif

namespace gmcli {

using gmreport::bytes_text;
using gmreport::fixed;
using gmreport::Table;

using nlohmann::json;

namespace {

// Takes ownership of a string the library returned.
std::string take(char *s) {
    std::string out = s ? s : "";
    gm_free_string(s);
    return out;
}

int report_error(gm_status s, const std::string &what, const char *message) {
    std::cerr << "gmlab: " << what << ": " << message << " (" << gm_status_string(s) << ")\n";
    return s == GM_ERROR_NO_DEVICE ? kNoDevice : s == GM_ERROR_INVALID_ARGUMENT || s == GM_ERROR_UNKNOWN_EXPERIMENT ? kUsage : kFailed;
}

struct ContextDeleter {
    void operator()(gm_context *c) const { gm_context_destroy(c); }
};
using ContextPtr = std::unique_ptr<gm_context, ContextDeleter>;

// Opens a context, or prints why not and sets *exit_code.
ContextPtr open_context(int device, int *exit_code) {
    gm_context *ctx = nullptr;
    gm_status s = gm_context_create(&ctx, device);
    if (s != GM_OK) {
        if (s == GM_ERROR_NO_DEVICE)
            std::cerr << "gmlab: " << gm_last_error() << "\n";
        else
            report_error(s, "cannot open device " + std::to_string(device), gm_last_error());
        *exit_code = s == GM_ERROR_NO_DEVICE ? kNoDevice : kFailed;
        return nullptr;
    }
    return ContextPtr(ctx);
}

std::string mib(const json &v) { return bytes_text(v.get<double>()); }

// An experiment's description from the library's descriptions, read once
// (tools/report/library_descriptions); null for a name the library lacks.
json describe(const std::string &name) {
    for (const auto &[known, d] : gmreport::library_descriptions())
        if (known == name) return d;
    return json();
}

std::vector<std::string> default_suite() {
    std::vector<std::string> names;
    for (size_t i = 0; i < gm_experiment_count(); ++i) {
        const std::string name = gm_experiment_name(i);
        if (describe(name).value("default_suite", false)) names.push_back(name);
    }
    return names;
}


std::string number_text(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, v == std::floor(v) && std::fabs(v) < 1e18 ? "%.0f" : "%g", v);
    return buf;
}

// A parameter value as a user would type it: lists of integers as ranges ("1..32").
std::string value_text(const json &v) {
    if (v.is_string()) return v.get<std::string>();
    if (!v.is_array()) return v.dump();
    std::string out;
    for (std::size_t i = 0; i < v.size();) {
        std::size_t j = i;
        if (v[i].is_number_integer())
            while (j + 1 < v.size() && v[j + 1].is_number_integer() && v[j + 1].get<long long>() == v[j].get<long long>() + 1) ++j;
        const std::string first = v[i].is_string() ? v[i].get<std::string>() : v[i].dump();
        out += (out.empty() ? "" : ",") + (j > i + 1 ? first + ".." + v[j].dump() : first);
        i = j > i + 1 ? j + 1 : i + 1;
    }
    return out;
}

// The device block's host_link as one line: "PCIe 5.0 x16, 63.0 GB/s per direction (nvml)".
std::string host_link_text(const json &d) {
    if (!d.contains("host_link") || !d["host_link"].is_object()) return "not reported";
    const json &l = d["host_link"];
    if (!l.contains("theoretical_gbs")) return "not known: " + l.value("reason", std::string("no reason given"));
    const std::string gbs = fixed(l["theoretical_gbs"].get<double>(), 1) + " GB/s";
    const std::string src = " (" + l.value("source", std::string("?")) + ")";
    if (l.value("type", "") == "pcie") {
        std::string t = "PCIe " + std::to_string(l.value("generation", 0)) + ".0 x" + std::to_string(l.value("width", 0)) +
                        ", " + gbs + " per direction" + src;
        if (l.contains("current_generation") && l.value("current_generation", 0) != l.value("generation", 0))
            t += "; now trained at " + std::to_string(l.value("current_generation", 0)) + ".0 x" +
                 std::to_string(l.value("current_width", 0)) + " (idle links train down)";
        return t;
    }
    return "NVLink-C2C, " + std::to_string(l.value("links", 0)) + " links, " + gbs + src;
}

bool progress_enabled() { return isatty(STDERR_FILENO) != 0; }

void print_result(const json &r) { gmreport::write_result_text(std::cout, r, false); }

// Splits the --set options into per-experiment JSON objects. A bare name goes
// to every selected experiment that has that parameter; "exp.name" to one.
bool build_params(const std::vector<std::string> &experiments, const std::vector<std::string> &sets,
                  std::map<std::string, json> *out) {
    std::map<std::string, std::set<std::string>> known;
    for (const auto &e : experiments) {
        (*out)[e] = json::object();
        const json d = describe(e);  // kept alive for the loop
        for (const json &p : d["parameters"]) known[e].insert(p["name"].get<std::string>());
    }
    for (const std::string &s : sets) {
        const auto eq = s.find('=');
        if (eq == std::string::npos || eq == 0) {
            std::cerr << "gmlab: --set wants name=value, got '" << s << "'\n";
            return false;
        }
        std::string name = s.substr(0, eq), text = s.substr(eq + 1), only;
        if (const auto dot = name.find('.'); dot != std::string::npos) {
            only = name.substr(0, dot);
            name = name.substr(dot + 1);
            if (!out->count(only)) {
                std::cerr << "gmlab: --set " << s << ": experiment '" << only << "' is not being run\n";
                return false;
            }
        }
        // Values go to the library as text (it parses lists, sizes and numbers by
        // the parameter's type), except literal JSON arrays.
        json value = text;
        if (!text.empty() && text[0] == '[') {
            value = json::parse(text, nullptr, false);
            if (value.is_discarded()) {
                std::cerr << "gmlab: --set " << s << ": not a JSON array\n";
                return false;
            }
        }
        bool used = false;
        for (auto &[exp, params] : *out) {
            if ((only.empty() || exp == only) && known[exp].count(name)) {
                params[name] = value;
                used = true;
            }
        }
        if (!used) {
            std::cerr << "gmlab: --set " << s << ": no experiment being run has a parameter '" << name
                      << "' (see gmlab describe EXP)\n";
            return false;
        }
    }
    return true;
}

bool apply_settings(gm_context *ctx, const RunOptions &opt) {
    // Raise the repetition cap first, so that any min/max pair the user gives
    // is accepted in one order; the requested cap is set last.
    const std::pair<gm_setting, std::optional<double>> values[] = {
        {GM_SETTING_MAX_REPETITIONS, opt.min_repetitions ? std::optional<double>(100000) : std::nullopt},
        {GM_SETTING_MIN_REPETITIONS, opt.min_repetitions},
        {GM_SETTING_MAX_REPETITIONS, opt.max_repetitions ? opt.max_repetitions
                                                         : (opt.min_repetitions ? std::optional<double>(std::max(100.0, *opt.min_repetitions)) : std::nullopt)},
        {GM_SETTING_WARMUP, opt.warmup},
        {GM_SETTING_MIN_TIME_MS, opt.min_time_ms},
        {GM_SETTING_MEMORY_FRACTION, opt.memory_fraction},
        {GM_SETTING_FLUSH_L2, opt.no_flush_l2 ? std::optional<double>(0) : std::nullopt},
        {GM_SETTING_COUNTERS, opt.counters == "off"  ? std::optional<double>(GM_COUNTERS_OFF)
                              : opt.counters == "on" ? std::optional<double>(GM_COUNTERS_ON)
                                                     : std::optional<double>(GM_COUNTERS_AUTO)}};
    for (const auto &[which, value] : values) {
        if (!value) continue;
        if (gm_context_set(ctx, which, *value) != GM_OK) {
            std::cerr << "gmlab: " << gm_context_last_error(ctx) << "\n";
            return false;
        }
    }
    return true;
}

bool write_file(const std::string &path, const std::string &text) {
    std::ofstream f(path, std::ios::binary);
    f << text;
    f.close();
    if (!f) {
        std::cerr << "gmlab: cannot write " << path << "\n";
        return false;
    }
    return true;
}

}  // namespace

namespace {

// Whether the context can read hardware counters, and why not.
json counters_status(gm_context *ctx) {
    int available = 0;
    char *reason = nullptr;
    const gm_status s = gm_counters_available(&available, &reason, ctx);
    json out = {{"available", s == GM_OK && available != 0}};
    const std::string why = s == GM_OK ? take(reason) : std::string(gm_context_last_error(ctx));
    if (!out["available"].get<bool>()) out["reason"] = why;
    return out;
}

}  // namespace

int cmd_info(int device, bool as_json, bool measure) {
    int code = kOk;
    ContextPtr ctx = open_context(device, &code);
    if (!ctx) return code;
    char *out = nullptr;
    if (gm_status s = gm_device_info_json(&out, ctx.get()); s != GM_OK) return report_error(s, "info", gm_context_last_error(ctx.get()));
    json d = json::parse(take(out));
    d["counters"] = counters_status(ctx.get());
    if (as_json) {
        if (measure)
            if (int rc = print_measured(ctx.get(), &d, true); rc != kOk) return rc;
        std::cout << d.dump(2) << "\n";
        return kOk;
    }
    std::cout << d["name"].get<std::string>() << " (device " << d["ordinal"] << ", compute capability "
              << d["compute_capability"].get<std::string>() << ", " << d["multiprocessors"] << " multiprocessors)\n"
              << "driver " << d["driver_version"].get<std::string>() << " (CUDA " << d["driver_cuda_version"].get<std::string>()
              << "), runtime " << d["runtime_version"].get<std::string>() << "\n\n";
    Table t({"memory space", "value"}, false);
    t.add({"global memory", mib(d["global_memory_bytes"]) + " (" + mib(d["free_memory_bytes"]) + " free)"});
    t.add({"L2 cache", mib(d["l2_cache_bytes"])});
    t.add({"persisting L2, max set-aside", mib(d["persisting_l2_max_bytes"])});
    t.add({"access policy window, max", mib(d["access_policy_max_window_bytes"])});
    t.add({"shared memory per block", mib(d["shared_memory_per_block_bytes"])});
    t.add({"shared memory per block (opt-in)", mib(d["shared_memory_per_block_optin_bytes"])});
    t.add({"shared memory per multiprocessor", mib(d["shared_memory_per_multiprocessor_bytes"])});
    t.add({"constant memory", mib(d["constant_memory_bytes"])});
    t.add({"registers per multiprocessor", std::to_string(d["registers_per_multiprocessor"].get<int>()) + " x 32-bit"});
    t.add({"registers per block", std::to_string(d["registers_per_block"].get<int>()) + " x 32-bit"});
    t.add({"memory bus width", std::to_string(d["memory_bus_width_bits"].get<int>()) + " bits"});
    t.add({"memory clock", fixed(d["memory_clock_mhz"].get<double>(), 0) + " MHz"});
    t.add({"theoretical bandwidth", fixed(d["theoretical_bandwidth_gbs"].get<double>(), 1) + " GB/s"});
    t.add({"host link", host_link_text(d)});
    t.add({"SM clock", fixed(d["sm_clock_mhz"].get<double>(), 0) + " MHz"});
    t.add({"ECC", d["ecc_enabled"].get<bool>() ? "enabled" : "disabled"});
    t.add({"integrated", d["integrated"].get<bool>() ? "yes" : "no"});
    t.add({"hardware counters", d["counters"]["available"].get<bool>() ? "available (CUPTI range profiler)" : "not available"});
    t.print(std::cout);
    if (!d["counters"]["available"].get<bool>())
        std::cout << "\nhardware counters are not available: " << d["counters"]["reason"].get<std::string>() << "\n";
    if (measure) return print_measured(ctx.get(), &d, false);
    return kOk;
}

int cmd_list() {
    Table t({"experiment", "default", "summary"});
    for (size_t i = 0; i < gm_experiment_count(); ++i) {
        const json d = describe(gm_experiment_name(i));
        t.add({d["name"].get<std::string>(), d["default_suite"].get<bool>() ? "yes" : "", d["summary"].get<std::string>()});
    }
    t.print(std::cout, "");
    return kOk;
}

namespace {

// The resources of the experiment's kernels on `device`, or null with the reason
// in *why when there is no device (describe works without one).
json kernel_resources(const std::string &experiment, int device, std::string *why) {
    gm_context *raw = nullptr;
    if (gm_status s = gm_context_create(&raw, device); s != GM_OK) {
        *why = gm_last_error();
        return json();
    }
    ContextPtr ctx(raw);
    char *out = nullptr;
    if (gm_kernel_resources_json(&out, ctx.get(), experiment.c_str()) != GM_OK) {
        *why = gm_context_last_error(ctx.get());
        return json();
    }
    return json::parse(take(out));
}

void print_kernels(const json &d, const json &resources, const std::string &why) {
    std::cout << "\nkernels";
    if (resources.is_null()) {
        std::cout << " (registers, shared, local and constant bytes need a CUDA device: " << why << ")\n";
        for (const json &k : d["kernels"]) std::cout << "  " << k.get<std::string>() << "\n";
        return;
    }
    std::cout << " on " << resources["device"].get<std::string>() << " (compute capability "
              << resources["compute_capability"].get<std::string>() << "), from cudaFuncGetAttributes\n";
    Table t({"kernel", "registers", "shared (static)", "local", "constant", "max threads/block"});
    for (const json &k : resources["kernels"])
        t.add({k["name"].get<std::string>(), k["registers"].dump(), k["shared_static_bytes"].dump() + " B",
               k["local_bytes"].dump() + " B", k["constant_bytes"].dump() + " B", k["max_threads_per_block"].dump()});
    t.print(std::cout, "  ");
}

// The axes the experiment sweeps, outermost first, and how many points their
// defaults make: "sweeps: word_sizes (1) x variants (2) x offsets (33, x): 66 points".
void print_axes(const json &d) {
    if (!d.contains("axes") || d["axes"].empty()) return;
    std::string line;
    long long points = 1;
    for (const json &a : d["axes"]) {
        const long long n = a.value("default_values", 0LL);
        points *= n;
        line += (line.empty() ? "" : " x ") + a.value("name", std::string()) + " (" + std::to_string(n) +
                (a.value("x", false) ? ", x" : "") + ")";
    }
    std::cout << "\nsweeps: " << line << ": " << points << " point" << (points == 1 ? "" : "s") << " with the defaults\n";
}

}  // namespace

int cmd_describe(const std::string &experiment, bool as_json, int device) {
    char *out = nullptr;
    if (gm_status s = gm_experiment_describe_json(&out, experiment.c_str()); s != GM_OK)
        return report_error(s, "describe", gm_last_error());
    json d = json::parse(take(out));
    std::string why;
    const json resources = kernel_resources(experiment, device, &why);
    if (as_json) {
        if (!resources.is_null()) d["kernel_resources"] = resources;
        std::cout << d.dump(2) << "\n";
        return kOk;
    }
    std::cout << d["name"].get<std::string>() << ": " << d["summary"].get<std::string>() << "\n"
              << "guide: " << d["guide_section"].get<std::string>() << "\n"
              << "in the default suite: " << (d["default_suite"].get<bool>() ? "yes" : "no") << "\n\nparameters (gmlab run "
              << d["name"].get<std::string>() << " --set name=value)\n";
    Table t({"name", "type", "default", "allowed", "description"});
    for (const json &p : d["parameters"]) {
        std::string allowed;
        if (p.contains("allowed")) {
            for (const auto &v : p["allowed"]) allowed += (allowed.empty() ? "" : ",") + v.dump();
        } else if (p.contains("choices")) {
            for (const auto &v : p["choices"]) allowed += (allowed.empty() ? "" : ",") + v.get<std::string>();
        } else if (p.contains("min")) {
            allowed = number_text(p["min"].get<double>()) + ".." + number_text(p["max"].get<double>());
            if (p.contains("multiple_of")) allowed += ", multiple of " + p["multiple_of"].dump();
        }
        std::string def = value_text(p["default"]);
        if (p["type"] == "size" && p["default"] == 0) def = "0 (auto)";
        t.add({p["name"].get<std::string>(), p["type"].get<std::string>(), def, allowed, p["description"].get<std::string>()});
    }
    t.print(std::cout, "  ");
    print_axes(d);
    print_kernels(d, resources, why);
    return kOk;
}

namespace {

// --upload is checked before anything runs, so that a bad URL or a build
// without libcurl does not cost a whole suite.
bool check_upload_option(const std::string &url) {
    if (url.empty()) return true;
#ifdef GM_HAVE_UPLOAD
    if (const std::string why = gmupload::check_server_url(url); !why.empty()) {
        std::cerr << "gmlab: --upload: " << why << "\n";
        return false;
    }
    return true;
#else
    std::cerr << "gmlab: --upload is not available: this gmlab was built without libcurl "
                 "(configure with -DGM_BUILD_UPLOAD=ON)\n";
    return false;
#endif
}

// Sends the run the way gmlab-upload does: prepared, retried, spooled when
// the server cannot be reached. Returns an Exit code of gmlab.
int upload_run(const json &run, const std::string &url) {
#ifdef GM_HAVE_UPLOAD
    try {
        const gmupload::Prepared p = gmupload::prepare(run, "the run");
        gmupload::SendOptions send;
        send.server = url;
        send.log = &std::cerr;
        const int code = gmupload::upload(p, send, gmupload::default_spool_dir(), std::cout, std::cerr);
        return code == gmupload::kOk ? kOk : kFailed;
    } catch (const std::exception &e) {
        std::cerr << "gmlab: upload: " << e.what() << "\n";
        return kFailed;
    }
#else
    (void)run;
    (void)url;
    return kUsage;
#endif
}

}  // namespace

// --quick: a smoke check. Settings the user did not give become one warm-up
// and three timed launches with no minimum time.
RunOptions quick_options(RunOptions opt) {
    if (!opt.quick) return opt;
    if (!opt.warmup) opt.warmup = 1;
    if (!opt.min_repetitions) opt.min_repetitions = 3;
    if (!opt.max_repetitions) opt.max_repetitions = std::max(3.0, *opt.min_repetitions);
    if (!opt.min_time_ms) opt.min_time_ms = 0;
    return opt;
}

int run_on_device(const RunOptions &given, json *run_doc) {
    const RunOptions opt = quick_options(given);
    if (opt.quick && !opt.upload_url.empty()) {
        std::cerr << "gmlab: --quick and --upload do not go together: a quick run is a smoke check whose figures are "
                     "not comparable; upload a standard run\n";
        return kUsage;
    }
    if (!check_upload_option(opt.upload_url)) return kUsage;
    std::vector<std::string> names = opt.experiments.empty() ? default_suite() : opt.experiments;
    for (const std::string &skip : opt.skip) names.erase(std::remove(names.begin(), names.end(), skip), names.end());
    for (const auto &n : names) {
        if (describe(n).is_null()) {
            char *unused = nullptr;
            gm_experiment_describe_json(&unused, n.c_str());
            return report_error(GM_ERROR_UNKNOWN_EXPERIMENT, "run", gm_last_error());
        }
    }
    if (opt.min_repetitions && opt.max_repetitions && *opt.min_repetitions > *opt.max_repetitions) {
        std::cerr << "gmlab: --min-repetitions (" << *opt.min_repetitions << ") must not exceed --max-repetitions ("
                  << *opt.max_repetitions << ")\n";
        return kUsage;
    }
    std::map<std::string, json> params;
    if (!build_params(names, opt.sets, &params)) return kUsage;
    if (opt.quick)  // the experiment's quick parameters, under what --set gives
        for (auto &[name, p] : params) {
            json merged = describe(name).value("quick_parameters", json::object());
            merged.update(p);
            p = std::move(merged);
        }
    // Check every experiment's parameters before the first one runs.
    for (const auto &n : names) {
        char *resolved = nullptr;
        if (gm_status s = gm_experiment_resolve_params(&resolved, n.c_str(), params[n].dump().c_str()); s != GM_OK)
            return report_error(s, n, gm_last_error());
        params[n] = json::parse(take(resolved));  // the run gets what was checked, every parameter named

    }
    int code = kOk;
    ContextPtr ctx = open_context(opt.device, &code);
    if (!ctx) return code;
    if (!apply_settings(ctx.get(), opt)) return kUsage;
    if (opt.counters == "on") {
        // Asked for: say at once when they cannot be had, before anything runs.
        const json c = counters_status(ctx.get());
        if (!c["available"].get<bool>()) {
            std::cerr << "gmlab: --counters on: hardware counters are not available: " << c["reason"].get<std::string>() << "\n";
            return kUsage;
        }
    }

    char *info = nullptr;
    if (gm_status s = gm_device_info_json(&info, ctx.get()); s != GM_OK) return report_error(s, "info", gm_context_last_error(ctx.get()));
    const json device = json::parse(take(info));
    std::cout << "gmlab " << gm_version() << " on " << device["name"].get<std::string>() << " (device " << opt.device << ", compute capability "
              << device["compute_capability"].get<std::string>() << ", theoretical "
              << fixed(device["theoretical_bandwidth_gbs"].get<double>(), 1) << " GB/s, L2 " << mib(device["l2_cache_bytes"]) << ")\n";

    std::vector<json> results;
    json settings;
    int failures = 0;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (progress_enabled()) std::cerr << "[" << i + 1 << "/" << names.size() << "] running " << names[i] << " ...\n";
        gm_result *r = nullptr;
        gm_status s = gm_run(&r, ctx.get(), names[i].c_str(), params[names[i]].dump().c_str());
        if (s == GM_ERROR_NOT_SUPPORTED && opt.experiments.empty()) {
            // The default suite takes what the device can do; naming an
            // experiment the device cannot run is still an error.
            std::cout << "\n== " << names[i] << " skipped: " << gm_context_last_error(ctx.get()) << "\n";
            continue;
        }
        if (s != GM_OK) {
            report_error(s, names[i], gm_context_last_error(ctx.get()));
            ++failures;
            if (s == GM_ERROR_CUDA && std::string(gm_context_last_error(ctx.get())).find("sticky") != std::string::npos) break;
            continue;
        }
        char *text = nullptr;
        gm_result_to_json_samples(&text, r, opt.samples == "all" ? GM_SAMPLES_ALL : GM_SAMPLES_SUMMARY);
        gm_result_destroy(r);
        json doc = json::parse(take(text));
        // Rounded before anything is printed or written, so that the tables,
        // CSV, HTML and JSON of a run all show the same numbers.
        if (opt.samples != "all") round_to_significant_digits(doc);
        if (opt.quick) doc["quick"] = true;
        settings = doc["settings"];
        print_result(doc);
        std::cout.flush();  // each experiment's table as soon as it is measured
        results.push_back(std::move(doc));
    }
    if (results.empty()) return failures ? kFailed : kOk;
    // One run document for every output, with the consistency section: the
    // same quantity as the run's experiments measured it, side by side.
    json run = make_run_document(device, settings, results, opt.command_line);
    run["consistency"] = gmreport::consistency(run);
    if (!run["consistency"]["groups"].empty() || results.size() > 1)
        gmreport::write_consistency_text(std::cout, run["consistency"], false);
    gmreport::write_gpu_state_summary(std::cout, run, false);
    std::cout.flush();
    if (run_doc) *run_doc = run;
    // Whatever finished is written, even when a later experiment failed.
    if (!opt.json_file.empty()) {
        if (!write_file(opt.json_file, run.dump(2) + "\n")) return kFailed;
        std::cerr << "gmlab: wrote " << opt.json_file << "\n";
    }
    if (!opt.html_file.empty()) {
        try {
            gmreport::write_atomically(opt.html_file, gmreport::html_report(run));
            std::cerr << "gmlab: wrote " << opt.html_file << "\n";
        } catch (const gmreport::ReportError &e) {
            std::cerr << "gmlab: " << e.what() << "\n";
            return kFailed;
        }
    }
    if (!opt.csv_file.empty()) {
        if (!write_file(opt.csv_file, results_csv(results))) return kFailed;
        std::cerr << "gmlab: wrote " << opt.csv_file << "\n";
    }
    if (!opt.upload_url.empty()) {
        if (const int code = upload_run(run, opt.upload_url); code != kOk) return code;
    }
    return failures ? kFailed : kOk;
}

int choose_devices(const RunOptions &opt, std::vector<int> *ordinals) {
    // The list's form first (a device named twice, not a number), with or without a GPU.
    if (!opt.devices.empty()) {
        const DeviceSelection form = select_devices(opt.devices, 1 << 20, [](const char *name) { return std::getenv(name); });
        if (!form.error.empty()) {
            std::cerr << "gmlab: " << form.error << "\n";
            return kUsage;
        }
    }
    int visible = 0;
    if (gm_device_count(&visible) != GM_OK || visible <= 0) {
        // No device at all: the run itself says so (after checking its arguments).
        *ordinals = {0};
        return kOk;
    }
    const DeviceSelection sel = select_devices(opt.devices, visible, [](const char *name) { return std::getenv(name); });
    if (!sel.error.empty()) {
        std::cerr << "gmlab: " << sel.error << "\n";
        return sel.no_such_device ? kNoSuchDevice : kUsage;
    }
    if (sel.ordinals.size() > 1) {
        const std::pair<const char *, const std::string *> files[] = {
            {"--json", &opt.json_file}, {"--csv", &opt.csv_file}, {"--html", &opt.html_file}};
        for (const auto &[flag, name] : files) {
            if (!name->empty() && !has_device_placeholder(*name)) {
                std::cerr << "gmlab: " << flag << " " << *name << " names one file for " << sel.ordinals.size()
                          << " devices: put {device} in it (" << flag << " run-{device}.json)\n";
                return kUsage;
            }
        }
    }
    if (!sel.why.empty()) std::cerr << "gmlab: measuring " << sel.why << "\n";
    *ordinals = sel.ordinals;
    return kOk;
}

namespace {

// gmlab run --parallel: one child per device at once; a summary per device after.
// peer, in a parallel run: it copies between every pair of the devices, so
// it is measured once, after the others, on the first device, into its own
// files ({device} in their names becomes "peer").
int run_peer_after(const RunOptions &opt, const std::vector<int> &ordinals) {
    RunOptions one = opt;
    one.parallel = false;
    one.experiments = {"peer"};
    one.device = ordinals[0];
    for (std::string *file : {&one.json_file, &one.csv_file, &one.html_file})
        for (std::size_t pos; (pos = file->find("{device}")) != std::string::npos;) file->replace(pos, 8, "peer");
    // Only what --set gives peer; its peers are the devices of this run.
    std::set<std::string> peer_params;
    for (const json &p : describe("peer")["parameters"]) peer_params.insert(p["name"].get<std::string>());
    one.sets.clear();
    bool peers_given = false;
    for (const std::string &s : opt.sets) {
        const std::string name = s.substr(0, s.find('='));
        const std::string bare = name.rfind("peer.", 0) == 0 ? name.substr(5) : name;
        if (name.find('.') != std::string::npos && name.rfind("peer.", 0) != 0) continue;
        if (!peer_params.count(bare)) continue;
        one.sets.push_back(s);
        peers_given = peers_given || bare == "peers";
    }
    if (!peers_given) {
        std::string list;
        for (std::size_t i = 1; i < ordinals.size(); ++i) list += (list.empty() ? "" : ",") + std::to_string(ordinals[i]);
        one.sets.push_back("peer.peers=[" + list + "]");
    }
    std::cout << "\npeer, once for the " << ordinals.size() << " devices, on device " << ordinals[0] << ":\n";
    return run_on_device(one, nullptr);
}

int run_parallel(const RunOptions &opt, const std::vector<int> &ordinals) {
    const std::vector<std::string> selected = opt.experiments.empty() ? default_suite() : opt.experiments;
    const bool peer = std::find(selected.begin(), selected.end(), "peer") != selected.end();
    std::vector<ChildSpec> children;
    for (int d : ordinals) {
        children.push_back({d, child_run_arguments(opt.argv, d)});
        if (peer) children.back().args.insert(children.back().args.end(), {"--skip", "peer"});
    }
    std::cerr << "gmlab: measuring " << ordinals.size() << " devices at once, one process each (host-link figures share the host)\n";
    const auto start = std::chrono::steady_clock::now();
    const std::vector<ChildOutcome> outcome = run_children(children, 0, std::cout);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    int result = kOk;
    std::cout << "\nparallel run of " << ordinals.size() << " devices, " << fixed(wall, 1) << " s:\n";
    for (std::size_t i = 0; i < ordinals.size(); ++i) {
        const int code = outcome[i].exit_code < 0 ? kFailed : outcome[i].exit_code;
        std::cout << "  device " << ordinals[i] << ": " << (code == kOk ? "ok" : "exit " + std::to_string(code))
                  << (outcome[i].why.empty() ? "" : " (" + outcome[i].why + ")");
        if (!opt.json_file.empty()) std::cout << ", " << expand_device_placeholder(opt.json_file, ordinals[i]);
        std::cout << "\n";
        if (result == kOk) result = code;
    }
    if (peer) {
        const int code = run_peer_after(opt, ordinals);
        if (result == kOk) result = code;
    }
    return result;
}

}  // namespace

int cmd_run(const RunOptions &opt) {
    std::vector<int> ordinals;
    if (const int code = choose_devices(opt, &ordinals); code != kOk) return code;
    if (opt.parallel && ordinals.size() > 1) return run_parallel(opt, ordinals);
    // One device after the other (never at once: they would share the host's
    // memory bandwidth and PCIe root); the first failure is the exit code.
    int result = kOk;
    for (int d : ordinals) {
        RunOptions one = opt;
        one.device = d;
        for (std::string *file : {&one.json_file, &one.csv_file, &one.html_file}) *file = expand_device_placeholder(*file, d);
        const int code = run_on_device(one, nullptr);
        if (result == kOk) result = code;
        if (code == kUsage || code == kNoDevice) break;  // the same for every device
    }
    return result;
}

}  // namespace gmcli
