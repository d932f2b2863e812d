// gmlab: the command-line front of libgmlab.
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "gmlab.h"

int main(int argc, char **argv) {
    CLI::App app{"gmlab " + std::string(gm_version()) +
                 ": measure what the CUDA Best Practices Guide says about memory, on your GPU.\n"
                 "Exit codes: 0 success, 1 an experiment (or --upload) failed, 2 bad usage, 3 no CUDA device."};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string("gmlab ") + gm_version());

    int device = 0;
    bool as_json = false;
    auto *info = app.add_subcommand("info", "memory spaces of the device: sizes, caches, limits, bandwidth");
    info->add_option("-d,--device", device, "CUDA device ordinal");
    info->add_flag("--json", as_json, "print the device block as JSON");
    bool measure = false;
    info->add_flag("--measure", measure,
                   "also measure L1, L2 and DRAM latency, the cache capacities and the memory spaces' order (a few seconds)");

    auto *list = app.add_subcommand("list", "the experiments this build knows");

    std::string experiment;
    auto *describe = app.add_subcommand("describe", "an experiment's guide section, summary, parameters and kernels (with their resources where there is a device)");
    describe->add_option("experiment", experiment, "experiment name (see gmlab list)")->required();
    describe->add_flag("--json", as_json, "print the description as JSON");
    describe->add_option("-d,--device", device, "CUDA device whose kernel resources are shown");

    gmcli::RunOptions run_opt;
    auto *run = app.add_subcommand("run", "run experiments (the default suite when none is named)");
    run->add_option("experiments", run_opt.experiments, "experiment names (see gmlab list)");
    run->add_option("-s,--set", run_opt.sets, "parameter: name=value or experiment.name=value (repeatable)");
    run->add_option("--json", run_opt.json_file, "write the run (schema gmlab.run/1.1) to this file");
    run->add_option("--csv", run_opt.csv_file, "write one row per measured point to this file");
    run->add_option("--html", run_opt.html_file, "write the self-contained HTML report of the run to this file");
    run->add_option("-d,--device", run_opt.device, "CUDA device ordinal");
    run->add_option("--warmup", run_opt.warmup, "untimed launches before timing (default 2)");
    run->add_option("--min-repetitions", run_opt.min_repetitions, "timed launches at least (default 5)");
    run->add_option("--max-repetitions", run_opt.max_repetitions, "timed launches at most (default 100)");
    run->add_option("--min-time-ms", run_opt.min_time_ms, "timed milliseconds at least per point (default 10)");
    run->add_option("--memory-fraction", run_opt.memory_fraction, "share of free device memory an experiment may use (default 0.5)");
    run->add_flag("--no-flush-l2", run_opt.no_flush_l2, "do not evict L2 between timed launches");
    run->add_option("--samples", run_opt.samples,
                    "what --json keeps of each point's launches: summary (default: statistics and deciles) or all (every raw sample too)")
        ->check(CLI::IsMember({"summary", "all"}));
    run->add_flag("--quick", run_opt.quick,
                  "a smoke check in seconds: small sweeps, 3 timed launches per point, every kernel still verified; "
                  "the figures are marked quick and are not for comparing or uploading");
    run->add_option("--upload", run_opt.upload_url,
                    "after the run, send it to this gmlab-server (as gmlab-upload does; see gmlab-upload --help)");

    std::string report_input, html_out, compare_a, compare_b;
    bool markdown = false;
    auto *report = app.add_subcommand("report", "a run as text tables, Markdown, or a self-contained HTML page with charts");
    report->add_option("run", report_input, "a gmlab.run/1 (or gmlab.result/1) file")->required();
    report->add_option("--html", html_out, "write the HTML report to this file");
    report->add_flag("--markdown", markdown, "print Markdown instead of aligned text");

    auto *compare = app.add_subcommand("compare", "two runs point by point: B / A, flagged beyond the repetitions' spread");
    compare->add_option("a", compare_a, "run A")->required();
    compare->add_option("b", compare_b, "run B")->required();
    compare->add_option("--html", html_out, "write the HTML comparison to this file");
    compare->add_flag("--markdown", markdown, "print Markdown instead of aligned text");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError &e) {
        const int code = app.exit(e);
        return code == 0 ? 0 : gmcli::kUsage;
    }
    try {
        if (*info) return gmcli::cmd_info(device, as_json, measure);
        if (*list) return gmcli::cmd_list();
        if (*describe) return gmcli::cmd_describe(experiment, as_json, device);
        if (*report) return gmcli::cmd_report(report_input, html_out, markdown);
        if (*compare) return gmcli::cmd_compare(compare_a, compare_b, html_out, markdown);
        if (*run) {
            for (int i = 0; i < argc; ++i) run_opt.command_line += (i ? " " : "") + std::string(i ? argv[i] : "gmlab");
            return gmcli::cmd_run(run_opt);
        }
    } catch (const std::exception &e) {
        std::cerr << "gmlab: " << e.what() << "\n";
        return gmcli::kFailed;
    }
    return gmcli::kUsage;
}
