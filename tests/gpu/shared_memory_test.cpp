// gm_transpose and gm_matmul against host models, and the shared-memory
// experiments on small inputs.
#include <random>
#include <vector>

#include "gpu_fixture.hpp"

using nlohmann::json;

namespace {

struct Buffers {
    gm_buffer *in = nullptr, *out = nullptr;
    ~Buffers() {
        gm_buffer_destroy(in);
        gm_buffer_destroy(out);
    }
};

}  // namespace

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

TEST_F(GpuTest, BankConflictsFollowTheModel) {
    json doc = run("bank_conflicts", R"({"strides": "0..2,32", "iterations": 256, "blocks_per_sm": 1})");
    ASSERT_FALSE(doc.is_null());
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    ASSERT_EQ(doc["series"].size(), 4u);  // read/write x 4/8-byte words
    const json &read4 = doc["series"][0];
    EXPECT_EQ(read4["name"], "read, 4-byte words");
    ASSERT_EQ(read4["points"].size(), 4u);
    EXPECT_EQ(read4["points"][3]["predicted"]["n_way"].get<int>(), 32);
    // A 32-way conflict is slower than a conflict-free access.
    EXPECT_GT(read4["points"][3]["values"]["ns_per_warp_access"].get<double>(),
              2 * read4["points"][1]["values"]["ns_per_warp_access"].get<double>());
    EXPECT_EQ(doc["series"][1]["points"].size(), 3u);  // writes skip stride 0
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

TEST_F(GpuTest, SharedAllocReportsResources) {
    json doc = run("shared_alloc", R"({"elements": 1048576})");
    ASSERT_FALSE(doc.is_null());
    ASSERT_EQ(doc["series"].size(), 2u);
    const json &st = doc["series"][0]["points"][0]["values"];
    const json &dy = doc["series"][1]["points"][0]["values"];
    EXPECT_EQ(st["static_shared_bytes"].get<double>(), 1024);
    EXPECT_EQ(st["dynamic_shared_bytes"].get<double>(), 0);
    EXPECT_EQ(dy["static_shared_bytes"].get<double>(), 0);
    EXPECT_EQ(dy["dynamic_shared_bytes"].get<double>(), 1024);
    EXPECT_GT(st["registers"].get<double>(), 0);
}
