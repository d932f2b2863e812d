// What a run's own NVML readings say about the state the GPU measured in:
// each result's gpu_state.warnings (a clock fell, a throttle reason other
// than idle was set, power or thermal limits held the clocks down; written by
// the library, core/device/nvml_state). An upload with any of them is held:
// labelled with the experiments and the reasons, and left out of its model's
// medians until a moderator accepts it.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace simdjson::dom {
class element;
}

namespace gmserver {

// The warnings of one result element of a document, as
// [{"experiment": name, "warning": text}, ...]; empty where the result has
// no gpu_state block or no warnings (documents before 1.3 have none).
nlohmann::json gpu_state_warnings(const simdjson::dom::element &result);

// One health problem naming how many results measured in a degraded state
// and the first few (experiment: warning); "" when `warnings` (the
// concatenation of gpu_state_warnings over the results) is empty.
std::string gpu_state_problem(const nlohmann::json &warnings);

}  // namespace gmserver
