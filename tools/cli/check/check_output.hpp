// gmlab check's outputs of a verdicts document (check_judge.hpp): the table
// people read, and the Prometheus text exposition node_exporter's textfile
// collector reads (metric names in docs/check.md).
#pragma once

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

namespace gmcli::check {

// Per GPU, its figures with each judgement, then the peer pairs and the
// node's verdict with every reason.
void write_table(std::ostream &out, const nlohmann::json &figures, const nlohmann::json &verdicts);

// The Prometheus text format (version 0.0.4): gmlab_check_figure,
// gmlab_check_figure_flagged, gmlab_check_gpu_status, gmlab_check_node_status,
// gmlab_check_peer_copy_gbs, the NVML health gauges, and the check's wall time
// and completion time.
std::string prometheus_text(const nlohmann::json &figures, const nlohmann::json &verdicts);

// A Prometheus label value: backslash, double quote and newline escaped.
std::string label_value(const std::string &s);

}  // namespace gmcli::check
