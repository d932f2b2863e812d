// gm_matmul against the host model, and the matrix-product experiments.
#include <random>
#include <string>
#include <vector>

#include "gpu_fixture.hpp"

using nlohmann::json;

TEST_F(GpuTest, MatmulMatchesTheHostForAnyShape) {
    const int shapes[][3] = {{1, 1, 1}, {33, 17, 5}, {64, 64, 32}, {70, 129, 100}, {5, 300, 64}};
    std::mt19937 rng(9);
    std::uniform_int_distribution<int> small(-4, 4);
    for (const auto &s : shapes) {
        const int m = s[0], n = s[1], k = s[2];
        std::vector<float> a(static_cast<size_t>(m) * k), b(static_cast<size_t>(k) * n), want(static_cast<size_t>(m) * n);
        for (auto &x : a) x = small(rng) * 0.25f;  // exact sums: the comparison can be exact
        for (auto &x : b) x = small(rng) * 0.25f;
        for (int r = 0; r < m; ++r)
            for (int c = 0; c < n; ++c) {
                float sum = 0;
                for (int i = 0; i < k; ++i) sum += a[r * k + i] * b[i * n + c];
                want[r * n + c] = sum;
            }
        gm_buffer *da = nullptr, *db = nullptr, *dc = nullptr;
        ASSERT_EQ(gm_buffer_create(&da, ctx, a.size() * 4), GM_OK);
        ASSERT_EQ(gm_buffer_create(&db, ctx, b.size() * 4), GM_OK);
        ASSERT_EQ(gm_buffer_create(&dc, ctx, want.size() * 4), GM_OK);
        ASSERT_EQ(gm_buffer_upload(da, 0, a.data(), a.size() * 4), GM_OK);
        ASSERT_EQ(gm_buffer_upload(db, 0, b.data(), b.size() * 4), GM_OK);
        for (int v = GM_MATMUL_SIMPLE; v <= GM_MATMUL_SHARED_AB; ++v) {
            ASSERT_EQ(gm_buffer_fill(dc, 0xFF), GM_OK);
            ASSERT_EQ(gm_matmul(ctx, da, db, dc, m, n, k, static_cast<gm_matmul_variant>(v)), GM_OK) << gm_context_last_error(ctx);
            std::vector<float> got(want.size());
            ASSERT_EQ(gm_buffer_download(dc, 0, got.data(), got.size() * 4), GM_OK);
            EXPECT_EQ(got, want) << m << " x " << n << " x " << k << ", variant " << v;
        }
        EXPECT_EQ(gm_matmul(ctx, da, db, dc, m + 1, n, k, GM_MATMUL_SIMPLE), GM_ERROR_INVALID_ARGUMENT);
        EXPECT_EQ(gm_matmul(ctx, da, db, da, m, n, k, GM_MATMUL_SIMPLE), GM_ERROR_INVALID_ARGUMENT);
        gm_buffer_destroy(da);
        gm_buffer_destroy(db);
        gm_buffer_destroy(dc);
    }
}

TEST_F(GpuTest, MatrixProductExperimentsVerify) {
    json ab = run("matmul_ab", R"({"m": 256, "n": 96})");
    ASSERT_FALSE(ab.is_null());
    EXPECT_EQ(ab["series"].size(), 3u);
    EXPECT_TRUE(ab["summary"].contains("shared_ab_over_simple"));
    EXPECT_EQ(ab["published"]["figures"]["shared_ab_gbs"].get<double>(), 195.5);
    EXPECT_GT(ab["series"][0]["points"][0]["values"]["gflops"].get<double>(), 0);
    json aat = run("matmul_aat", R"({"m": 128})");
    ASSERT_FALSE(aat.is_null());
    EXPECT_TRUE(aat["summary"].contains("padded_over_coalesced"));
    gm_result *r = nullptr;
    EXPECT_EQ(gm_run(&r, ctx, "matmul_ab", R"({"m": 100})"), GM_ERROR_INVALID_ARGUMENT);  // not whole tiles
    EXPECT_NE(std::string(gm_context_last_error(ctx)).find("multiple of 32"), std::string::npos);
}
