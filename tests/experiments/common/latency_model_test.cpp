// The pointer-chase ring, the working-set sweep and the naming of the levels
// found in synthetic and committed latency curves, without a device.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/experiment/params.hpp"
#include "core/experiment/registry.hpp"
#include "experiments/common/latency_model.hpp"
#include "../common/committed_curves.hpp"

using namespace gmlab;

namespace {

constexpr double kModelKiB = 1024.0, kModelMiB = 1024.0 * 1024.0;

// An H100-like hierarchy: L1 up to 192 KiB, near L2 up to 24 MiB, far L2 up to
// 48 MiB, then L2 hits falling as capacity / working set towards DRAM.
double hierarchy(double ws) {
    if (ws <= 192 * kModelKiB) return 34;
    if (ws <= 24 * kModelMiB) return 265;
    if (ws <= 48 * kModelMiB) return 475;
    const double hit = 48 * kModelMiB / ws;
    return hit * 475 + (1 - hit) * 660;
}

struct Curve {
    std::vector<double> sizes, latency;
};

Curve sample(double (*f)(double), double from, double to, int per_octave, double noise = 0) {
    Curve c;
    for (int k = 0;; ++k) {
        const double s = from * std::pow(2.0, static_cast<double>(k) / per_octave);
        if (s > to) break;
        // Deterministic "noise": alternating up and down by the given fraction.
        c.sizes.push_back(s);
        c.latency.push_back(f(s) * (1 + (k % 2 ? noise : -noise)));
    }
    return c;
}

std::string error_of(std::size_t min_b, std::size_t max_b, int ppo, std::size_t stride) {
    try {
        working_sets(min_b, max_b, ppo, stride);
    } catch (const Error &e) {
        EXPECT_EQ(e.status(), GM_ERROR_INVALID_ARGUMENT);
        return e.what();
    }
    return "";
}

}  // namespace

TEST(ChaseRing, IsOneCycleThroughEveryNode) {
    for (std::size_t n : {1u, 2u, 3u, 7u, 128u, 4099u}) {
        const auto next = single_cycle(n, 42);
        ASSERT_EQ(next.size(), n);
        std::vector<bool> seen(n, false);
        std::uint32_t p = 0;
        for (std::size_t i = 0; i < n; ++i) {
            EXPECT_FALSE(seen[p]) << "node " << p << " visited twice, n = " << n;
            seen[p] = true;
            p = next[p];
        }
        EXPECT_EQ(p, 0u) << "not back at the start after n hops, n = " << n;
        if (n > 1)
            for (std::size_t i = 0; i < n; ++i) EXPECT_NE(next[i], i) << "a node pointing at itself, n = " << n;
    }
}

TEST(ChaseRing, IsFixedBySeedAndWalks) {
    EXPECT_EQ(single_cycle(1000, 7), single_cycle(1000, 7));
    EXPECT_NE(single_cycle(1000, 7), single_cycle(1000, 8));
    const auto next = single_cycle(1000, 7);
    EXPECT_EQ(walk(next, 5, 0), 5u);
    EXPECT_EQ(walk(next, 5, 1), next[5]);
    EXPECT_EQ(walk(next, 5, 2), next[next[5]]);
    EXPECT_EQ(walk(next, 5, 1000), 5u);
    EXPECT_EQ(walk(next, 5, 1003), walk(next, 5, 3));
}

TEST(WorkingSets, SpanTheRangeGeometrically) {
    const auto s = working_sets(4096, 1 << 20, 3, 128);
    ASSERT_FALSE(s.empty());
    EXPECT_EQ(s.front(), 4096u);
    EXPECT_EQ(s.back(), 1u << 20);
    for (std::size_t i = 0; i < s.size(); ++i) {
        EXPECT_EQ(s[i] % 128, 0u);
        if (i) EXPECT_GT(s[i], s[i - 1]);
    }
    EXPECT_EQ(s.size(), 25u);  // 8 octaves x 3 points + the end
    EXPECT_EQ(working_sets(4096, 5000, 1, 128).size(), 2u);
    EXPECT_EQ(working_sets(4096, 5000, 1, 128).back(), 4992u);  // rounded down to the stride
}

TEST(WorkingSets, BadRangesNameTheParameter) {
    EXPECT_NE(error_of(4096, 4096, 3, 128).find("max_bytes must be larger than min_bytes"), std::string::npos);
    EXPECT_NE(error_of(128, 4096, 3, 128).find("min_bytes must be at least 2 x stride = 256, got 128"), std::string::npos);
    EXPECT_NE(error_of(4096, 8192, 0, 128).find("points_per_octave"), std::string::npos);
    EXPECT_NE(error_of(4096, 8192, 3, 0).find("stride"), std::string::npos);
}

