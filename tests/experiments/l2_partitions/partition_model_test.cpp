// The l2_partitions host model without a device: the lines drawn, the SMs
// chosen, the two-means split into near and far levels, the two-partition fit,
// and the parameters' bounds.
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/experiment/registry.hpp"
#include "experiments/l2_partitions/partition_model.hpp"
#include "unit_checks.hpp"

using namespace gmlab;

namespace {

constexpr std::size_t MiB = 1024 * 1024;

// Latencies of an H100-like partitioned L2: near about 265, far about 475
// cycles, with a deterministic spread of a few cycles.
std::vector<double> two_levels(std::size_t near, std::size_t far) {
    std::vector<double> v;
    for (std::size_t i = 0; i < near; ++i) v.push_back(262 + static_cast<double>(i % 7));
    for (std::size_t i = 0; i < far; ++i) v.push_back(470 + static_cast<double>(i % 11));
    return v;
}

}  // namespace

TEST(PartitionLines, AreDistinctAlignedAndNeverAPageStart) {
    const std::vector<std::uint64_t> lines = choose_lines(64 * MiB, 4096, 1);
    ASSERT_EQ(lines.size(), 4096u);
    std::set<std::uint64_t> seen;
    for (std::uint64_t o : lines) {
        EXPECT_EQ(o % 128, 0u);
        EXPECT_LT(o, 64 * MiB);
        EXPECT_NE(o % (2 * MiB), 0u) << "a page start is the translation warm-up's, not a line's";
        EXPECT_TRUE(seen.insert(o).second) << "line " << o << " drawn twice";
    }
    EXPECT_EQ(choose_lines(64 * MiB, 4096, 1), lines);  // fixed seed
    // Spread over the region, not bunched at its start.
    EXPECT_GT(*seen.rbegin(), 48 * MiB);
}

TEST(PartitionLines, TooSmallARegionIsRefusedWithBothNames) {
    // 2 MiB holds 16384 lines, fewer than 4 x 4096 besides the page start.
    const std::string e = argument_error([] { choose_lines(2 * MiB, 4096, 1); });
    EXPECT_TRUE(contains(e, "region_bytes (2097152) must hold at least 4 x lines (4096)")) << e;
    EXPECT_EQ(choose_lines(2 * MiB, 4095, 1).size(), 4095u);
}

TEST(PartitionSms, EveryNthOfTheIdsSeen) {
    const std::vector<std::uint32_t> bits = {0xFFFFFFFFu, 0x0000000Fu};  // SMs 0..35
    const std::vector<unsigned> ids = sm_ids_of(bits);
    ASSERT_EQ(ids.size(), 36u);
    EXPECT_EQ(ids.back(), 35u);
    EXPECT_EQ(every_nth_sm(ids, 4), (std::vector<unsigned>{0, 4, 8, 12, 16, 20, 24, 28, 32}));
    EXPECT_EQ(every_nth_sm(ids, 1).size(), 36u);
    EXPECT_EQ(every_nth_sm(ids, 100), (std::vector<unsigned>{0}));
    // Ids need not be contiguous (%smid under MIG or with SMs fused off).
    EXPECT_EQ(sm_ids_of({0x5u, 0x0u, 0x1u}), (std::vector<unsigned>{0, 2, 64}));
}

TEST(TwoLevels, FindsNearAndFarAndTheGap) {
    const TwoLevels t = split_two_levels(two_levels(128, 128), 0.15, 0.05);
    ASSERT_TRUE(t.found);
    EXPECT_EQ(t.n_low, 128u);
    EXPECT_EQ(t.n_high, 128u);
    EXPECT_NEAR(t.low, 265, 3);
    EXPECT_NEAR(t.high, 475, 5);
    EXPECT_NEAR(t.gap, t.high - t.low, 1e-9);
    EXPECT_GT(t.threshold, 268);
    EXPECT_LT(t.threshold, 470);
    EXPECT_FALSE(is_far(300, t));
    EXPECT_TRUE(is_far(450, t));
}

TEST(TwoLevels, UnevenSharesStillSplit) {
    const TwoLevels t = split_two_levels(two_levels(200, 56), 0.15, 0.05);
    ASSERT_TRUE(t.found);
    EXPECT_EQ(t.n_high, 56u);
}

TEST(TwoLevels, OneLevelWhereTheGroupsAreCloseOrTiny) {
    // One level with a spread: any split is closer than min_gap.
    std::vector<double> one;
    for (int i = 0; i < 256; ++i) one.push_back(260 + i % 30);
    const TwoLevels a = split_two_levels(one, 0.15, 0.05);
    EXPECT_FALSE(a.found);
    EXPECT_NEAR(a.low, 274.5, 1);
    EXPECT_EQ(a.low, a.high);
    EXPECT_FALSE(is_far(1000, a));
    // A handful of slow outliers (2%) is not a level.
    std::vector<double> outliers = two_levels(251, 0);
    for (int i = 0; i < 5; ++i) outliers.push_back(900);
    EXPECT_FALSE(split_two_levels(outliers, 0.15, 0.05).found);
    // Every value the same, one value, none.
    EXPECT_FALSE(split_two_levels(std::vector<double>(10, 300.0), 0.15, 0.05).found);
    EXPECT_FALSE(split_two_levels({300.0}, 0.15, 0.05).found);
    EXPECT_FALSE(split_two_levels({}, 0.15, 0.05).found);
}

