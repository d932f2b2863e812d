// The carveout model without a device: the unified L1/shared sizes per
// compute capability, a preference rounded up to a supported capacity, the L1
// left, where the hit rate falls, and the parameters' bounds.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "experiments/carveout/carveout_model.hpp"
#include "unit_checks.hpp"

using namespace gmlab;

namespace {

constexpr std::size_t KiB = 1024;

}  // namespace

TEST(CarveoutModel, HopperUnifiedSizeAndCapacities) {
    const UnifiedL1 h = unified_l1(9, 0, 228 * KiB);
    ASSERT_TRUE(h.known);
    EXPECT_EQ(h.unified_bytes, 256 * KiB);
    ASSERT_EQ(h.shared_capacities.size(), 10u);
    EXPECT_EQ(h.shared_capacities.front(), 0u);
    EXPECT_EQ(h.shared_capacities.back(), 228 * KiB);
    // The table must describe this chip: another largest shared size is not it.
    EXPECT_FALSE(unified_l1(9, 0, 100 * KiB).known);
    EXPECT_FALSE(unified_l1(11, 0, 228 * KiB).known);
    EXPECT_EQ(unified_l1(8, 0, 164 * KiB).unified_bytes, 192 * KiB);
    EXPECT_EQ(unified_l1(8, 9, 100 * KiB).unified_bytes, 128 * KiB);
    EXPECT_EQ(unified_l1(7, 5, 64 * KiB).unified_bytes, 96 * KiB);
    EXPECT_EQ(unified_l1(12, 0, 100 * KiB).unified_bytes, 128 * KiB);
}

TEST(CarveoutModel, PreferenceRoundsUpToACapacity) {
    const UnifiedL1 h = unified_l1(9, 0, 228 * KiB);
    const std::size_t max = 228 * KiB;
    EXPECT_EQ(shared_capacity_for(h, 0, max, 0), 0u);
    EXPECT_EQ(shared_capacity_for(h, 25, max, 0), 64 * KiB);   // 57 KiB
    EXPECT_EQ(shared_capacity_for(h, 50, max, 0), 132 * KiB);  // 114 KiB
    EXPECT_EQ(shared_capacity_for(h, 75, max, 0), 196 * KiB);  // 171 KiB
    EXPECT_EQ(shared_capacity_for(h, 100, max, 0), 228 * KiB);
    EXPECT_EQ(shared_capacity_for(h, 1, max, 0), 8 * KiB);
    // A resident block needs its shared memory and the reserved kilobyte.
    EXPECT_EQ(shared_capacity_for(h, 0, max, 1024 + 256), 8 * KiB);
    // The Programming Guide's example: 50% of Volta's 96 KB is 48 KB, which becomes 64 KB.
    EXPECT_EQ(shared_capacity_for(unified_l1(7, 0, 96 * KiB), 50, 96 * KiB, 0), 64 * KiB);
    // Turing has no capacity below 32 KiB.
    EXPECT_EQ(shared_capacity_for(unified_l1(7, 5, 64 * KiB), 0, 64 * KiB, 0), 32 * KiB);
    EXPECT_EQ(shared_capacity_for(UnifiedL1{}, 50, max, 0), 0u);
}

TEST(CarveoutModel, L1LeftAndHitShare) {
    const UnifiedL1 h = unified_l1(9, 0, 228 * KiB);
    EXPECT_EQ(l1_left(h, 0), 256 * KiB);
    EXPECT_EQ(l1_left(h, 8 * KiB), 248 * KiB);
    EXPECT_EQ(l1_left(h, 132 * KiB), 124 * KiB);
    EXPECT_EQ(l1_left(h, 228 * KiB), 28 * KiB);
    EXPECT_DOUBLE_EQ(predicted_l1_hit_share(24 * KiB, 28 * KiB, 100), 0.99);
    EXPECT_DOUBLE_EQ(predicted_l1_hit_share(28 * KiB, 28 * KiB, 4), 0.75);
    EXPECT_DOUBLE_EQ(predicted_l1_hit_share(48 * KiB, 28 * KiB, 100), 0.0);
    EXPECT_DOUBLE_EQ(predicted_l1_hit_share(16 * KiB, 28 * KiB, 0), 0.0);
}

TEST(CarveoutModel, WhereTheRateFalls) {
    EXPECT_EQ(first_fall({100, 120, 118, 60, 55}, 0.75), 3u);
    EXPECT_EQ(first_fall({50, 100, 95, 90}, 0.75), 4u);  // rising first is no fall
    EXPECT_EQ(first_fall({100, 74}, 0.75), 1u);
    EXPECT_EQ(first_fall({}, 0.75), 0u);
}

TEST(CarveoutParams, CarveoutsOutsideZeroToHundredAreRefusedWithTheRange) {
    EXPECT_NE(param_error("carveout", {{"carveouts", {0, 101}}}).find("carveouts must be in 0..100, got 101"), std::string::npos);
    EXPECT_NE(param_error("carveout", {{"carveouts", {-1}}}).find("carveouts must be in 0..100, got -1"), std::string::npos);
    EXPECT_NE(param_error("carveout", {{"working_sets_kib", {0}}}).find("working_sets_kib must be in 1..4096"), std::string::npos);
    EXPECT_NE(param_error("carveout", {{"fall_fraction", 1.5}}).find("fall_fraction must be in"), std::string::npos);
    EXPECT_EQ(param_error("carveout", {{"carveouts", "0..100"}}), "");
}