TEST(ChaseLevels, FindsEveryLevelOfAHierarchy) {
    const Curve c = sample(hierarchy, 4 * kModelKiB, 256 * kModelMiB, 3);
    const ChaseCurve cc = chase_curve(c.sizes, c.latency, 0.10);
    const auto &p = cc.levels.levels;
    ASSERT_GE(p.size(), 3u);
    EXPECT_DOUBLE_EQ(p[0].value, 34);
    EXPECT_DOUBLE_EQ(p[1].value, 265);
    EXPECT_DOUBLE_EQ(p[2].value, 475);
    EXPECT_DOUBLE_EQ(p[0].begins, 4 * kModelKiB);
    // Each capacity is found to within one step (a third of an octave) of the
    // true one: the last size at or below it, or the first past it where a
    // random chase still hits almost every time.
    const double step = std::pow(2.0, 1.0 / 3);
    const double truth[] = {192 * kModelKiB, 24 * kModelMiB, 48 * kModelMiB};
    for (int k = 0; k < 3; ++k) {
        EXPECT_GT(p[k].ends, truth[k] / step) << "level " << k;
        EXPECT_LT(p[k].ends, truth[k] * step) << "level " << k;
        EXPECT_FALSE(p[k].open_end);
    }
    EXPECT_DOUBLE_EQ(p[0].ends, c.sizes[p[0].last]);
    // The slow approach to DRAM past L2 may flatten into levels of its own,
    // but not into one with the far level's latency.
    for (std::size_t k = 3; k < p.size(); ++k) EXPECT_GT(p[k].value, 475 * 1.10);
}

TEST(ChaseLevels, TolerateNoiseBelowTheStep) {
    const Curve c = sample(hierarchy, 4 * kModelKiB, 256 * kModelMiB, 3, 0.02);
    const auto &p = chase_curve(c.sizes, c.latency, 0.10).levels.levels;
    ASSERT_GE(p.size(), 3u);
    EXPECT_NEAR(p[0].value, 34, 34 * 0.03);
    EXPECT_NEAR(p[1].value, 265, 265 * 0.03);
    EXPECT_NEAR(p[2].value, 475, 475 * 0.03);
    for (std::size_t k = 3; k < p.size(); ++k) EXPECT_GT(p[k].value, 475 * 1.10);
}

TEST(ChaseLevels, AFlatCurveIsOneOpenLevel) {
    const Curve c = sample([](double) { return 300.0; }, 4 * kModelKiB, 1 * kModelMiB, 3);
    const auto &p = chase_curve(c.sizes, c.latency, 0.10).levels.levels;
    ASSERT_EQ(p.size(), 1u);
    EXPECT_TRUE(p[0].open_end);
    EXPECT_EQ(p[0].first, 0u);
    EXPECT_EQ(p[0].last, c.sizes.size() - 1);
}

TEST(ChaseLevels, ASteadyRiseHasNone) {
    const Curve c = sample([](double s) { return 10.0 * std::pow(s / kModelKiB, 0.5); }, 4 * kModelKiB, 64 * kModelMiB, 3);
    EXPECT_TRUE(chase_curve(c.sizes, c.latency, 0.10).levels.levels.empty());
}

TEST(ChaseLevels, OneWorkingSetAloneIsNoLevel) {
    const std::vector<double> sizes = {1, 2, 3, 4, 5, 6, 7, 8};
    const std::vector<double> lat = {10, 10, 10, 50, 100, 100, 100, 100};
    const auto lv = chase_curve(sizes, lat, 0.10).levels;
    ASSERT_EQ(lv.levels.size(), 2u);
    EXPECT_EQ(lv.levels[0].last, 2u);
    EXPECT_EQ(lv.levels[1].first, 4u);
    EXPECT_TRUE(lv.levels[1].open_end);
    EXPECT_EQ(lv.transitions, std::vector<std::size_t>{3});
    EXPECT_TRUE(chase_curve({}, {}, 0.10).levels.levels.empty());
}

