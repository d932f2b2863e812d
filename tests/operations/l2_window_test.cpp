// The argument checks of gm_set_l2_window, without a device.
#include <cmath>

#include <gtest/gtest.h>

#include "core/device/l2_window.hpp"
#include "core/error.hpp"

using namespace gmlab;

namespace {

L2Limits hopper() { return {9, 0, 60u << 20, 37u << 20, 128u << 20}; }

std::pair<gm_status, std::string> check(const L2Limits &l, std::size_t buffer, std::size_t offset, std::size_t num,
                                        double ratio, int hit = 2, int miss = 1) {
    try {
        check_window(l, buffer, offset, num, ratio, hit, miss);
    } catch (const Error &e) {
        return {e.status(), e.what()};
    }
    return {GM_OK, ""};
}

}  // namespace

TEST(L2Window, AcceptsAWindowInsideTheBuffer) {
    EXPECT_EQ(check(hopper(), 1 << 20, 0, 1 << 20, 1.0).first, GM_OK);
    EXPECT_EQ(check(hopper(), 1 << 20, 4096, 4096, 0.0, 0, 0).first, GM_OK);
}

TEST(L2Window, OlderDevicesAreNotSupported) {
    L2Limits volta = {7, 0, 6u << 20, 0, 0};
    auto r = check(volta, 1024, 0, 512, 1.0);
    EXPECT_EQ(r.first, GM_ERROR_NOT_SUPPORTED);
    EXPECT_NE(r.second.find("this device is 7.0"), std::string::npos) << r.second;
}

TEST(L2Window, HitRatioMustBeAProbability) {
    EXPECT_EQ(check(hopper(), 1024, 0, 512, 1.5).second, "hit_ratio must be in 0..1, got 1.5");
    EXPECT_EQ(check(hopper(), 1024, 0, 512, -0.1).second, "hit_ratio must be in 0..1, got -0.1");
    EXPECT_EQ(check(hopper(), 1024, 0, 512, std::nan("")).first, GM_ERROR_INVALID_ARGUMENT);
}

TEST(L2Window, SizeIsLimitedByTheDevice) {
    EXPECT_EQ(check(hopper(), 1024, 0, 0, 1.0).second,
              "num_bytes must be in 1..134217728 (the device's accessPolicyMaxWindowSize), got 0");
    auto r = check(hopper(), 1u << 30, 0, (128u << 20) + 1, 1.0);
    EXPECT_EQ(r.first, GM_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(r.second.find("got 134217729"), std::string::npos);
}

TEST(L2Window, WindowMustLieInsideTheBuffer) {
    EXPECT_EQ(check(hopper(), 1024, 1000, 100, 1.0).second,
              "the window (offset 1000 + num_bytes 100) must lie inside the buffer of 1024 bytes");
    EXPECT_EQ(check(hopper(), 1024, SIZE_MAX, 1, 1.0).first, GM_ERROR_INVALID_ARGUMENT);
}

TEST(L2Window, PropertiesAreChecked) {
    EXPECT_EQ(check(hopper(), 1024, 0, 512, 1.0, 3, 0).second,
              "hit_property must be 0 (normal), 1 (streaming) or 2 (persisting), got 3");
    EXPECT_EQ(check(hopper(), 1024, 0, 512, 1.0, 2, 2).second, "miss_property must be 0 (normal) or 1 (streaming), got 2");
}
