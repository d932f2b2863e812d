// Reports as aligned text tables (the terminal) or Markdown (an issue).
#pragma once

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

namespace gmreport {

// One result: its series as tables, key figures, published figures, notes.
void write_result_text(std::ostream &os, const nlohmann::json &result, bool markdown);

// A whole run: the device and settings, "This GPU at a glance" (glance.hpp;
// with the crowd's medians where `crowd` is crowd_from_answers()' document),
// then every result, then the consistency section and what the GPU's state
// says of the run.
void write_run_text(std::ostream &os, const nlohmann::json &run, bool markdown, const nlohmann::json &crowd = nullptr);

// One line of a result's gpu_state block (1.3, optional: clocks, power,
// temperature, P-state before -> after it measured), "" where it has none.
std::string gpu_state_line(const nlohmann::json &result);

// Which results of a run measured while a clock fell or a clock event reason
// other than idle was set (their gpu_state warnings); nothing where no result
// carries a gpu_state block.
void write_gpu_state_summary(std::ostream &os, const nlohmann::json &run, bool markdown);

}  // namespace gmreport
