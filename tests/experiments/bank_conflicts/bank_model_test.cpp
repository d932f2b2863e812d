// The shared-memory bank model, without a device.
#include <numeric>

#include <gtest/gtest.h>

#include "experiments/bank_conflicts/bank_model.hpp"

using namespace gmlab;

TEST(BankModel, FourByteStridesConflictAsTheirGcdWith32) {
    for (unsigned s = 1; s <= 32; ++s)
        EXPECT_EQ(shared_conflict_ways(4, s), static_cast<double>(std::gcd(s, 32u))) << "stride " << s;
    EXPECT_EQ(shared_wavefronts(4, 0), 1);  // broadcast
    EXPECT_EQ(shared_wavefronts(4, 1), 1);
}

TEST(BankModel, EightByteWordsTakeTwoPassesWithoutConflicts) {
    EXPECT_EQ(shared_wavefronts(8, 1), 2);
    EXPECT_EQ(shared_conflict_ways(8, 1), 1);
    EXPECT_EQ(shared_conflict_ways(8, 2), 2);
    EXPECT_EQ(shared_conflict_ways(8, 3), 1);
    EXPECT_EQ(shared_conflict_ways(8, 16), 16);
    EXPECT_EQ(shared_conflict_ways(8, 32), 16);  // 32 passes over the 2 of stride 1
    EXPECT_EQ(shared_wavefronts(8, 32), 32);
    EXPECT_EQ(shared_wavefronts(8, 0), 1);  // 8 bytes: one pass
    EXPECT_EQ(shared_conflict_ways(8, 0), 0.5);
}
