#include <cmath>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/measurement/statistics.hpp"

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
    auto back = gmlab::stats_from_json(gmlab::to_json(s, gmlab::SampleForm::All));
    EXPECT_EQ(back.median, s.median);
    EXPECT_EQ(back.stddev, s.stddev);
    EXPECT_EQ(back.samples, s.samples);
    EXPECT_EQ(back.quantiles, s.quantiles);
}

TEST(Statistics, DecilesInterpolateBetweenOrderStatistics) {
    auto s = summarize({10, 9, 8, 7, 6, 5, 4, 3, 2, 1});
    ASSERT_TRUE(s.has_quantiles);
    const gmlab::Quantiles want = {1.9, 2.8, 3.7, 4.6, 5.5, 6.4, 7.3, 8.2, 9.1};
    for (std::size_t k = 0; k < gmlab::kQuantiles; ++k) EXPECT_DOUBLE_EQ(s.quantiles[k], want[k]) << k;
    EXPECT_EQ(s.quantiles[4], s.median);  // the fifth decile is the median
    auto one = summarize({0.25});
    for (double q : one.quantiles) EXPECT_EQ(q, 0.25);
    auto odd = summarize({3, 1, 2});
    EXPECT_EQ(odd.quantiles[4], 2);
    EXPECT_DOUBLE_EQ(odd.quantiles[0], 1.2);
}

TEST(Statistics, DecilesKeepSixSignificantDigits) {
    auto s = summarize({0.123456789, 0.123456789});
    for (double q : s.quantiles) EXPECT_EQ(q, 0.123457);
    EXPECT_EQ(s.median, 0.123456789);  // the statistics themselves are not rounded
    EXPECT_THROW(gmlab::deciles({}), gmlab::Error);
}

TEST(Statistics, TheWriterChoosesTheForm) {
    auto s = summarize({5, 1, 3, 2});
    const auto compact = gmlab::to_json(s);  // the default
    EXPECT_FALSE(compact.contains("samples"));
    EXPECT_EQ(compact["quantiles"].size(), gmlab::kQuantiles);
    EXPECT_EQ(compact["n"], 4);
    const auto full = gmlab::to_json(s, gmlab::SampleForm::All);
    EXPECT_EQ(full["samples"], nlohmann::json({5, 1, 3, 2}));
    EXPECT_EQ(full["quantiles"], compact["quantiles"]);
}

TEST(Statistics, OldDocumentsGainDecilesFromTheirSamples) {
    // A /1 point: samples, no deciles.
    nlohmann::json t = {{"median", 2.5}, {"min", 1}, {"max", 4}, {"mean", 2.5}, {"stddev", 1.29}, {"n", 4}, {"samples", {4, 3, 2, 1}}};
    const auto back = gmlab::stats_from_json(t);
    ASSERT_TRUE(back.has_quantiles);
    EXPECT_DOUBLE_EQ(back.quantiles[0], 1.3);
    nlohmann::json full = t;
    gmlab::set_sample_form(full, gmlab::SampleForm::All);
    EXPECT_EQ(full["samples"].size(), 4u);
    EXPECT_EQ(full["quantiles"].size(), gmlab::kQuantiles);
    gmlab::set_sample_form(t, gmlab::SampleForm::Summary);
    EXPECT_FALSE(t.contains("samples"));
    EXPECT_EQ(t["quantiles"], full["quantiles"]);
    // Without samples there is nothing to summarise, and nothing is made up.
    nlohmann::json bare = {{"median", 2.5}, {"min", 1}, {"max", 4}, {"mean", 2.5}, {"stddev", 1.29}, {"n", 4}};
    gmlab::set_sample_form(bare, gmlab::SampleForm::Summary);
    EXPECT_FALSE(bare.contains("quantiles"));
    EXPECT_FALSE(gmlab::stats_from_json(bare).has_quantiles);
    nlohmann::json wrong = bare;
    wrong["quantiles"] = {1, 2};
    EXPECT_THROW(gmlab::stats_from_json(wrong), gmlab::Error);
}
