// gmlab explain --html: each finding beside the chart of the experiment that
// demonstrates it, from the lab run of this GPU, with the kernel's point marked.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gmcli {

// The chart beside one finding: the series of the experiment its cost was
// read from ("stride_copy / guide, 4-byte words": that series alone) with the
// point it was read at marked as `kernel`'s; the experiment's whole chart
// where the cost names no series (a summary figure) or it is drawn as bars.
// Null where `lab` has no result of the finding's experiment.
nlohmann::json finding_chart(const nlohmann::json &lab, const nlohmann::json &finding, const std::string &canvas,
                             const std::string &kernel);

// The self-contained page of an explanation (gmlab.explain/1); throws
// std::runtime_error where this build has no Chart.js to inline.
std::string explanation_html(const nlohmann::json &doc);

}  // namespace gmcli
