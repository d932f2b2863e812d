// The gmlab.run/1.3 document: several results sharing one device block, as
// written by `gmlab run --json` and sent by gmlab-upload. `gmlab run` adds the
// optional `consistency` block (tools/report/consistency.hpp) to what
// make_run_document returns.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gmcli {

nlohmann::json make_run_document(const nlohmann::json &device, const nlohmann::json &settings,
                                  const std::vector<nlohmann::json> &results, const std::string &command);

// Compact documents (`--samples summary`, the default) carry every
// non-integer number to this many significant digits: the event timers
// resolve about half a microsecond and repetitions differ far more than one
// part in 10^7, while the 17 digits of a double made an upload about 30 %
// larger to send, store and parse. Integers (byte counts, n) stay exact.
constexpr int kCompactDigits = 7;
void round_to_significant_digits(nlohmann::json &value, int digits = kCompactDigits);

// One CSV row per point of every result: experiment, series, x, statistics,
// then a column per prediction and per hardware counter (counters_<name>).
std::string results_csv(const std::vector<nlohmann::json> &results);

}  // namespace gmcli
