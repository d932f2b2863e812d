// The gmlab.run/1.2 document: several results sharing one device block, as
// written by `gmlab run --json` and sent by gmlab-upload.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gmcli {

nlohmann::json make_run_document(const nlohmann::json &device, const nlohmann::json &settings,
                                  const std::vector<nlohmann::json> &results, const std::string &command);

// One CSV row per point of every result: experiment, series, x, statistics,
// then a column per prediction and per hardware counter (counters_<name>).
std::string results_csv(const std::vector<nlohmann::json> &results);

}  // namespace gmcli
