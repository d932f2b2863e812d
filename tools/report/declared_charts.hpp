// The charts experiments declare (Experiment::chart in the library), read
// through their descriptions (gm_experiment_describe_json's "chart").
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "chart_specs.hpp"

namespace gmreport {

// The chart this library's experiment of that name declares; none for an
// experiment the library does not know or that declares no chart.
std::optional<Chart> declared_chart(const std::string &experiment);

}  // namespace gmreport
