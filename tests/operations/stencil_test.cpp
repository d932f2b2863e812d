// The argument checks of gm_stencil_constant, without a device.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "operations/stencil.hpp"
#include "unit_checks.hpp"

using namespace gmlab;

TEST(StencilChecks, ArgumentsAreChecked) {
    const float c[4] = {1, 2, 3, 4};
    auto error = [&](std::size_t in, std::size_t out, std::size_t n, const float *coef) {
        return argument_error([&] { check_stencil_args(in, out, n, coef); });
    };
    EXPECT_EQ(error(400, 400, 100, c), "");
    EXPECT_EQ(error(400, 400, 100, nullptr), "coefficients must not be NULL");
    EXPECT_EQ(error(400, 400, 0, c), "n must be at least 1, got 0");
    EXPECT_EQ(error(396, 400, 100, c), "in holds 99 floats, n is 100");
    EXPECT_EQ(error(400, 4, 100, c), "out holds 1 floats, n is 100");
    const float bad[4] = {1, NAN, 0, 0};
    EXPECT_EQ(error(400, 400, 100, bad), "coefficients[1] must be finite");
}
