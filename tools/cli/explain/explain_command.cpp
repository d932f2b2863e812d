#include "explain_command.hpp"

#include <fstream>
#include <iostream>
#include <map>
#include <set>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "explain_html.hpp"
#include "gmlab_explain.h"

namespace gmcli {

CLI::App *add_explain_command(CLI::App &app, ExplainOptions &o) {
    auto *e = app.add_subcommand(
        "explain",
        "run a CUDA program (unmodified) and diagnose its kernels' memory behaviour with gmlab's experiments on this GPU:\n"
        "gmlab explain [options] -- PROGRAM [ARGS...]\n"
        "Exit codes: the program's own non-zero status; else 0, 2 bad usage, 20 program not found, 21 not executable,\n"
        "22 script without its interpreter, 23 not a CUDA program, 24 no kernel launched, 25 --kernel-regex matched\n"
        "nothing, 26 injection library or CUPTI unavailable, 27 explain failed");
    e->add_option("command", o.command, "the program and its arguments, after --");
    e->add_option("--kernels", o.kernels, "how many of the longest kernels are counted (default 5)");
    e->add_option("--kernel-regex", o.kernel_regex, "count only kernels whose (demangled) name matches");
    e->add_option("--launch-skip", o.launch_skip, "launches of each kernel left alone before counting (default 0)");
    e->add_option("--launch-count", o.launch_count, "launches of each kernel counted (default 1)");
    e->add_option("--passes", o.passes,
                  "1 (default): trace and count the first launches of every kernel in one run of the program (a second "
                  "run only for chosen kernels it did not count); 2: trace, then count the longest kernels in a second run");
    e->add_option("--replay", o.replay,
                  "kernel (default: each counted launch is replayed, its memory saved and restored); application: the "
                  "program runs once per one-pass group of metrics, each launch once, the runs joined (implies --passes 2; "
                  "kernels whose runs differ are counted with kernel replay)");
    e->add_option("--counters", o.counters, "on (default): pass 2 counts the chosen kernels; off: the trace only")
        ->check(CLI::IsMember({"on", "off"}));
    e->add_flag("--lines", o.lines,
                "pass 3: run the program once more and name the source lines of the chosen kernels whose global "
                "accesses use more sectors than ideal, whose shared accesses conflict, or that use local memory "
                "(CUPTI's SASS metrics; build the program with nvcc -lineinfo)");
    e->add_option("--json", o.json_file, "write the explanation (schema gmlab.explain/1) to this file");
    e->add_option("--html", o.html_file,
                  "write a self-contained page: each finding beside its experiment's chart from the lab run, the kernel's point marked");
    e->add_option("--lab-run", o.lab_run,
                  "the gmlab run document (gmlab run --json) of this GPU model the costs are read from "
                  "(default: the newest one in $XDG_STATE_HOME/gmlab/runs or GMLAB_RUNS_DIR)");
    e->add_flag("--measure", o.measure_always,
                "measure the costs now: run the experiments the findings name (at small sizes) through libgmlab on this "
                "GPU, even where a run document exists (by default they are measured only where none of this GPU model "
                "is found)");
    e->add_flag("--no-measure", o.measure_never, "never measure costs on the spot: read them from a run document only");
    e->add_option("--rules", o.rules_dir, "a folder of rule files to use instead of the built-in ones");
    e->add_option("--records", o.records_dir, "keep the passes' records in this folder");
    e->add_option("--from-records", o.from_records, "explain records kept with --records; runs nothing");
    e->add_flag("--session-env", o.session_env,
                "print what an in-process session needs (the Python binding's explain.session()) as KEY=VALUE lines");
    return e;
}

int cmd_explain(const ExplainOptions &o) {
    std::vector<const char *> argv;
    for (const auto &a : o.command) argv.push_back(a.c_str());
    gm_explain_options opt;
    gm_explain_options_init(&opt);
    opt.argv = argv.data();
    opt.argc = static_cast<int>(argv.size());
    opt.kernels = o.kernels;
    opt.kernel_regex = o.kernel_regex.c_str();
    opt.launch_skip = o.launch_skip;
    opt.launch_count = o.launch_count;
    opt.replay = o.replay.c_str();
    opt.passes = o.passes;
    opt.counters = o.counters == "on";
    if (!o.lab_run.empty()) opt.lab_run = o.lab_run.c_str();
    if (!o.rules_dir.empty()) opt.rules_dir = o.rules_dir.c_str();
    if (!o.records_dir.empty()) opt.records_dir = o.records_dir.c_str();
    if (!o.from_records.empty()) opt.from_records = o.from_records.c_str();
    if (o.measure_always && o.measure_never) {
        std::cerr << "gmlab explain: --measure and --no-measure contradict each other\n";
        return 2;
    }
    opt.lines = o.lines;
    if (o.measure_always) opt.measure = 2;
    if (o.measure_never) opt.measure = 0;
    gm_explain *e = nullptr;
    // The command exits with explain's code (the status says only which kind of failure it was).
    if (o.session_env) gm_explain_session(&e, &opt);
    else gm_explain_program(&e, &opt);
    const int code = e ? gm_explain_exit_code(e) : kExplainFailedCode;
    const std::string message = gm_explain_message(e), json = gm_explain_json(e), text = gm_explain_text(e);
    gm_explain_destroy(e);
    if (!message.empty()) std::cerr << "gmlab explain: " << message << "\n";
    if (!text.empty()) std::cout << text << std::flush;
    if (!o.json_file.empty() && !json.empty()) {
        std::ofstream out(o.json_file);
        out << json << "\n";
        if (!out) {
            std::cerr << "gmlab explain: cannot write " << o.json_file << "\n";
            return code ? code : kExplainFailedCode;
        }
    }
    if (!o.html_file.empty() && !json.empty()) {
        try {
            std::ofstream out(o.html_file);
            out << explanation_html(nlohmann::json::parse(json));
            if (!out) throw std::runtime_error("cannot write " + o.html_file);
        } catch (const std::exception &e) {
            std::cerr << "gmlab explain: --html: " << e.what() << "\n";
            return code ? code : kExplainFailedCode;
        }
    }
    return code;
}

}  // namespace gmcli

