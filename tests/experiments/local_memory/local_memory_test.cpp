// local_memory without a device: bad input names the allowed values.
#include <string>

#include <gtest/gtest.h>

#include "unit_checks.hpp"

TEST(LocalMemoryParams, BadInputNamesTheAllowedValues) {
    EXPECT_NE(param_error("local_memory", {{"rounds", 0}}).find("rounds must be in 1..4096, got 0"), std::string::npos);
    EXPECT_NE(param_error("local_memory", {{"variants", "registers,spilled"}}).find("spilled"), std::string::npos);
    EXPECT_NE(param_error("local_memory", {{"threads", 1099511627776LL}}).find("threads must be in 0..268435456"), std::string::npos);
}
