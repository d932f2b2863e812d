// The typed entry points' structs (gm_run_stream, gm_run_offset_copy,
// gm_run_stride_copy) as the parameters gm_run takes, in the structured form
// the parameter resolver reads (arrays, numbers, booleans), never as text it
// would parse back. Host only; the resolver still checks every value.
#pragma once

#include <nlohmann/json.hpp>

#include "gmlab.h"

namespace gmlab {

nlohmann::json stream_params_json(const gm_stream_params &p);

// Throw Error(GM_ERROR_INVALID_ARGUMENT) naming the struct's field when a
// bound is outside what the experiment declares or max is below min.
nlohmann::json offset_copy_params_json(const gm_offset_copy_params &p);
nlohmann::json stride_copy_params_json(const gm_stride_copy_params &p);

}  // namespace gmlab