TEST(CacheLevels, NamedFromBothChases) {
    const Curve cached = sample(hierarchy, 4 * kModelKiB, 256 * kModelMiB, 3);
    const Curve bypass = sample([](double s) { return s <= 192 * kModelKiB ? 265.0 : hierarchy(s); }, 4 * kModelKiB, 256 * kModelMiB, 3);
    const auto lv = name_levels(chase_curve(cached.sizes, cached.latency, 0.10), chase_curve(bypass.sizes, bypass.latency, 0.10), 660);
    ASSERT_TRUE(lv.l1);
    EXPECT_DOUBLE_EQ(lv.l1_level.value, 34);
    EXPECT_GT(lv.l1_falls, lv.l1_level.ends);
    ASSERT_TRUE(lv.l2);
    EXPECT_DOUBLE_EQ(lv.l2_near.value, 265);
    ASSERT_TRUE(lv.l2_far);
    EXPECT_DOUBLE_EQ(lv.l2_far_level.value, 475);
    EXPECT_DOUBLE_EQ(lv.l2_capacity, lv.l2_far_level.ends);
    EXPECT_GT(lv.l2_falls, lv.l2_capacity);
    EXPECT_FALSE(lv.l2_capacity_open);
}

TEST(CacheLevels, OneL2LevelAndNoL1) {
    auto flat_l2 = [](double s) { return s <= 32 * kModelMiB ? 250.0 : 600.0; };
    const Curve c = sample(flat_l2, 4 * kModelKiB, 256 * kModelMiB, 3);
    const ChaseCurve cc = chase_curve(c.sizes, c.latency, 0.10);
    const auto lv = name_levels(cc, cc, 600);
    EXPECT_FALSE(lv.l1);  // the cached chase starts at L2 latency: no L1 level
    ASSERT_TRUE(lv.l2);
    EXPECT_FALSE(lv.l2_far);  // the 600-cycle level is DRAM, not a cache
    EXPECT_LE(lv.l2_capacity, 32 * kModelMiB);
    ASSERT_TRUE(lv.dram);
    EXPECT_DOUBLE_EQ(lv.dram_level.value, 600);
    EXPECT_DOUBLE_EQ(lv.dram_level.begins, lv.l2_falls);
    // A sweep that ends inside L2 gives an open capacity: "at least".
    const Curve short_sweep = sample(flat_l2, 4 * kModelKiB, 16 * kModelMiB, 3);
    const ChaseCurve q = chase_curve(short_sweep.sizes, short_sweep.latency, 0.10);
    const auto open = name_levels(q, q, 600);
    EXPECT_TRUE(open.l2_capacity_open);
    EXPECT_EQ(open.l2_falls, 0);
    EXPECT_FALSE(open.dram);
}

namespace {

CacheLevels committed_levels(const std::vector<double> &ca, const std::vector<double> &cg, double l2_bytes, double cold,
                             bool cap_far_at_l2 = true) {
    std::vector<double> x;
    for (std::size_t s : working_sets(4096, static_cast<std::size_t>(4 * l2_bytes), 3, 128)) x.push_back(static_cast<double>(s));
    EXPECT_EQ(x.size(), ca.size());
    EXPECT_EQ(x.size(), cg.size());
    return name_levels(chase_curve(x, ca, 0.10), chase_curve(x, cg, 0.10), cold, 0.85, 0.5, cap_far_at_l2 ? l2_bytes : 0);
}

}  // namespace

// The committed H200 run (results/nvidia-h200-standard-suite.json): the old
// plateau finder split the 280-cycle level at one 359-cycle point (16 MiB) and
// named both halves near and far (280.2 and 280.3); l2_partitions measured
// near 281 and far 457 on the same GPU.
TEST(CacheLevels, CommittedH200) {
    const auto lv = committed_levels(committed::kH200ChaseCa, committed::kH200ChaseCg, committed::kH200L2Bytes,
                                     committed::kH200ColdChase);
    ASSERT_TRUE(lv.l1);
    EXPECT_NEAR(lv.l1_level.value, 32.1, 0.1);
    EXPECT_EQ(lv.l1_level.ends, 208000);
    EXPECT_EQ(lv.l1_falls, 262144);
    ASSERT_TRUE(lv.l2);
    ASSERT_TRUE(lv.l2_far);
    EXPECT_NEAR(lv.l2_near.value, 280, 3);
    EXPECT_GT(lv.l2_far_level.value, 400);
    EXPECT_LT(lv.l2_far_level.value, 460);
    EXPECT_EQ(lv.l2_far_level.begins, 42275840);  // 40.3 MiB
    EXPECT_EQ(lv.l2_near.ends, 32 * kModelMiB);
    EXPECT_EQ(lv.l2_capacity, 53264256);  // 50.8 MiB, of 60 MiB reported
    EXPECT_EQ(lv.l2_falls, 64 * kModelMiB);
    ASSERT_TRUE(lv.dram);
    EXPECT_NEAR(lv.dram_level.value, 628, 3);
    EXPECT_EQ(lv.dram_level.begins, 84551808);  // 80.6 MiB
}