TEST(TwoLevels, SharesOfAChase) {
    const TwoLevels t = split_two_levels(two_levels(100, 100), 0.15, 0.05);
    ASSERT_TRUE(t.found);
    const LevelShares s = level_shares({265, 266, 470, 480, 700}, t);
    EXPECT_DOUBLE_EQ(s.near, 0.4);
    EXPECT_DOUBLE_EQ(s.far, 0.4);
    EXPECT_DOUBLE_EQ(s.beyond, 0.2);
    TwoLevels one;
    one.low = one.high = 280;
    const LevelShares o = level_shares({280, 300, 500}, one);
    EXPECT_NEAR(o.near, 2.0 / 3, 1e-12);
    EXPECT_NEAR(o.beyond, 1.0 / 3, 1e-12);
    EXPECT_EQ(o.far, 0.0);
}

TEST(PartitionFit, RecoversSidesAndHomes) {
    // 6 SMs, sides 0 0 1 0 1 1; 8 lines, homes 0 1 1 0 1 0 0 1; far = side != home.
    const std::vector<int> side = {0, 0, 1, 0, 1, 1}, home = {0, 1, 1, 0, 1, 0, 0, 1};
    std::vector<std::vector<bool>> far(side.size(), std::vector<bool>(home.size()));
    for (std::size_t s = 0; s < side.size(); ++s)
        for (std::size_t l = 0; l < home.size(); ++l) far[s][l] = side[s] != home[l];
    const PartitionFit f = fit_sides(far);
    EXPECT_EQ(f.side, side);
    EXPECT_EQ(f.home, home);
    EXPECT_DOUBLE_EQ(f.consistency, 1.0);
    // One measurement flipped: the fit stands, and explains all pairs but one.
    far[3][5] = !far[3][5];
    const PartitionFit g = fit_sides(far);
    EXPECT_EQ(g.side, side);
    EXPECT_EQ(g.home, home);
    EXPECT_NEAR(g.consistency, 47.0 / 48.0, 1e-12);
}

TEST(PartitionFit, NoFarLineIsOneSide) {
    const PartitionFit f = fit_sides(std::vector<std::vector<bool>>(4, std::vector<bool>(16, false)));
    EXPECT_EQ(f.side, (std::vector<int>{0, 0, 0, 0}));
    EXPECT_DOUBLE_EQ(f.consistency, 1.0);
    EXPECT_TRUE(fit_sides({}).side.empty());
}

TEST(PartitionFit, FarLinesAsHex) {
    EXPECT_EQ(bits_hex({true, false, false, false, false, true, true, true, true}), "1e1");
    EXPECT_EQ(bits_hex({}), "");
}

TEST(L2PartitionsParams, BadValuesAreRefusedWithTheRange) {
    EXPECT_NE(param_error("l2_partitions", {{"lines", 8}}).find("lines must be in 16..4096, got 8"), std::string::npos);
    EXPECT_NE(param_error("l2_partitions", {{"sm_step", 0}}).find("sm_step must be in 1..1024"), std::string::npos);
    EXPECT_NE(param_error("l2_partitions", {{"sweep_hops", 9000}}).find("sweep_hops must be in 16..8192"), std::string::npos);
    EXPECT_NE(param_error("l2_partitions", {{"min_gap", 0}}).find("min_gap must be in"), std::string::npos);
    EXPECT_EQ(param_error("l2_partitions", {{"lines", 4096}, {"sm_step", 1}, {"full_matrix", true}}), "");
}

// Where a key could be an instance of more than one declared figure (a plain
// name and a pattern with axes, or two patterns), it resolves to its own
// declaration; and the experiment declares its chart.
TEST(L2PartitionsFigures, EachSummaryKeyResolvesToItsOwnFigure) {
    const Experiment &e = find_experiment("l2_partitions");
    const std::pair<std::string, std::string> key_and_figure[] = {
        {"near_cycles", "near_cycles"},
        {"near_ring_cycles", "{ring}_ring_cycles"},
        {"far_ring_fabric_sectors_per_load", "{ring}_ring_fabric_sectors_per_load"},
        {"sms_side1", "sms_side{side}"},
        {"sms_seen", "sms_seen"},
        {"sweep_25pct_l2_far_share", "sweep_{percent}pct_l2_far_share"},
        {"sweep_100pct_l2_near_share", "sweep_{percent}pct_l2_near_share"},
    };
    for (const auto &[key, name] : key_and_figure) {
        const Figure *f = declared_figure(e, key);
        ASSERT_NE(f, nullptr) << key;
        EXPECT_EQ(f->name, name) << key;
    }
    ASSERT_TRUE(e.chart.has_value());
    EXPECT_EQ(e.chart->published_base, "near_cycles");
}
