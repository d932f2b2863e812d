// gmlab explain --html: each finding beside the chart of the experiment that
// demonstrates it, from the lab run of this GPU, with the kernel's point marked.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gmcli {

// The self-contained page of an explanation (gmlab.explain/1); throws
// std::runtime_error where this build has no Chart.js to inline.
std::string explanation_html(const nlohmann::json &doc);

}  // namespace gmcli
