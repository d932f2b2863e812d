// The token buckets of the rate limit, on their own.
#include <gtest/gtest.h>

#include "storage/rate_limit.hpp"

using namespace gmserver;

TEST(RateLimiter, BurstThenRetryAfter) {
    RateLimiter r(0.5, 3);
    int retry = 0;
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(r.allow("a", &retry));
    EXPECT_FALSE(r.allow("a", &retry));
    EXPECT_EQ(retry, 2);  // one token every 2 s
    EXPECT_TRUE(r.allow("b", &retry));  // another client has its own bucket
    RateLimiter off(0, 1);
    for (int i = 0; i < 100; ++i) EXPECT_TRUE(off.allow("a", &retry));
}
