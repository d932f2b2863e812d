// gmlab check: a node's health in a minute (docs/check.md). Every GPU is
// measured at the same time, one child process each (check_measure.hpp),
// then the peer pairs, then everything is judged (check_judge.hpp) and
// written as a table, JSON or Prometheus text (check_output.hpp).
#pragma once

#include <string>

namespace gmcli {

struct CheckOptions {
    std::string devices = "all";  // --devices all|0,2
    std::string server;           // --server URL: the crowd's quantiles ("" : none)
    std::string baseline;         // --baseline FILE: a site's quantiles of the same form
    std::string figures;          // --figures FILE: judge these recorded figures, measure nothing
    std::string save_figures;     // --save-figures FILE: keep the measured figures
    std::string prometheus;       // --prometheus FILE: node_exporter textfile
    bool as_json = false;         // --json: figures and verdicts on stdout instead of the table
    double budget_s = 60;         // --budget: the whole check's wall-time limit
    // Hidden: a child measuring one GPU (check_measure.hpp).
    int child_device = -1;
    std::string child_out, host_lock;
};

// Returns an exit code: 0 healthy, 11 degraded, 12 unusable, 13 not checked
// (check_judge.hpp), or gmlab's usual ones (2 usage, 3 no device, 4 no such device).
int cmd_check(const CheckOptions &opt);

}  // namespace gmcli