// The older H200 run of the brief (l2_far_cycles 280.7 beside l2_near_cycles
// 280.9 from the plateau finder) and the H100 run.
TEST(CacheLevels, CommittedOlderH200AndH100) {
    const auto h200 = committed_levels(committed::kH200OlderChaseCa, committed::kH200OlderChaseCg,
                                       committed::kH200OlderL2Bytes, committed::kH200OlderColdChase);
    ASSERT_TRUE(h200.l2_far);
    EXPECT_NEAR(h200.l2_near.value, 281, 3);
    EXPECT_NEAR(h200.l2_far_level.value, 455, 5);
    EXPECT_EQ(h200.l2_far_level.begins, 42275840);
    const auto h100 = committed_levels(committed::kH100ChaseCa, committed::kH100ChaseCg, committed::kH100L2Bytes,
                                       committed::kH100ColdChase);
    ASSERT_TRUE(h100.l1);
    EXPECT_NEAR(h100.l1_level.value, 32.1, 0.1);
    ASSERT_TRUE(h100.l2_far);
    EXPECT_NEAR(h100.l2_near.value, 275, 3);
    EXPECT_NEAR(h100.l2_far_level.value, 472, 2);  // the 40.3 MiB ring; 50.8 MiB is past the 50 MiB L2
    EXPECT_EQ(h100.l2_capacity, 53264256);
    ASSERT_TRUE(h100.dram);
    EXPECT_NEAR(h100.dram_level.value, 651, 3);
    EXPECT_EQ(h100.dram_level.begins, 64 * kModelMiB);
}

TEST(LatencyParams, RangesAreChecked) {
    for (const char *name : {"latency", "memory_spaces"}) {
        const Experiment &e = find_experiment(name);
        EXPECT_NO_THROW(resolve_params(e.params, nlohmann::json::object(), name));
        try {
            resolve_params(e.params, {{"hops", 0}}, name);
            ADD_FAILURE() << name << ": hops = 0 accepted";
        } catch (const Error &err) {
            EXPECT_EQ(err.status(), GM_ERROR_INVALID_ARGUMENT);
            EXPECT_NE(std::string(err.what()).find("hops"), std::string::npos) << err.what();
        }
    }
    const Experiment &e = find_experiment("latency");
    EXPECT_THROW(resolve_params(e.params, {{"stride", 100}}, "latency"), Error);
    EXPECT_THROW(resolve_params(e.params, {{"points_per_octave", 0}}, "latency"), Error);
    EXPECT_THROW(resolve_params(e.params, {{"min_step", 0}}, "latency"), Error);
    EXPECT_THROW(resolve_params(e.params, {{"tolerance", 0.1}}, "latency"), Error);  // the old name is gone
    EXPECT_NO_THROW(resolve_params(e.params, {{"stride", 64}, {"max_bytes", "64MiB"}}, "latency"));
}

// The H100's far level runs from 40.3 MiB (472 cycles) to 50.8 MiB (509), a
// ring just past its 50 MiB L2 that misses to DRAM part of the time: the
// level's median over both (490) was 6.8 % above l2_partitions' far 458. Its
// value counts only the rings that fit in the reported L2.
TEST(CacheLevels, FarLevelCountsOnlyRingsThatFitInL2) {
    const auto all = committed_levels(committed::kH100ChaseCa, committed::kH100ChaseCg, committed::kH100L2Bytes,
                                      committed::kH100ColdChase, false);
    const auto capped = committed_levels(committed::kH100ChaseCa, committed::kH100ChaseCg, committed::kH100L2Bytes,
                                         committed::kH100ColdChase);
    ASSERT_TRUE(all.l2_far);
    ASSERT_TRUE(capped.l2_far);
    EXPECT_GT(all.l2_far_level.value, 485);
    EXPECT_NEAR(capped.l2_far_level.value, 472, 1);
    EXPECT_EQ(capped.l2_far_level.begins, all.l2_far_level.begins);
    EXPECT_EQ(capped.l2_capacity, all.l2_capacity);  // the capacity is the level's extent, unchanged
}
