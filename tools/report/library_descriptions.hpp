// Every experiment's description as this library publishes it
// (gm_experiment_describe_json), read once through the C API and kept: the
// report's declared charts and the server's compared figures read the same
// cache instead of walking the registry each.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "vocabulary/chart.hpp"

namespace gmreport {

// In the registry's order (the standard suite's), each {name, description};
// an experiment whose description cannot be read or parsed is left out.
// Safe to call from many threads (read once).
const std::vector<std::pair<std::string, nlohmann::json>> &library_descriptions();

// The chart this library's experiment of that name declares (Experiment::chart,
// its description's "chart"); none for an experiment the library does not
// know or that declares no chart.
std::optional<gmvocab::Chart> declared_chart(const std::string &experiment);

}  // namespace gmreport