namespace gmcli {

namespace {

// The explanation document at `path`, checked by the library (gm_explain_open).
bool load_explanation(const std::string &path, nlohmann::json *doc, std::string *text) {
    gm_explain *e = nullptr;
    const bool ok = gm_explain_open(&e, path.c_str()) == GM_OK;
    const std::string message = gm_explain_message(e);
    if (ok) {
        *doc = nlohmann::json::parse(gm_explain_json(e));
        if (text) *text = gm_explain_text(e);
    }
    gm_explain_destroy(e);
    if (!ok) std::cerr << "gmlab: " << message << "\n";
    return ok;
}

std::set<std::string> rules_of(const nlohmann::json &kernel) {
    std::set<std::string> out;
    for (const auto &f : kernel.value("findings", nlohmann::json::array())) out.insert(f["rule"].get<std::string>());
    return out;
}

// The name a person reads for a kernel of A, B or both: its short name, as A
// gives it (gm_explain_open gives every kernel one).
std::string shown_name(const nlohmann::json *a, const nlohmann::json *b, const std::string &name) {
    for (const nlohmann::json *k : {a, b})
        if (k && k->contains("short_name") && (*k)["short_name"].is_string()) return (*k)["short_name"].get<std::string>();
    return name;
}

std::string joined(const std::set<std::string> &s) {
    std::string out;
    for (const auto &x : s) out += (out.empty() ? "" : ", ") + x;
    return out.empty() ? "none" : out;
}

}  // namespace

bool is_explain_document(const std::string &path) {
    // The keys are written in order, so "schema" may come after the kernels: read it all.
    std::ifstream in(path);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return text.find("\"schema\": \"gmlab.explain/") != std::string::npos ||
           text.find("\"schema\":\"gmlab.explain/") != std::string::npos;
}

int cmd_explain_report(const std::string &path) {
    nlohmann::json doc;
    std::string text;
    if (!load_explanation(path, &doc, &text)) return kExplainFailedCode;
    std::cout << text;
    return 0;
}

int cmd_explain_compare(const std::string &a, const std::string &b) {
    nlohmann::json before, after;
    if (!load_explanation(a, &before, nullptr) || !load_explanation(b, &after, nullptr)) return kExplainFailedCode;
    std::cout << "gmlab compare: explanation A " << a << ", B " << b << " (" << after["device"].value("name", "") << ")\n";
    // Kernels are matched by their whole demangled name: two short names may be alike.
    std::map<std::string, std::pair<const nlohmann::json *, const nlohmann::json *>> kernels;
    for (const auto &k : before["kernels"]) kernels[k["name"].get<std::string>()].first = &k;
    for (const auto &k : after["kernels"]) kernels[k["name"].get<std::string>()].second = &k;
    for (const auto &[name, pair] : kernels) {
        const auto *ka = pair.first, *kb = pair.second;
        std::cout << shown_name(ka, kb, name) << "\n   time: "
                  << (ka ? std::to_string((*ka)["total_ms"].get<double>()) + " ms" : "absent") << " -> "
                  << (kb ? std::to_string((*kb)["total_ms"].get<double>()) + " ms" : "absent");
        if (ka && kb && (*ka)["total_ms"].get<double>() > 0)
            std::cout << " (B/A " << (*kb)["total_ms"].get<double>() / (*ka)["total_ms"].get<double>() << ")";
        std::cout << "\n   findings: " << (ka ? joined(rules_of(*ka)) : "-") << " -> " << (kb ? joined(rules_of(*kb)) : "-") << "\n";
    }
    std::cout << "whole program findings: " << joined(rules_of(before["run"])) << " -> " << joined(rules_of(after["run"])) << "\n";
    std::cout << "findings: " << before["summary"]["findings"] << " -> " << after["summary"]["findings"] << "\n";
    return 0;
}

}  // namespace gmcli
