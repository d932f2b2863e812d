// The shape table (shape_limits.hpp) of the experiments this server's
// library declares, read from their descriptions (gm_experiment_describe_json:
// parameters and sweep axes).
#pragma once

#include <memory>

#include "upload/shape_limits.hpp"

namespace gmserver {

std::shared_ptr<const ShapeTable> declared_shapes(const ShapeSettings &settings);

}  // namespace gmserver
