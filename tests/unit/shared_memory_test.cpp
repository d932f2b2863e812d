// The bank model and the shape checks of gm_transpose and gm_matmul, without a device.
#include <cmath>
#include <numeric>

#include <gtest/gtest.h>

#include "bank_model.hpp"
#include "error.hpp"
#include "operations.hpp"

using namespace gmlab;

TEST(BankModel, FourByteStridesConflictAsTheirGcdWith32) {
    for (unsigned s = 1; s <= 32; ++s)
        EXPECT_EQ(shared_conflict_ways(4, s), static_cast<double>(std::gcd(s, 32u))) << "stride " << s;
    EXPECT_EQ(shared_wavefronts(4, 0), 1);  // broadcast
    EXPECT_EQ(shared_wavefronts(4, 1), 1);
}

TEST(BankModel, EightByteWordsTakeTwoPassesWithoutConflicts) {
    EXPECT_EQ(shared_wavefronts(8, 1), 2);
    EXPECT_EQ(shared_conflict_ways(8, 1), 1);
    EXPECT_EQ(shared_conflict_ways(8, 2), 2);
    EXPECT_EQ(shared_conflict_ways(8, 3), 1);
    EXPECT_EQ(shared_conflict_ways(8, 16), 16);
    EXPECT_EQ(shared_conflict_ways(8, 32), 16);  // 32 passes over the 2 of stride 1
    EXPECT_EQ(shared_wavefronts(8, 32), 32);
    EXPECT_EQ(shared_wavefronts(8, 0), 1);  // 8 bytes: one pass
    EXPECT_EQ(shared_conflict_ways(8, 0), 0.5);
}

namespace {
std::string transpose_error(std::size_t in, std::size_t out, std::size_t r, std::size_t c, std::size_t e, int v) {
    try {
        check_transpose(in, out, r, c, e, v);
    } catch (const Error &err) {
        EXPECT_EQ(err.status(), GM_ERROR_INVALID_ARGUMENT);
        return err.what();
    }
    return "";
}
std::string matmul_error(std::size_t a, std::size_t b, std::size_t c, std::size_t m, std::size_t n, std::size_t k, int v) {
    try {
        check_matmul(a, b, c, m, n, k, v);
    } catch (const Error &err) {
        EXPECT_EQ(err.status(), GM_ERROR_INVALID_ARGUMENT);
        return err.what();
    }
    return "";
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

TEST(TransposeChecks, AutoPicksTheWideKernelWhereItFits) {
    EXPECT_EQ(transpose_kernel_for(GM_TRANSPOSE_AUTO, 4, 64, 128), kernels::TransposeKernel::Wide);
    EXPECT_EQ(transpose_kernel_for(GM_TRANSPOSE_AUTO, 4, 63, 128), kernels::TransposeKernel::SharedPadded);
    EXPECT_EQ(transpose_kernel_for(GM_TRANSPOSE_AUTO, 8, 64, 128), kernels::TransposeKernel::SharedPadded);
    EXPECT_EQ(transpose_kernel_for(GM_TRANSPOSE_SHARED, 4, 64, 128), kernels::TransposeKernel::Shared);
}

TEST(StencilChecks, ArgumentsAreChecked) {
    const float c[4] = {1, 2, 3, 4};
    auto error = [&](std::size_t in, std::size_t out, std::size_t n, const float *coef) -> std::string {
        try {
            check_stencil_args(in, out, n, coef);
        } catch (const Error &e) {
            EXPECT_EQ(e.status(), GM_ERROR_INVALID_ARGUMENT);
            return e.what();
        }
        return "";
    };
    EXPECT_EQ(error(400, 400, 100, c), "");
    EXPECT_EQ(error(400, 400, 100, nullptr), "coefficients must not be NULL");
    EXPECT_EQ(error(400, 400, 0, c), "n must be at least 1, got 0");
    EXPECT_EQ(error(396, 400, 100, c), "in holds 99 floats, n is 100");
    EXPECT_EQ(error(400, 4, 100, c), "out holds 1 floats, n is 100");
    const float bad[4] = {1, NAN, 0, 0};
    EXPECT_EQ(error(400, 400, 100, bad), "coefficients[1] must be finite");
}
