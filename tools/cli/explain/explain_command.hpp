// gmlab explain: the subcommand's options and its run over the explain C API
// (include/gmlab_explain.h); the CLI only parses and prints.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace gmcli {

struct ExplainOptions {
    std::vector<std::string> command;  // after "--": the program and its arguments
    int kernels = 5, passes = 1;
    std::string kernel_regex, replay = "kernel", counters = "on", json_file, html_file, lab_run, rules_dir, records_dir,
                                                                         from_records;
    unsigned long long launch_skip = 0, launch_count = 1;
    bool measure_always = false, measure_never = false;  // --measure, --no-measure
    bool lines = false;                                  // --lines
    bool session_env = false;                            // --session-env
};

// Registers `explain` on app; returns the subcommand.
CLI::App *add_explain_command(CLI::App &app, ExplainOptions &options);
int cmd_explain(const ExplainOptions &options);

// gmlab report and compare of explanation documents (gmlab.explain/1).
constexpr int kExplainFailedCode = 27;
bool is_explain_document(const std::string &path);
int cmd_explain_report(const std::string &path);
// Kernel by kernel: time before and after, and the rules named before and after.
int cmd_explain_compare(const std::string &a, const std::string &b);

}  // namespace gmcli
