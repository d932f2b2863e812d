#include <cstdint>
#include <random>
#include <vector>

#include "gpu_fixture.hpp"

TEST_F(GpuTest, BufferRoundTripsBytesAtAnOffset) {
    gm_buffer *buf = nullptr;
    ASSERT_EQ(gm_buffer_create(&buf, ctx, 4096), GM_OK);
    EXPECT_EQ(gm_buffer_size(buf), 4096u);
    std::vector<unsigned char> in(1000);
    std::mt19937 rng(1);
    for (auto &b : in) b = static_cast<unsigned char>(rng());
    ASSERT_EQ(gm_buffer_fill(buf, 0xAB), GM_OK);
    ASSERT_EQ(gm_buffer_upload(buf, 100, in.data(), in.size()), GM_OK);
    std::vector<unsigned char> all(4096);
    ASSERT_EQ(gm_buffer_download(buf, 0, all.data(), all.size()), GM_OK);
    for (size_t i = 0; i < all.size(); ++i) {
        const unsigned char want = (i >= 100 && i < 1100) ? in[i - 100] : 0xAB;
        ASSERT_EQ(all[i], want) << "byte " << i;
    }
    gm_buffer_destroy(buf);
}

TEST_F(GpuTest, BufferRejectsRangesOutsideIt) {
    gm_buffer *buf = nullptr;
    ASSERT_EQ(gm_buffer_create(&buf, ctx, 64), GM_OK);
    std::vector<unsigned char> data(128);
    EXPECT_EQ(gm_buffer_upload(buf, 1, data.data(), 64), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gm_context_last_error(ctx)).find("must not exceed the buffer size 64"), std::string::npos);
    EXPECT_EQ(gm_buffer_download(buf, SIZE_MAX, data.data(), 2), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(gm_buffer_upload(buf, 0, nullptr, 8), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(gm_buffer_fill(buf, 256), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(gm_buffer_create(&buf, ctx, 0), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(buf, nullptr);
}

TEST_F(GpuTest, BufferLargerThanTheDeviceIsOutOfMemory) {
    gm_buffer *buf = nullptr;
    EXPECT_EQ(gm_buffer_create(&buf, ctx, size_t(1) << 50), GM_ERROR_OUT_OF_MEMORY);
    EXPECT_EQ(buf, nullptr);
    EXPECT_NE(std::string(gm_context_last_error(ctx)).find("cannot allocate"), std::string::npos);
    // The context still works.
    ASSERT_EQ(gm_buffer_create(&buf, ctx, 1024), GM_OK);
    gm_buffer_destroy(buf);
}

// gm_copy_strided against a host model, for every word size.
TEST_F(GpuTest, StridedCopyMatchesTheHostModel) {
    const size_t words_in = 5000, words_out = 7000;
    for (size_t w : {1u, 2u, 4u, 8u, 16u}) {
        gm_buffer *src = nullptr, *dst = nullptr;
        ASSERT_EQ(gm_buffer_create(&src, ctx, words_in * w), GM_OK);
        ASSERT_EQ(gm_buffer_create(&dst, ctx, words_out * w), GM_OK);
        std::vector<unsigned char> in(words_in * w), out(words_out * w, 0x5A);
        std::mt19937 rng(static_cast<unsigned>(w));
        for (auto &b : in) b = static_cast<unsigned char>(rng());
        ASSERT_EQ(gm_buffer_upload(src, 0, in.data(), in.size()), GM_OK);
        ASSERT_EQ(gm_buffer_upload(dst, 0, out.data(), out.size()), GM_OK);
        const size_t count = 1234, so = 7, ss = 3, dof = 11, ds = 5;
        ASSERT_EQ(gm_copy_strided(ctx, dst, dof, ds, src, so, ss, count, w), GM_OK) << gm_context_last_error(ctx);
        for (size_t i = 0; i < count; ++i)
            std::copy_n(&in[(so + i * ss) * w], w, &out[(dof + i * ds) * w]);
        std::vector<unsigned char> got(out.size());
        ASSERT_EQ(gm_buffer_download(dst, 0, got.data(), got.size()), GM_OK);
        EXPECT_EQ(got, out) << "word size " << w;
        // The last word would land one past the end of dst.
        EXPECT_EQ(gm_copy_strided(ctx, dst, 0, words_out / 10, src, 0, 1, 11, w), GM_ERROR_INVALID_ARGUMENT);
        EXPECT_NE(std::string(gm_context_last_error(ctx)).find("dst: offset 0"), std::string::npos);
        gm_buffer_destroy(src);
        gm_buffer_destroy(dst);
    }
}

TEST_F(GpuTest, StridedCopyRejectsBadArguments) {
    gm_buffer *a = nullptr, *b = nullptr;
    ASSERT_EQ(gm_buffer_create(&a, ctx, 1024), GM_OK);
    ASSERT_EQ(gm_buffer_create(&b, ctx, 1024), GM_OK);
    EXPECT_EQ(gm_copy_strided(ctx, a, 0, 1, b, 0, 1, 4, 3), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gm_context_last_error(ctx)).find("word_size must be one of 1, 2, 4, 8, 16, got 3"), std::string::npos);
    EXPECT_EQ(gm_copy_strided(ctx, a, 0, 0, b, 0, 1, 4, 4), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(gm_copy_strided(ctx, a, 0, 1, a, 0, 1, 4, 4), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(gm_copy_strided(ctx, a, 0, 1, nullptr, 0, 1, 4, 4), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(gm_copy_strided(ctx, a, 0, 1, b, 0, SIZE_MAX, 4, 4), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(gm_copy_strided(ctx, a, 0, 1, b, 0, 1, 0, 4), GM_OK);  // nothing to copy
    gm_buffer_destroy(a);
    gm_buffer_destroy(b);
}
