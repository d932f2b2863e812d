#include <cmath>

#include <gtest/gtest.h>

#include "error.hpp"
#include "statistics.hpp"

using gmlab::summarize;

TEST(Statistics, OddCountTakesTheMiddleValue) {
    auto s = summarize({5, 1, 3});
    EXPECT_EQ(s.median, 3);
    EXPECT_EQ(s.min, 1);
    EXPECT_EQ(s.max, 5);
    EXPECT_EQ(s.mean, 3);
    EXPECT_EQ(s.n, 3u);
    EXPECT_DOUBLE_EQ(s.stddev, 2.0);  // sample standard deviation
    EXPECT_EQ(s.samples, (std::vector<double>{5, 1, 3}));  // order kept
}

TEST(Statistics, EvenCountAveragesTheMiddlePair) {
    auto s = summarize({4, 1, 2, 10});
    EXPECT_EQ(s.median, 3);
    EXPECT_EQ(s.mean, 4.25);
}

TEST(Statistics, OneSampleHasNoSpread) {
    auto s = summarize({2.5});
    EXPECT_EQ(s.median, 2.5);
    EXPECT_EQ(s.stddev, 0);
}

TEST(Statistics, NoSamplesIsAnError) { EXPECT_THROW(summarize({}), gmlab::Error); }

TEST(Statistics, JsonRoundTrip) {
    auto s = summarize({1, 2, 3, 4});
    auto back = gmlab::stats_from_json(gmlab::to_json(s));
    EXPECT_EQ(back.median, s.median);
    EXPECT_EQ(back.stddev, s.stddev);
    EXPECT_EQ(back.samples, s.samples);
}
