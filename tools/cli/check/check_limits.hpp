// gmlab check's judgements of one GPU alone, against yardsticks that need no
// other GPU and no server (docs/check.md): the embedded reference of its
// model, the theoretical floor of a bandwidth, the ceiling of the L2 hit
// latency. Each returns a judgement object {"judged", "flag", ...} with "why"
// where it did not judge, and `describe_*` the words a reason gives.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "check_judge.hpp"

namespace gmcli::check {

// The words of a figure in a reason: a fraction as "12.3 %", a number to four
// significant digits.
std::string pct(double fraction);
std::string num(double v);

// The embedded reference's quantiles document of `model` (compared in one
// case), or null when the reference holds no such model.
const nlohmann::json *reference_of_model(const nlohmann::json &reference, const std::string &model);

// `value` against the reference's median of the figure: {"judged", "source":
// "embedded reference", "n", "median", "shortfall", "limit", "flag"}, or
// {"judged": false, "why"} (no model, figure not covered, too few runs).
nlohmann::json reference_judgement(const FigureSpec &f, double value, const nlohmann::json *model_doc,
                                   const std::string &model);

// Adds the floor to a theoretical judgement that holds "fraction": "floor",
// "below_floor", and judged/flag set where the figure has a floor.
void apply_floor(const FigureSpec &f, nlohmann::json &theoretical);

// The L2 hit latency against kL2LatencyCeilingCycles at the GPU's SM clock
// (gpu["theoretical"]["sm_clock_mhz"]): {"judged", "ceiling_ns", "clock_mhz", "flag"}.
nlohmann::json ceiling_judgement(double value_ns, const nlohmann::json &gpu);

// "12.3 % short of the embedded reference's median (2951 GB/s over 5 runs, limit 10.0 %)"
// ("above" for a latency)
std::string describe_reference(const nlohmann::json &j, const FigureSpec &f);
// "21.7 % of theoretical, below the theoretical floor of 60 %"
std::string describe_floor(const nlohmann::json &theoretical);
// "above the ceiling of 303 ns (600 cycles at 1980 MHz)"
std::string describe_ceiling(const nlohmann::json &ceiling);

}  // namespace gmcli::check
