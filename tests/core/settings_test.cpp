#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/device/settings.hpp"

using gmlab::Settings;

namespace {
std::string message_of(Settings &s, gm_setting which, double v) {
    try {
        s.set(which, v);
    } catch (const gmlab::Error &e) {
        EXPECT_EQ(e.status(), GM_ERROR_INVALID_ARGUMENT);
        return e.what();
    }
    return "";
}
}  // namespace

TEST(Settings, DefaultsAreSensible) {
    Settings s;
    EXPECT_EQ(s.get(GM_SETTING_FLUSH_L2), 1);
    EXPECT_EQ(s.get(GM_SETTING_MEMORY_FRACTION), 0.5);
    EXPECT_LE(s.min_repetitions, s.max_repetitions);
}

TEST(Settings, RangesAreEnforcedWithTheRangeInTheMessage) {
    Settings s;
    EXPECT_EQ(message_of(s, GM_SETTING_WARMUP, -1), "warmup must be an integer in 0..1000, got -1");
    EXPECT_EQ(message_of(s, GM_SETTING_WARMUP, 1.5), "warmup must be an integer in 0..1000, got 1.5");
    EXPECT_EQ(message_of(s, GM_SETTING_MEMORY_FRACTION, 0.99), "memory_fraction must be in 0.01..0.95, got 0.99");
    EXPECT_NE(message_of(s, GM_SETTING_MIN_TIME_MS, NAN), "");
    EXPECT_NE(message_of(s, static_cast<gm_setting>(99), 1).find("got 99"), std::string::npos);
}

TEST(Settings, MinimumNeverExceedsMaximum) {
    Settings s;
    EXPECT_NE(message_of(s, GM_SETTING_MIN_REPETITIONS, 5000), "");
    s.set(GM_SETTING_MIN_REPETITIONS, 10);
    s.set(GM_SETTING_MAX_REPETITIONS, 20);
    EXPECT_NE(message_of(s, GM_SETTING_MAX_REPETITIONS, 5), "");  // below min 10
    s.set(GM_SETTING_MIN_REPETITIONS, 20);
    EXPECT_EQ(s.get(GM_SETTING_MIN_REPETITIONS), 20);
}

TEST(Settings, NamesRoundTrip) {
    for (int i = 0; i <= 6; ++i) {
        const char *name = gmlab::setting_name(static_cast<gm_setting>(i));
        ASSERT_NE(name, nullptr);
        gm_setting back;
        ASSERT_TRUE(gmlab::setting_from_name(name, &back));
        EXPECT_EQ(back, i);
    }
    gm_setting unused;
    EXPECT_FALSE(gmlab::setting_from_name("nope", &unused));
    EXPECT_EQ(gmlab::setting_name(static_cast<gm_setting>(7)), nullptr);
}
