#include "explain_command.hpp"

#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>

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
    e->add_option("--replay", o.replay, "kernel (default: each counted launch is replayed, its memory saved and restored)");
    e->add_option("--counters", o.counters, "on (default): pass 2 counts the chosen kernels; off: the trace only")
        ->check(CLI::IsMember({"on", "off"}));
    e->add_option("--json", o.json_file, "write the explanation (schema gmlab.explain/1) to this file");
    e->add_option("--lab-run", o.lab_run,
                  "the gmlab run document (gmlab run --json) of this GPU model the costs are read from "
                  "(default: the newest one in $XDG_STATE_HOME/gmlab/runs or GMLAB_RUNS_DIR)");
    e->add_option("--rules", o.rules_dir, "a folder of rule files to use instead of the built-in ones");
    e->add_option("--records", o.records_dir, "keep the passes' records in this folder");
    e->add_option("--from-records", o.from_records, "explain records kept with --records; runs nothing");
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
    opt.counters = o.counters == "on";
    if (!o.lab_run.empty()) opt.lab_run = o.lab_run.c_str();
    if (!o.rules_dir.empty()) opt.rules_dir = o.rules_dir.c_str();
    if (!o.records_dir.empty()) opt.records_dir = o.records_dir.c_str();
    if (!o.from_records.empty()) opt.from_records = o.from_records.c_str();
    gm_explain *e = nullptr;
    const int code = gm_explain_run(&opt, &e);
    const std::string message = gm_explain_message(e), json = gm_explain_json(e), text = gm_explain_text(e);
    gm_explain_free(e);
    if (!message.empty()) std::cerr << "gmlab explain: " << message << "\n";
    if (!text.empty()) std::cout << text << std::flush;
    if (!o.json_file.empty() && !json.empty()) {
        std::ofstream out(o.json_file);
        out << json << "\n";
        if (!out) {
            std::cerr << "gmlab explain: cannot write " << o.json_file << "\n";
            return code ? code : 27;
        }
    }
    return code;
}

}  // namespace gmcli
