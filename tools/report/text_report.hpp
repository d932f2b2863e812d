// Reports as aligned text tables (the terminal) or Markdown (an issue).
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

namespace gmreport {

// One result: its series as tables, key figures, published figures, notes.
void write_result_text(std::ostream &os, const nlohmann::json &result, bool markdown);

// A whole run: the device and settings, then every result.
void write_run_text(std::ostream &os, const nlohmann::json &run, bool markdown);

}  // namespace gmreport
