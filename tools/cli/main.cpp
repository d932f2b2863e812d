// gmlab: the command-line front of libgmlab.
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "check/check_command.hpp"
#include "commands.hpp"
#include "explain/explain_command.hpp"
#include "gmlab.h"

namespace {

// `gmlab run` and its options; *device is its --device option (a run on one
// device names it in --devices).
CLI::App *add_run_command(CLI::App &app, gmcli::RunOptions &opt, CLI::Option **device) {
    CLI::App *run = app.add_subcommand("run", "run experiments (the default suite when none is named)");
    run->add_option("experiments", opt.experiments, "experiment names (see gmlab list)");
    run->add_option("-s,--set", opt.sets, "parameter: name=value or experiment.name=value (repeatable)");
    run->add_option("--json", opt.json_file, "write the run (schema gmlab.run/1.2) to this file");
    run->add_option("--csv", opt.csv_file, "write one row per measured point to this file");
    run->add_option("--html", opt.html_file, "write the self-contained HTML report of the run to this file");
    *device = run->add_option("-d,--device", opt.device, "CUDA device ordinal");
    run->add_option("--devices", opt.devices,
                    "measure several devices in turn: all, or ordinals such as 0,2; one run each "
                    "(--json/--csv/--html need {device} in the name)")
        ->excludes(*device);
    run->add_flag("--parallel", opt.parallel,
                  "with --devices: measure the devices at the same time, one process each (device figures as alone; "
                  "host-link figures share the host's memory and PCIe root, so they may be lower than alone; peer, "
                  "which copies between the devices, runs once afterwards into files with {device} as \"peer\")");
    run->add_option("--skip", opt.skip)->group("");  // a parallel run's children: experiments left to the parent
    run->add_option("--warmup", opt.warmup, "untimed launches before timing (default 2)");
    run->add_option("--min-repetitions", opt.min_repetitions, "timed launches at least (default 5)");
    run->add_option("--max-repetitions", opt.max_repetitions, "timed launches at most (default 100)");
    run->add_option("--min-time-ms", opt.min_time_ms, "timed milliseconds at least per point (default 10)");
    run->add_option("--memory-fraction", opt.memory_fraction, "share of free device memory an experiment may use (default 0.5)");
    run->add_flag("--no-flush-l2", opt.no_flush_l2, "do not evict L2 between timed launches");
    run->add_option("--counters", opt.counters,
                    "hardware counters from one extra untimed launch per point: auto (where permitted, default; "
                    "points are counted while counting adds at most a fifth to each experiment), on (every point; exit 2 "
                    "when counters are not available), off")
        ->check(CLI::IsMember({"auto", "on", "off"}));
    run->add_option("--samples", opt.samples,
                    "what --json keeps of each point's launches: summary (default: statistics and deciles) or all (every raw sample too)")
        ->check(CLI::IsMember({"summary", "all"}));
    run->add_flag("--quick", opt.quick,
                  "a smoke check in seconds: small sweeps, 3 timed launches per point, every kernel still verified; "
                  "the figures are marked quick and are not for comparing or uploading");
    run->add_option("--upload", opt.upload_url,
                    "after the run, send it to this gmlab-server (as gmlab-upload does; see gmlab-upload --help)");
    return run;
}

}  // namespace

