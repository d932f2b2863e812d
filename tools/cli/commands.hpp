// The gmlab subcommands. Each returns the process exit code (see Exit).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gmlab.h"

namespace gmcli {

// Exit codes of gmlab: one per kind of failure, so that scripts and job
// arrays can tell them apart. Nothing measured is lost on any of them: a run
// is written to its --json file before it is uploaded, and an upload that
// does not reach the server waits in the spool.
enum Exit {
    kOk = 0,
    kFailed = 1,         // an experiment or operation failed
    kUsage = 2,          // bad usage
    kNoDevice = 3,       // no CUDA device at all
    kNoSuchDevice = 4,   // --device/--devices (or a launcher's local rank) names a GPU that does not exist
    kBadServer = 5,      // contribute: no results server given, or its URL is malformed
    kBadConfig = 6,      // contribute: the config file cannot be read or is malformed
    kRefused = 7,        // contribute: consent refused, or no terminal to ask and no --yes
    kUnreachable = 8,    // contribute: the server could not be reached; the upload is in the spool
    kRejected = 9,       // contribute: the server rejected the document
    kSpoolFailed = 10,   // contribute: unreachable and the spool could not be written; the run stays in its JSON file
};

int cmd_info(int device, bool as_json, bool measure = false);
int cmd_list();
// Parameters, and the kernels' resources on `device` when there is one.
int cmd_describe(const std::string &experiment, bool as_json, int device);

struct RunOptions {
    std::vector<std::string> experiments;  // empty: the default suite
    std::vector<std::string> sets;         // name=value or experiment.name=value
    std::string json_file, csv_file, html_file;
    int device = 0;
    std::optional<double> warmup, min_repetitions, max_repetitions, min_time_ms, memory_fraction;
    bool no_flush_l2 = false;
    std::string counters = "auto";  // --counters auto|on|off
    std::string command_line;
    std::string upload_url;  // --upload: send the run to this gmlab-server afterwards
    std::string samples = "summary";  // --samples: "summary" (statistics and deciles) or "all" (every raw sample too)
    bool quick = false;               // --quick: each experiment's quick parameters and 3 repetitions, marked "quick"
    // --devices all|0,2 (or --device N as "N"); "": the launcher's choice (devices.hpp), else device 0.
    std::string devices;
    // --parallel: with several devices, one child process per device, all at
    // once (children.hpp); `argv` is this process's arguments, which each child
    // gets again with --device N in place of --devices and --parallel.
    bool parallel = false;
    std::vector<std::string> argv;
    // Experiments left out (a parallel run's children leave peer to the parent).
    std::vector<std::string> skip;
};
// Measures every selected device in turn (or with opt.parallel all at once),
// one run document each.
int cmd_run(const RunOptions &opt);

// The devices `opt.devices` selects (devices.hpp), checked against the GPUs
// present, and the output files checked for a {device} placeholder when there
// are several. Returns kOk or an exit code after printing why. Without any
// device it selects device 0, so that the run reports the missing device as
// a single-device run does.
int choose_devices(const RunOptions &opt, std::vector<int> *ordinals);

// One run on opt.device: what `gmlab run` does for one device. Output file
// names are used as given (placeholders already expanded). *run_doc (if not
// null) receives the gmlab.run/1 document when at least one experiment finished.
int run_on_device(const RunOptions &opt, nlohmann::json *run_doc);

struct ContributeOptions {
    RunOptions run;      // experiments: the standard suite; devices, json_file
    std::string server;  // --server ("" : GMLAB_SERVER, then the config file)
    bool yes = false;    // send without asking
    bool insecure = false;
    std::string run_file;  // --run: contribute this run document instead of measuring
};
// gmlab contribute: run the standard suite, show the exact document, ask,
// upload, keep the delete token (contribute.cpp).
int cmd_contribute(const ContributeOptions &opt);

// gmlab info --measure (measure.cpp): runs latency and memory_spaces on ctx and
// prints their compact table, or with as_json adds their summaries to *device
// as "measured". Returns an exit code.
int print_measured(gm_context *ctx, nlohmann::json *device, bool as_json);
// "registers 4 < shared 30 < ...": the memory_spaces summary's latencies, fastest first.
std::string memory_spaces_order(const nlohmann::json &summary);

// gmlab report RUN.json [--html OUT | --markdown] [--server URL: the crowd's medians in the glance]
int cmd_report(const std::string &input, const std::string &html_file, bool markdown, const std::string &server);
// gmlab compare A.json B.json [--html OUT | --markdown]
int cmd_compare(const std::string &a, const std::string &b, const std::string &html_file, bool markdown);

}  // namespace gmcli
