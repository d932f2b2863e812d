// gm_transpose against the host model, and the transpose experiment on odd shapes.
#include <random>
#include <string>
#include <vector>

#include "gpu_fixture.hpp"

using nlohmann::json;

TEST_F(GpuTest, TransposeMatchesTheHostForAnyShape) {
    const std::pair<size_t, size_t> shapes[] = {{1, 1}, {1, 37}, {37, 1}, {31, 33}, {64, 64}, {100, 260}, {257, 96}, {4, 1000}};
    std::mt19937 rng(5);
    for (auto [rows, cols] : shapes) {
        for (size_t e : {1u, 2u, 4u, 8u, 16u}) {
            for (int v = GM_TRANSPOSE_NAIVE; v <= GM_TRANSPOSE_AUTO; ++v) {
                if (v == GM_TRANSPOSE_WIDE && !(e == 4 && rows % 4 == 0 && cols % 4 == 0)) continue;
                Buffers b;
                const size_t bytes = rows * cols * e;
                ASSERT_EQ(gm_buffer_create(&b.in, ctx, bytes), GM_OK);
                ASSERT_EQ(gm_buffer_create(&b.out, ctx, bytes), GM_OK);
                std::vector<unsigned char> in(bytes), want(bytes), got(bytes);
                for (auto &x : in) x = static_cast<unsigned char>(rng());
                for (size_t r = 0; r < rows; ++r)
                    for (size_t c = 0; c < cols; ++c) std::copy_n(&in[(r * cols + c) * e], e, &want[(c * rows + r) * e]);
                ASSERT_EQ(gm_buffer_upload(b.in, 0, in.data(), bytes), GM_OK);
                ASSERT_EQ(gm_buffer_fill(b.out, 0xEE), GM_OK);
                ASSERT_EQ(gm_transpose(ctx, b.in, b.out, rows, cols, e, static_cast<gm_transpose_variant>(v)), GM_OK)
                    << gm_context_last_error(ctx);
                ASSERT_EQ(gm_buffer_download(b.out, 0, got.data(), bytes), GM_OK);
                ASSERT_EQ(got, want) << rows << " x " << cols << ", " << e << "-byte elements, variant " << v;
            }
        }
    }
}

TEST_F(GpuTest, TransposeRefusesBadArguments) {
    Buffers b;
    ASSERT_EQ(gm_buffer_create(&b.in, ctx, 400), GM_OK);
    ASSERT_EQ(gm_buffer_create(&b.out, ctx, 200), GM_OK);
    EXPECT_EQ(gm_transpose(ctx, b.in, b.out, 10, 10, 4, GM_TRANSPOSE_AUTO), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gm_context_last_error(ctx)).find("out (10 x 10 x 4) needs 400 bytes, the buffer holds 200"), std::string::npos);
    EXPECT_EQ(gm_transpose(ctx, b.in, b.in, 5, 5, 4, GM_TRANSPOSE_AUTO), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(gm_transpose(ctx, b.in, nullptr, 5, 5, 4, GM_TRANSPOSE_AUTO), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(gm_transpose(ctx, b.in, b.out, 5, 5, 4, GM_TRANSPOSE_WIDE), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(gm_transpose(ctx, b.in, b.out, 5, 5, 4, static_cast<gm_transpose_variant>(9)), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(gm_transpose(ctx, b.in, b.out, 5, 5, 4, GM_TRANSPOSE_AUTO), GM_OK);  // still usable
}

TEST_F(GpuTest, TransposeExperimentHandlesOddShapes) {
    json doc = run("transpose", R"({"rows": 1000, "cols": 777, "element_sizes": [4, 8]})");
    ASSERT_FALSE(doc.is_null());
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    // wide needs dimensions that are multiples of 4: skipped, and said so.
    for (const json &s : doc["series"]) EXPECT_NE(s["variant"], "wide");
    bool said = false;
    for (const json &n : doc["notes"]) said |= n.get<std::string>().find("wide skipped") != std::string::npos;
    EXPECT_TRUE(said);
    json square = run("transpose", R"({"rows": 512, "cols": 256, "element_sizes": [4]})");
    ASSERT_FALSE(square.is_null());
    EXPECT_TRUE(square["summary"].contains("wide_w4_over_copy"));
    EXPECT_TRUE(square["summary"].contains("padded_over_shared_w4"));
}
