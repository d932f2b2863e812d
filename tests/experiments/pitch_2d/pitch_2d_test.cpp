// pitch_2d without a device: sizes are checked against zero, overflow and the
// pitch limit, and bad input names the allowed values.
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "experiments/pitch_2d/pitch_2d.hpp"
#include "unit_checks.hpp"

using namespace gmlab;

namespace {

std::string pitch_error(std::size_t w, std::size_t h, std::size_t max_pitch) {
    return argument_error([&] { pitch_2d_bytes(w, h, 4, max_pitch); });
}

}  // namespace

TEST(Pitch2D, SizesAreCheckedAgainstZeroOverflowAndThePitchLimit) {
    const std::size_t max = std::numeric_limits<std::size_t>::max();
    EXPECT_EQ(pitch_2d_bytes(32769, 1000, 4, 1u << 31), 32769u * 1000u * 4u);
    EXPECT_EQ(pitch_error(0, 10, 1u << 31), "width must be at least 1, got 0");
    EXPECT_EQ(pitch_error(10, 0, 1u << 31), "height must be at least 1, got 0");
    EXPECT_NE(pitch_error(max / 2, 1, max).find("overflows"), std::string::npos);
    EXPECT_NE(pitch_error(1u << 20, max / 4, max).find("overflows"), std::string::npos);
    const std::string limit = pitch_error(1u << 30, 1, 2147483647);
    EXPECT_NE(limit.find("4294967296 bytes"), std::string::npos) << limit;
    EXPECT_NE(limit.find("largest pitch of 2147483647 bytes"), std::string::npos) << limit;
}

TEST(Pitch2DParams, BadInputNamesTheAllowedValues) {
    EXPECT_NE(param_error("pitch_2d", {{"widths", {0}}}).find("widths must be in 1..1073741824, got 0"), std::string::npos);
    EXPECT_NE(param_error("pitch_2d", {{"widths", {-5}}}).find("widths must be in"), std::string::npos);
    EXPECT_NE(param_error("pitch_2d", {{"height", "4294967296"}}).find("height must be"), std::string::npos);
    EXPECT_EQ(param_error("pitch_2d", {{"widths", {32769}}, {"height", 16}}), "");
}
