// Constant memory and the stencil on small inputs: gm_stencil_constant
// against the host, reads serialised per address, any stencil length.
#include <cmath>
#include <random>
#include <vector>

#include "gpu_fixture.hpp"

using nlohmann::json;

TEST_F(GpuTest, StencilOperationsMatchTheHost) {
    const float c[4] = {0.5f, -0.25f, 0.125f, -0.0625f};
    std::mt19937 rng(2);
    std::uniform_int_distribution<int> small(-8, 8);
    for (size_t n : {1u, 3u, 8u, 9u, 255u, 2049u, 100003u}) {
        std::vector<float> in(n), want(n);
        for (auto &x : in) x = static_cast<float>(small(rng));  // exact sums
        for (size_t i = 0; i < n; ++i) {
            double s = 0;
            for (int r = 1; r <= 4; ++r) s += c[r - 1] * ((i + r < n ? in[i + r] : 0.0) - (i >= size_t(r) ? in[i - r] : 0.0));
            want[i] = static_cast<float>(s);
        }
        gm_buffer *din = nullptr, *dout = nullptr;
        ASSERT_EQ(gm_buffer_create(&din, ctx, n * 4), GM_OK);
        ASSERT_EQ(gm_buffer_create(&dout, ctx, n * 4), GM_OK);
        ASSERT_EQ(gm_buffer_upload(din, 0, in.data(), n * 4), GM_OK);
        for (int constant = 0; constant < 2; ++constant) {
            ASSERT_EQ(gm_buffer_fill(dout, 0xFF), GM_OK);
            const gm_status s = constant ? gm_stencil_constant(ctx, din, dout, n, c) : gm_stencil_readonly(ctx, din, dout, n, c);
            ASSERT_EQ(s, GM_OK) << gm_context_last_error(ctx);
            std::vector<float> got(n);
            ASSERT_EQ(gm_buffer_download(dout, 0, got.data(), n * 4), GM_OK);
            EXPECT_EQ(got, want) << "n = " << n << (constant ? ", constant" : ", readonly");
        }
        EXPECT_EQ(gm_stencil_constant(ctx, din, dout, n + 1, c), GM_ERROR_INVALID_ARGUMENT);
        EXPECT_EQ(gm_stencil_constant(ctx, din, dout, 0, c), GM_ERROR_INVALID_ARGUMENT);
        EXPECT_EQ(gm_stencil_readonly(ctx, din, dout, n, nullptr), GM_ERROR_INVALID_ARGUMENT);
        EXPECT_EQ(gm_stencil_readonly(ctx, din, din, n, c), GM_ERROR_INVALID_ARGUMENT);
        gm_buffer_destroy(din);
        gm_buffer_destroy(dout);
    }
}

TEST_F(GpuTest, ConstantReadsSerializePerAddress) {
    json doc = run("constant_broadcast", R"({"k": [1, 2, 32], "iterations": 512})");
    ASSERT_FALSE(doc.is_null());
    const json &pts = doc["series"][0]["points"];
    ASSERT_EQ(pts.size(), 3u);
    EXPECT_GT(pts[2]["values"]["ns_per_warp_access"].get<double>(), 4 * pts[0]["values"]["ns_per_warp_access"].get<double>());
    EXPECT_TRUE(doc["summary"].contains("k32_over_k1"));
    EXPECT_TRUE(doc["summary"].contains("fit_ns_per_address"));
}

TEST_F(GpuTest, StencilExperimentHandlesAnyLength) {
    json doc = run("stencil", R"({"elements": 1000003, "per_thread": 4, "block_size": 96})");
    ASSERT_FALSE(doc.is_null());
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    EXPECT_TRUE(doc["summary"].contains("constant_time_over_ldg"));
    EXPECT_FALSE(doc["summary"].contains("constant_over_copy"));  // 1000003 floats are not whole 16-byte vectors
    json even = run("stencil", R"({"elements": 1048576})");
    ASSERT_FALSE(even.is_null());
    EXPECT_TRUE(even["summary"].contains("constant_over_copy"));
}
