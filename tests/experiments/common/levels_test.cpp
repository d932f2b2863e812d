// The level finder (src/experiments/common/levels.hpp) on synthetic curves,
// clean and noisy, and on curves of committed runs.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "committed_curves.hpp"
#include "experiments/common/levels.hpp"
#include "experiments/common/latency_model.hpp"

using namespace gmlab;

namespace {

constexpr double kLevelsKiB = 1024.0, kLevelsMiB = 1024.0 * 1024.0;

std::vector<double> indices(std::size_t n) {
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<double>(i);
    return x;
}

// Runs of equal values: {value, points} each.
std::vector<double> steps(const std::vector<std::pair<double, int>> &runs) {
    std::vector<double> y;
    for (const auto &[v, n] : runs) y.insert(y.end(), static_cast<std::size_t>(n), v);
    return y;
}

// Multiplies every value by 1 + a normal deviate of the given relative size
// (fixed seed: the same curve every run).
std::vector<double> with_noise(std::vector<double> y, double relative, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> n(0.0, relative);
    for (double &v : y) v *= 1 + n(rng);
    return y;
}

std::vector<double> sweep_of(double l2_bytes) {
    std::vector<double> x;
    for (std::size_t s : working_sets(4096, static_cast<std::size_t>(4 * l2_bytes), 3, 128)) x.push_back(static_cast<double>(s));
    return x;
}

}  // namespace

TEST(Levels, CleanStepsAreFoundExactly) {
    const std::vector<double> y = steps({{30, 6}, {280, 8}, {450, 4}, {650, 5}});
    const Levels lv = find_levels(indices(y.size()), y);
    ASSERT_EQ(lv.levels.size(), 4u);
    const double values[] = {30, 280, 450, 650};
    std::size_t first = 0;
    for (std::size_t i = 0; i < 4; ++i) {
        EXPECT_DOUBLE_EQ(lv.levels[i].value, values[i]);
        EXPECT_EQ(lv.levels[i].first, first);
        first = lv.levels[i].last + 1;
    }
    EXPECT_EQ(lv.levels[0].last, 5u);
    EXPECT_EQ(lv.levels[3].last, y.size() - 1);
    EXPECT_TRUE(lv.levels[0].open_start);
    EXPECT_FALSE(lv.levels[0].open_end);
    EXPECT_TRUE(lv.levels[3].open_end);
    EXPECT_TRUE(lv.transitions.empty());
    EXPECT_TRUE(lv.outliers.empty());
}

TEST(Levels, NoiseBelowTheStepMakesNoLevels) {
    // 2 % noise on steps of 60 % and more, over ten seeds.
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
        const std::vector<double> y = with_noise(steps({{30, 10}, {280, 12}, {450, 6}, {650, 8}}), 0.02, seed);
        const Levels lv = find_levels(indices(y.size()), y);
        ASSERT_EQ(lv.levels.size(), 4u) << "seed " << seed;
        const double values[] = {30, 280, 450, 650};
        for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(lv.levels[i].value, values[i], 0.03 * values[i]) << "seed " << seed;
        EXPECT_EQ(lv.levels[0].last, 9u) << "seed " << seed;
        EXPECT_EQ(lv.levels[1].first, 10u) << "seed " << seed;
        EXPECT_EQ(lv.levels[2].first, 22u) << "seed " << seed;
        EXPECT_EQ(lv.levels[3].first, 28u) << "seed " << seed;
    }
}

