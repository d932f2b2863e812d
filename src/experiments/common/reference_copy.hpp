// Our STREAM copy kernel on an experiment's own bytes: the ceiling that
// experiments moving the same bytes another way (transpose, stencil) report
// their bandwidth against, measured in the same run.
#pragma once

#include <cstddef>
#include <string>

#include "core/device/context.hpp"
#include "core/experiment/result.hpp"

namespace gmlab {

// Copies `bytes` (a multiple of 16) from in to out with the stream copy
// kernel, checks that out equals in, times it and returns the series
// "copy (stream kernel)" with one point at x. `what` names it in errors.
Series reference_copy_series(ContextState &ctx, const void *in, void *out, std::size_t bytes, double x, Result &result,
                             const std::string &what);

}  // namespace gmlab
