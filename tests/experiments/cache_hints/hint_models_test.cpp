// The cache_hints host models without a device: the sector model of strided
// reads against larger fetch units, the reused set's DRAM bytes with and
// without protection, the sums the kernels must produce, and the parameters.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "experiments/cache_hints/hint_models.hpp"
#include "unit_checks.hpp"
#include "shared_kernels/pattern.hpp"

using namespace gmlab;

namespace {

// The fetched bytes counted one word at a time: the distinct units touched.
std::uint64_t brute_fetched(std::uint64_t n, std::uint64_t stride, std::uint64_t unit) {
    std::uint64_t units = 0, last = ~0ull;
    for (std::uint64_t i = 0; i < n; ++i) {
        const std::uint64_t u = i * stride / unit;
        if (u != last) ++units;
        last = u;
    }
    return units * unit;
}

}  // namespace

TEST(FetchModel, UnitIsNeverBelowASector) {
    EXPECT_EQ(fetch_unit(0), 32u);
    EXPECT_EQ(fetch_unit(32), 32u);
    EXPECT_EQ(fetch_unit(64), 64u);
    EXPECT_EQ(fetch_unit(256), 256u);
}

TEST(FetchModel, SectorModelOfStridedWords) {
    const std::uint64_t n = 1 << 20;
    // Stride 256 bytes: each word in its own unit, whatever the unit up to 256.
    EXPECT_EQ(fetched_bytes(n, 256, 32), n * 32);
    EXPECT_EQ(fetched_bytes(n, 256, 128), n * 128);
    EXPECT_EQ(fetched_bytes(n, 256, 256), n * 256);
    // Stride 64: 32-byte sectors fetch half the region, larger units all of it.
    EXPECT_EQ(fetched_bytes(n, 64, 32), n * 32);
    EXPECT_EQ(fetched_bytes(n, 64, 64), n * 64);
    EXPECT_EQ(fetched_bytes(n, 64, 128), n * 64);
    EXPECT_EQ(fetched_bytes(n, 64, 256), n * 64);
    // Contiguous words: the region once.
    EXPECT_EQ(fetched_bytes(n, 4, 32), n * 4);
    EXPECT_EQ(fetched_bytes(1, 4, 256), 256u);
    EXPECT_EQ(fetched_bytes(0, 64, 32), 0u);
    for (std::uint64_t stride : {4, 8, 12, 32, 48, 64, 100, 128, 256, 1000})
        for (std::uint64_t unit : {32, 64, 128, 256})
            for (std::uint64_t count : {1, 2, 7, 1000}) EXPECT_EQ(fetched_bytes(count, stride, unit), brute_fetched(count, stride, unit))
                << count << " reads, stride " << stride << ", unit " << unit;
}

TEST(ReuseModel, ProtectedAndUnprotectedDramBytes) {
    // 2 x L2 of stream beside half an L2 reused: read 4 times.
    const std::uint64_t l2_vectors = (60u << 20) / 16;
    const ReuseModel m = reuse_model(2 * l2_vectors, l2_vectors / 2);
    EXPECT_DOUBLE_EQ(m.reused_reads, 4.0);
    EXPECT_EQ(m.reused_read_bytes, 2 * l2_vectors * 16);
    EXPECT_EQ(m.dram_protected, 2 * l2_vectors * 16 + l2_vectors * 8);
    EXPECT_EQ(m.dram_unprotected, 4 * l2_vectors * 16);
    EXPECT_DOUBLE_EQ(m.reused_hit_share_protected, 0.75);
    const ReuseModel once = reuse_model(100, 100);
    EXPECT_DOUBLE_EQ(once.reused_hit_share_protected, 0.0);
}

TEST(ReuseModel, SumsMatchTheKernelsWalk) {
    for (std::uint64_t n_reused : {1, 3, 7, 10}) {
        const std::uint64_t n_stream = 23;
        std::uint64_t stream = 0, reused = 0;
        for (std::uint64_t i = 0; i < n_stream; ++i)
            for (std::uint64_t w = 0; w < 4; ++w) {
                stream += pattern_word(4 * i + w, 11);
                reused += pattern_word(4 * (i % n_reused) + w, 12);
            }
        const ReuseSums s = reuse_sums(n_stream, n_reused, 11, 12);
        EXPECT_EQ(s.stream, stream);
        EXPECT_EQ(s.reused, reused) << n_reused;
    }
    std::uint64_t strided = 0;
    for (std::uint64_t i = 0; i < 1000; ++i) strided += pattern_word(i * 16, 5);
    EXPECT_EQ(strided_sum(1000, 16, 5), strided);
    // Large enough to run on several host threads: the chunks add up.
    std::uint64_t big = 0;
    for (std::uint64_t k = 0; k < (3u << 20) + 5; ++k) big += pattern_word(k, 9);
    EXPECT_EQ(pattern_sum(0, (3u << 20) + 5, 9), big);
}

TEST(CacheHintsParams, BadValuesAreRefusedWithTheRange) {
    EXPECT_NE(param_error("cache_hints", {{"reused_over_l2", 0}}).find("reused_over_l2 must be in 0.01..4"), std::string::npos);
    EXPECT_NE(param_error("cache_hints", {{"stream_over_l2", 20}}).find("stream_over_l2 must be in 0.1..16"), std::string::npos);
    EXPECT_NE(param_error("cache_hints", {{"strides", {0}}}).find("strides must be in 4..4096"), std::string::npos);
    EXPECT_NE(param_error("cache_hints", {{"hints", {"evict_everything"}}}).find("hints must be"), std::string::npos);
    EXPECT_NE(param_error("cache_hints", {{"prefetch", {"granularity_16"}}}).find("prefetch must be"), std::string::npos);
    EXPECT_EQ(param_error("cache_hints", {{"hints", {"default", "window_persisting"}}, {"prefetch", {"plain", "granularity_32"}}}), "");
}