TEST(Levels, ALoneOutlierSplitsNothing) {
    std::vector<double> y = steps({{280, 12}, {640, 6}});
    y[5] = 360;  // one slow point inside the first level
    const Levels lv = find_levels(indices(y.size()), y);
    ASSERT_EQ(lv.levels.size(), 2u);
    EXPECT_EQ(lv.levels[0].first, 0u);
    EXPECT_EQ(lv.levels[0].last, 11u);
    EXPECT_EQ(lv.levels[0].points, 11u);
    EXPECT_DOUBLE_EQ(lv.levels[0].value, 280);
    ASSERT_EQ(lv.outliers.size(), 1u);
    EXPECT_EQ(lv.outliers[0], 5u);
    // The same point on a step is no outlier: its neighbours disagree.
    const std::vector<double> rise = {30, 30, 30, 140, 280, 280, 280};
    const Levels r = find_levels(indices(rise.size()), rise);
    EXPECT_TRUE(r.outliers.empty());
    ASSERT_EQ(r.levels.size(), 2u);
    ASSERT_EQ(r.transitions.size(), 1u);
    EXPECT_EQ(r.transitions[0], 3u);
}

TEST(Levels, ASteadyRiseHasNoLevelOfTwoPoints) {
    std::vector<double> y;
    for (int k = 0; k < 30; ++k) y.push_back(10.0 * std::pow(2.0, k / 6.0));  // 12 % a point
    const Levels lv = find_levels(indices(y.size()), y);
    EXPECT_TRUE(lv.levels.empty());
    EXPECT_EQ(lv.transitions.size(), y.size());
}

TEST(Levels, AFlatCurveIsOneOpenLevel) {
    const std::vector<double> y = with_noise(std::vector<double>(20, 300.0), 0.01, 3);
    const Levels lv = find_levels(indices(y.size()), y);
    ASSERT_EQ(lv.levels.size(), 1u);
    EXPECT_TRUE(lv.levels[0].open_start);
    EXPECT_TRUE(lv.levels[0].open_end);
    EXPECT_NEAR(lv.levels[0].value, 300, 3);
}

TEST(Levels, StepsSmallerThanMinStepAreJoined) {
    const std::vector<double> y = steps({{100, 5}, {108, 5}, {200, 5}});
    EXPECT_EQ(find_levels(indices(y.size()), y, {0.10, 2, LevelScale::Relative}).levels.size(), 2u);
    EXPECT_EQ(find_levels(indices(y.size()), y, {0.05, 2, LevelScale::Relative}).levels.size(), 3u);
}

TEST(Levels, UnusableAndEmptyCurves) {
    EXPECT_TRUE(find_levels({}, {}).levels.empty());
    const std::vector<double> y = {100, 100, NAN, 100, -5, 100, 300, 300, 300};
    const Levels lv = find_levels(indices(y.size()), y);
    EXPECT_EQ(lv.unusable, (std::vector<std::size_t>{2, 4}));
    ASSERT_EQ(lv.levels.size(), 2u);
    EXPECT_EQ(lv.levels[0].last, 5u);
    EXPECT_EQ(lv.levels[0].points, 4u);
    // The step out of the first level skips nothing usable: 5 -> 6.
    const Step s = step_after(lv, 0, indices(y.size()), y);
    ASSERT_TRUE(s.found);
    EXPECT_EQ(s.before, 5u);
    EXPECT_EQ(s.after, 6u);
    EXPECT_DOUBLE_EQ(s.change, 2.0);
    EXPECT_FALSE(step_after(lv, 1, indices(y.size()), y).found);
    EXPECT_FALSE(step_after(lv, 7, indices(y.size()), y).found);
    EXPECT_EQ(highest_level(lv), 1u);
    EXPECT_EQ(highest_level(Levels{}), 0u);
}

TEST(Levels, AbsoluteScaleTakesZeroAsAValue) {
    // A hit share: 0.99 while the set fits, then 0.4, then 0.
    const std::vector<double> y = {0.99, 0.99, 0.98, 0.4, 0.0, 0.0, 0.0};
    const Levels lv = find_levels(indices(y.size()), y, {0.15, 1, LevelScale::Absolute});
    ASSERT_EQ(lv.levels.size(), 3u);
    EXPECT_DOUBLE_EQ(lv.levels[2].value, 0.0);
    const Step s = step_after(lv, highest_level(lv), indices(y.size()), y, LevelScale::Absolute);
    ASSERT_TRUE(s.found);
    EXPECT_EQ(s.after, 3u);
    EXPECT_NEAR(s.change, -0.59, 1e-12);
}

