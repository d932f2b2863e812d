// The shape checks of gm_matmul, without a device.
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "operations/matmul.hpp"
#include "unit_checks.hpp"

using namespace gmlab;

namespace {

std::string matmul_error(std::size_t a, std::size_t b, std::size_t c, std::size_t m, std::size_t n, std::size_t k, int v) {
    return argument_error([&] { check_matmul(a, b, c, m, n, k, v); });
}

}  // namespace

TEST(MatmulChecks, ShapesMustFitTheBuffers) {
    EXPECT_EQ(matmul_error(4 * 6, 4 * 12, 4 * 8, 2, 4, 3, GM_MATMUL_SHARED_AB), "");
    EXPECT_EQ(matmul_error(4 * 5, 4 * 12, 4 * 8, 2, 4, 3, GM_MATMUL_SIMPLE), "A (2 x 3 floats) needs 24 bytes, the buffer holds 20");
    EXPECT_EQ(matmul_error(4 * 6, 4 * 11, 4 * 8, 2, 4, 3, GM_MATMUL_SIMPLE), "B (3 x 4 floats) needs 48 bytes, the buffer holds 44");
    EXPECT_EQ(matmul_error(4 * 6, 4 * 12, 4 * 7, 2, 4, 3, GM_MATMUL_SIMPLE), "C (2 x 4 floats) needs 32 bytes, the buffer holds 28");
    EXPECT_EQ(matmul_error(64, 64, 64, 0, 4, 3, GM_MATMUL_SIMPLE), "m, n and k must be at least 1, got 0, 4, 3");
    EXPECT_EQ(matmul_error(64, 64, 64, 1, 1, 1, 3), "variant must be 0..2 (gm_matmul_variant), got 3");
    EXPECT_EQ(matmul_error(SIZE_MAX, SIZE_MAX, SIZE_MAX, 65536, 65536, 1, GM_MATMUL_SIMPLE),
              "C (65536 x 65536) must hold fewer than 2^31 elements");
}
