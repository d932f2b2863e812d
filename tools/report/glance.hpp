// "This GPU at a glance": one screen of a run's headline figures (DRAM read,
// write, copy and cudaMemcpy; L2 and L1 bandwidth; latency of L1, L2 and
// DRAM; the host link pinned and pageable in both directions; peer where
// measured), each beside the theoretical figure the run's device block gives
// and, where the caller fetched them, the crowd's median for the model. Each
// figure names the experiment and figure it comes from; a figure the run does
// not have says why, never a number of its own. Text, Markdown and HTML open
// with it (text_report, html_report); `gmlab report --server URL` fills the
// crowd column (tools/cli).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gmreport {

// The rows: {section, label, unit, experiment, figure, from, value | missing,
// theoretical, of_theoretical, theoretical_from, crowd {median, n} | crowd_missing}
// under {"device", "rows", "crowd" (the crowd's model and server, where given)}.
// `crowd` is null (no crowd column) or what crowd_from_answers() returns.
nlohmann::json glance(const nlohmann::json &run, const nlohmann::json &crowd = nullptr);

// The experiments the glance reads figures from: the CLI asks the server's
// GET /api/v1/experiments/{name} for each.
std::vector<std::string> glance_experiments();

// The crowd's medians of `model` (a device name, any case) from the server's
// answers to GET /api/v1/experiments/{name}, by experiment name (an answer
// that is not an object is skipped and named in "problems"):
// {"server", "model", "figures": {"EXPERIMENT/FIGURE": {median, n, key}}, "problems": [...]}.
// Where several keys share the name (one model in several memory sizes), the
// key with the most uploads of that experiment is taken.
nlohmann::json crowd_from_answers(const std::string &server, const std::string &model,
                                  const std::vector<std::pair<std::string, nlohmann::json>> &answers);

// The section as text (or Markdown), and as HTML (id "glance"), escaped.
void write_glance_text(std::ostream &os, const nlohmann::json &glance, bool markdown);
std::string glance_html(const nlohmann::json &glance);

}  // namespace gmreport