// The ld.cg chase of the committed H200 run: 280 cycles to 32 MiB (a lone 359
// at 16 MiB), 432 and 462 at 40 and 51 MiB, 522 at 64 MiB, then 600-640.
TEST(Levels, CommittedH200BypassChase) {
    const std::vector<double> x = sweep_of(committed::kH200L2Bytes);
    ASSERT_EQ(x.size(), committed::kH200ChaseCg.size());
    const Levels lv = find_levels(x, committed::kH200ChaseCg);
    ASSERT_EQ(lv.levels.size(), 3u);
    EXPECT_NEAR(lv.levels[0].value, 280, 3);
    EXPECT_NEAR(lv.levels[1].value, 447, 3);
    EXPECT_NEAR(lv.levels[2].value, 628, 3);
    EXPECT_GT(lv.levels[1].value / lv.levels[0].value, 1.5);  // near and far are distinct levels
    EXPECT_EQ(lv.levels[0].ends, 32 * kLevelsMiB);
    EXPECT_EQ(lv.levels[1].begins, x[40]);  // 40.3 MiB
    EXPECT_EQ(lv.levels[1].ends, x[41]);    // 50.8 MiB
    ASSERT_EQ(lv.outliers.size(), 1u);
    EXPECT_EQ(x[lv.outliers[0]], 16 * kLevelsMiB);
    ASSERT_EQ(lv.transitions.size(), 1u);
    EXPECT_EQ(x[lv.transitions[0]], 64 * kLevelsMiB);
}

// The ld.ca chase of the same run: L1 at 32 cycles to 203 KiB, 280 to 6.3 MiB,
// 364-426 from 8 to 51 MiB, 501 at 64 MiB, 578-634 beyond.
TEST(Levels, CommittedH200CachedChase) {
    const std::vector<double> x = sweep_of(committed::kH200L2Bytes);
    const Levels lv = find_levels(x, committed::kH200ChaseCa);
    ASSERT_EQ(lv.levels.size(), 4u);
    EXPECT_NEAR(lv.levels[0].value, 32.1, 0.1);
    EXPECT_EQ(lv.levels[0].ends, 208000);
    EXPECT_NEAR(lv.levels[1].value, 280, 2);
    EXPECT_EQ(lv.levels[1].begins, x[19]);  // 322.5 KiB: 256 KiB (141 cycles) is the climb
    EXPECT_NEAR(lv.levels[2].value, 408, 5);
    EXPECT_EQ(lv.levels[2].begins, 8 * kLevelsMiB);
    EXPECT_NEAR(lv.levels[3].value, 615, 5);
    EXPECT_EQ(lv.transitions.size(), 2u);  // 256 KiB and 64 MiB
    EXPECT_EQ(lv.outliers.size(), 0u);
}

// The carveout 0 % curve of the committed H200 run: read_gbs rises to about
// 31.7 TB/s from 48 to 200 KiB and falls to 24.2 at 320 KiB; the model's L1 is
// 248 KiB.
TEST(Levels, CommittedH200CarveoutZero) {
    const Levels lv = find_levels(committed::kCarveoutKiB, committed::kH200Carveout0, {0.15, 1, LevelScale::Relative});
    const std::size_t top = highest_level(lv);
    ASSERT_LT(top, lv.levels.size());
    EXPECT_NEAR(lv.levels[top].value, 31662, 50);
    const Step s = step_after(lv, top, committed::kCarveoutKiB, committed::kH200Carveout0);
    ASSERT_TRUE(s.found);
    EXPECT_EQ(s.x_before, 200);
    EXPECT_EQ(s.x_after, 320);
    EXPECT_LT(s.x_before, 248);
    EXPECT_GT(s.x_after, 248);
    EXPECT_NEAR(s.change, -0.236, 0.005);
}
