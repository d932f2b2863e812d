// The kernel catalogue seen from the library: names of an experiment's kernels
// (no device needed) and their resources read from the loaded module.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/device/context.hpp"

namespace gmlab {

// Experiment name of the kernels every experiment shares (pattern fills, the
// L2 flush, the reference copy).
inline constexpr const char *kSupportKernels = "support";

// The readable names of the kernels registered for `experiment` (a registry
// name or "support"); an empty experiment means every kernel. Throws
// Error(GM_ERROR_UNKNOWN_EXPERIMENT) for a name that is neither.
nlohmann::json kernel_names(const std::string &experiment);

// {"experiment", "device", "compute_capability", "kernels": [{name, experiment,
// registers, shared_static_bytes, local_bytes, constant_bytes,
// max_threads_per_block, ptx_version, binary_version}]} from cudaFuncGetAttributes.
nlohmann::json kernel_resources(ContextState &ctx, const std::string &experiment);

}  // namespace gmlab
