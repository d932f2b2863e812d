// The gmlab subcommands. Each returns the process exit code:
// 0 success, 1 an experiment or operation failed, 2 bad usage, 3 no CUDA device.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gmlab.h"

namespace gmcli {

enum Exit { kOk = 0, kFailed = 1, kUsage = 2, kNoDevice = 3 };

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
    std::string command_line;
    std::string upload_url;  // --upload: send the run to this gmlab-server afterwards
    std::string samples = "summary";  // --samples: "summary" (statistics and deciles) or "all" (every raw sample too)
    bool quick = false;               // --quick: each experiment's quick parameters and 3 repetitions, marked "quick"
};
int cmd_run(const RunOptions &opt);

// gmlab info --measure (measure.cpp): runs latency and memory_spaces on ctx and
// prints their compact table, or with as_json adds their summaries to *device
// as "measured". Returns an exit code.
int print_measured(gm_context *ctx, nlohmann::json *device, bool as_json);
// "registers 4 < shared 30 < ...": the memory_spaces summary's latencies, fastest first.
std::string memory_spaces_order(const nlohmann::json &summary);

// gmlab report RUN.json [--html OUT | --markdown]
int cmd_report(const std::string &input, const std::string &html_file, bool markdown);
// gmlab compare A.json B.json [--html OUT | --markdown]
int cmd_compare(const std::string &a, const std::string &b, const std::string &html_file, bool markdown);

}  // namespace gmcli
