#include <gtest/gtest.h>

#include "experiments/global_copy/sectors.hpp"

using gmlab::sector_efficiency;
using gmlab::sectors_per_request;

// The guide's figures for 4-byte words: 4 sectors aligned, 5 misaligned.
TEST(Sectors, MisalignmentCostsOneSector) {
    EXPECT_EQ(sectors_per_request(4, 1, 0), 4);
    for (int off = 1; off < 8; ++off) EXPECT_EQ(sectors_per_request(4, 1, off), 5) << off;
    EXPECT_EQ(sectors_per_request(4, 1, 8), 4);  // 32 bytes further: aligned again
    EXPECT_EQ(sectors_per_request(4, 1, 32), 4);
}

TEST(Sectors, StrideGrowsUntilEveryThreadHasItsOwnSector) {
    EXPECT_EQ(sectors_per_request(4, 2, 0), 8);
    EXPECT_EQ(sectors_per_request(4, 4, 0), 16);
    EXPECT_EQ(sectors_per_request(4, 8, 0), 32);
    EXPECT_EQ(sectors_per_request(4, 32, 0), 32);
    EXPECT_EQ(sectors_per_request(4, 3, 0), 12);
}

TEST(Sectors, WideWords) {
    EXPECT_EQ(sectors_per_request(8, 1, 0), 8);
    EXPECT_EQ(sectors_per_request(16, 1, 0), 16);
    EXPECT_EQ(sectors_per_request(16, 1, 1), 17);  // 512 bytes starting mid-sector span 17
    EXPECT_EQ(sectors_per_request(16, 2, 0), 32);
    EXPECT_EQ(sectors_per_request(8, 1, 1), 9);
}

TEST(Sectors, Efficiency) {
    EXPECT_DOUBLE_EQ(sector_efficiency(4, 1, 0), 1.0);
    EXPECT_DOUBLE_EQ(sector_efficiency(4, 1, 1), 0.8);
    EXPECT_DOUBLE_EQ(sector_efficiency(4, 2, 0), 0.5);
    EXPECT_DOUBLE_EQ(sector_efficiency(4, 32, 0), 0.125);
    EXPECT_DOUBLE_EQ(sector_efficiency(16, 32, 0), 0.5);
}
