// register_pressure without a device: the register caps follow from the
// minimum blocks per multiprocessor, and bad input names the allowed values.
#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include "experiments/register_pressure/register_pressure.cuh"
#include "unit_checks.hpp"

using namespace gmlab;

TEST(RegisterPressure, CapsFollowFromMinBlocks) {
    for (const auto &c : kernels::pressure_caps()) {
        const int cap = std::min(255, 65536 / (256 * c.min_blocks) / 8 * 8);
        EXPECT_EQ(c.cap, cap) << "min_blocks " << c.min_blocks;
    }
}

TEST(RegisterPressureParams, BadInputNamesTheAllowedValues) {
    EXPECT_EQ(param_error("register_pressure", {{"caps", {64, 50}}}), "caps must be one of 255, 128, 80, 64, 48, 40, 32, got 50");
    EXPECT_EQ(param_error("register_pressure", {{"caps", "32,64"}}), "");
    EXPECT_NE(param_error("register_pressure", {{"iterations", 0}}).find("iterations must be in 1..4096"), std::string::npos);
}
