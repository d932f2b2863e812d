// Two runs point by point: B / A for every point both measured, flagged where
// the difference is larger than the spread of the repetitions.
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

namespace gmreport {

// Rows {experiment, series, x, x_name, x_unit, field, a, b, ratio, flagged}:
// each series' headline field, then each hardware counter both points have
// (field "counters.<name>", counter: true; the counters the text tables show);
// experiments, series and points that only one run has are left out (and
// counted in "unmatched"). x is printed as the report prints it (x_text: bytes
// as "256 MiB").
nlohmann::json compare_runs(const nlohmann::json &a, const nlohmann::json &b);

void write_compare_text(std::ostream &os, const nlohmann::json &a, const nlohmann::json &b, const nlohmann::json &cmp,
                        bool markdown);

}  // namespace gmreport
