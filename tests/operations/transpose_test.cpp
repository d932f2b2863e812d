// The shape checks of gm_transpose and its choice of kernel, without a device.
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "operations/transpose.hpp"
#include "unit_checks.hpp"

using namespace gmlab;

namespace {

std::string transpose_error(std::size_t in, std::size_t out, std::size_t r, std::size_t c, std::size_t e, int v) {
    return argument_error([&] { check_transpose(in, out, r, c, e, v); });
}

}  // namespace

TEST(TransposeChecks, ShapesMustFitTheBuffers) {
    EXPECT_EQ(transpose_error(400, 400, 10, 10, 4, GM_TRANSPOSE_AUTO), "");
    EXPECT_EQ(transpose_error(399, 400, 10, 10, 4, GM_TRANSPOSE_NAIVE), "in (10 x 10 x 4) needs 400 bytes, the buffer holds 399");
    EXPECT_EQ(transpose_error(400, 80, 4, 5, 8, GM_TRANSPOSE_SHARED), "out (5 x 4 x 8) needs 160 bytes, the buffer holds 80");
    EXPECT_EQ(transpose_error(400, 400, 0, 10, 4, GM_TRANSPOSE_NAIVE), "rows and cols must be at least 1, got 0 x 10");
    EXPECT_EQ(transpose_error(400, 400, 10, 10, 3, GM_TRANSPOSE_NAIVE), "element_size must be one of 1, 2, 4, 8, 16, got 3");
    EXPECT_EQ(transpose_error(400, 400, 10, 10, 4, 7), "variant must be 0..4 (gm_transpose_variant), got 7");
    EXPECT_EQ(transpose_error(1 << 20, 1 << 20, 10, 6, 4, GM_TRANSPOSE_WIDE),
              "GM_TRANSPOSE_WIDE needs 4-byte elements and rows and cols that are multiples of 4, got 10 x 6 of 4 bytes");
    EXPECT_NE(transpose_error(SIZE_MAX, SIZE_MAX, 1u << 20, SIZE_MAX / 2, 4, GM_TRANSPOSE_NAIVE).find("overflow"), std::string::npos);
    EXPECT_NE(transpose_error(SIZE_MAX, SIZE_MAX, 3000000, 1, 4, GM_TRANSPOSE_NAIVE).find("rows must be at most 2097120"),
              std::string::npos);
}

TEST(TransposeChecks, AutoPicksTheWideKernelWhereItFits) {
    EXPECT_EQ(transpose_kernel_for(GM_TRANSPOSE_AUTO, 4, 64, 128), kernels::TransposeKernel::Wide);
    EXPECT_EQ(transpose_kernel_for(GM_TRANSPOSE_AUTO, 4, 63, 128), kernels::TransposeKernel::SharedPadded);
    EXPECT_EQ(transpose_kernel_for(GM_TRANSPOSE_AUTO, 8, 64, 128), kernels::TransposeKernel::SharedPadded);
    EXPECT_EQ(transpose_kernel_for(GM_TRANSPOSE_SHARED, 4, 64, 128), kernels::TransposeKernel::Shared);
}
