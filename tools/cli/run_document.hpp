// The gmlab.run/1.1 document: several results sharing one device block, as
// written by `gmlab run --json` and sent by gmlab-upload.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gmcli {

nlohmann::json make_run_document(const nlohmann::json &device, const nlohmann::json &settings,
                                  const std::vector<nlohmann::json> &results, const std::string &command);

// One CSV row per point of every result: experiment, series, x, statistics.
std::string results_csv(const std::vector<nlohmann::json> &results);

}  // namespace gmcli
