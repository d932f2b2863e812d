// How an experiment's result is drawn and explained in reports and on the
// server's pages, declared by the experiment beside its figures
// (Experiment::chart) and published through its description
// (gm_experiment_describe_json's "chart"), where the report reads it. The
// declaration and its JSON are the vocabulary's (vocabulary/chart.hpp).
#pragma once

#include <nlohmann/json.hpp>

#include "vocabulary/chart.hpp"

namespace gmlab {

using Chart = gmvocab::Chart;

inline nlohmann::json describe(const Chart &c) { return gmvocab::chart_to_json(c); }

}  // namespace gmlab