int main(int argc, char **argv) {
    CLI::App app{"gmlab " + std::string(gm_version()) +
                 ": measure what the CUDA Best Practices Guide says about memory, on your GPU.\n"
                 "Exit codes: 0 success, 1 an experiment (or --upload) failed, 2 bad usage (or --counters on where\n"
                 "counters are not available), 3 no CUDA device, 4 no such device; contribute: 5 no or malformed\n"
                 "server URL, 6 config file unreadable or malformed, 7 consent refused, 8 server unreachable (kept in\n"
                 "the spool), 9 rejected by the server, 10 spool not writable (the run stays in its JSON file); check: 11 degraded\n"
                 "(the GPU and figure named), 12 unusable (a GPU failed, returned wrong data or has uncorrectable memory\n"
                 "errors), 13 a GPU not checked (MIG mode), 14 a GPU unjudged (nothing to judge its figures by); explain: 20 program not found, 21 not executable, 22 a script\n"
                 "without its interpreter, 23 not a CUDA program, 24 no kernel launched, 25 --kernel-regex matched nothing,\n"
                 "26 injection library or CUPTI unavailable, 27 explain failed; else the explained program's own status."};
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
    CLI::Option *run_device = nullptr;
    CLI::App *run = add_run_command(app, run_opt, &run_device);

    gmcli::ContributeOptions con;
    auto *contribute = app.add_subcommand(
        "contribute", "run the standard suite, show what would be sent, and with your consent upload it to a results server");
    auto *con_device = contribute->add_option("-d,--device", con.run.device, "CUDA device ordinal");
    auto *con_devices =
        contribute->add_option("--devices", con.run.devices, "all, or ordinals such as 0,2: one upload per device")->excludes(con_device);
    contribute->add_option("--server", con.server,
                           "the results server's URL (else GMLAB_SERVER, else \"server\" in $XDG_CONFIG_HOME/gmlab/config.json)");
    contribute->add_flag("-y,--yes", con.yes, "send without asking (needed where there is no terminal: batch jobs, srun, mpirun)");
    contribute->add_option("--json", con.run.json_file,
                           "also keep the run here ({device} is replaced by the ordinal; default: "
                           "$XDG_STATE_HOME/gmlab/runs/, else ~/.local/state/gmlab/runs/)");
    contribute->add_option("--run", con.run_file, "contribute a run measured earlier (gmlab run --json FILE) instead of measuring now")
        ->excludes(con_device)
        ->excludes(con_devices);
    contribute->add_flag("--insecure", con.insecure, "do not verify the server's TLS certificate and host name");

    gmcli::CheckOptions chk;
    auto *check = app.add_subcommand(
        "check", "a node's health in a minute: every GPU at once (DRAM, L2, host link, peer links, data integrity, NVML "
                 "health), judged against the node's other GPUs, the crowd (--server) and the theoretical figures");
    check->add_option("--devices", chk.devices, "all (default), or ordinals such as 0,2");
    check->add_option("--server", chk.server, "a gmlab-server whose per-model quantiles judge the figures (no answer: judged without)");
    check->add_option("--baseline", chk.baseline, "a site's own quantiles (the form of /api/v1/gpus/{model}/quantiles)");
    check->add_option("--figures", chk.figures, "judge figures recorded earlier (--save-figures or --json) instead of measuring");
    check->add_option("--save-figures", chk.save_figures, "keep the measured figures in this file");
    check->add_option("--prometheus", chk.prometheus, "write the verdicts as Prometheus text (node_exporter's textfile collector)");
    check->add_flag("--json", chk.as_json, "print the figures and verdicts as JSON instead of the table");
    check->add_option("--budget", chk.budget_s, "seconds the whole check may take (default 60)")->check(CLI::Range(20.0, 3600.0));
    check->add_option("--child-device", chk.child_device)->group("");
    check->add_option("--child-out", chk.child_out)->group("");
    check->add_option("--host-lock", chk.host_lock)->group("");

    std::string report_input, html_out, compare_a, compare_b, report_server;
    bool markdown = false;
    auto *report = app.add_subcommand("report", "a run as text tables, Markdown, or a self-contained HTML page with charts");
    report->add_option("run", report_input, "a gmlab.run/1 (or gmlab.result/1) file")->required();
    report->add_option("--html", html_out, "write the HTML report to this file");
    report->add_flag("--markdown", markdown, "print Markdown instead of aligned text");
    report->add_option("--server", report_server,
                       "a gmlab-server whose medians of the run's GPU model join \"This GPU at a glance\" (no answer: the report without them)");

    auto *compare = app.add_subcommand("compare", "two runs point by point: B / A, flagged beyond the repetitions' spread");
    compare->add_option("a", compare_a, "run A")->required();
    compare->add_option("b", compare_b, "run B")->required();
    compare->add_option("--html", html_out, "write the HTML comparison to this file");
    compare->add_flag("--markdown", markdown, "print Markdown instead of aligned text");

    gmcli::ExplainOptions explain_opt;
    auto *explain = gmcli::add_explain_command(app, explain_opt);

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
        if (*report && gmcli::is_explain_document(report_input)) return gmcli::cmd_explain_report(report_input);
        if (*report) return gmcli::cmd_report(report_input, html_out, markdown, report_server);
        if (*compare && gmcli::is_explain_document(compare_a) && gmcli::is_explain_document(compare_b))
            return gmcli::cmd_explain_compare(compare_a, compare_b);
        if (*compare) return gmcli::cmd_compare(compare_a, compare_b, html_out, markdown);
        if (*explain) return gmcli::cmd_explain(explain_opt);
        std::string command_line;
        for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(i ? argv[i] : "gmlab");
        if (*check) return gmcli::cmd_check(chk);
        if (*run) {
            if (run_device->count()) run_opt.devices = std::to_string(run_opt.device);
            for (int i = 1; i < argc; ++i) run_opt.argv.push_back(argv[i]);
            run_opt.command_line = command_line;
            return gmcli::cmd_run(run_opt);
        }
        if (*contribute) {
            if (con_device->count()) con.run.devices = std::to_string(con.run.device);
            con.run.command_line = command_line;
            return gmcli::cmd_contribute(con);
        }
    } catch (const std::exception &e) {
        std::cerr << "gmlab: " << e.what() << "\n";
        return gmcli::kFailed;
    }
    return gmcli::kUsage;
}
