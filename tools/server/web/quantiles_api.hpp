// GET /api/v1/gpus/{model}/quantiles: per GPU model, the quantiles of the
// figures `gmlab check` judges a node by (stream copy and triad, L2 hit
// latency, pinned host<->device bandwidth), from the model's accepted
// uploads, with the quantiles of each figure as a fraction of its theoretical
// figure where the upload states one. {model} is a model's key (as
// /api/v1/gpus lists them) or its name ("NVIDIA H200", any case), which
// gathers every key of that name. The document's form is the one
// `gmlab check --baseline FILE` reads (tools/server/README.md).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "crowd/crowd.hpp"
#include "http/router.hpp"

namespace gmserver {

void install_quantiles_api(Router &router, Crowd &crowd);

// The quantiles document of run documents (JSON texts) of one model (tests).
nlohmann::json quantiles_of_documents(const std::string &model, const std::vector<std::string> &documents);

}  // namespace gmserver
