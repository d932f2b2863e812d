// The address a request is accounted to: X-Forwarded-For is believed only
// from trusted proxies.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "web/api.hpp"

using namespace gmserver;

TEST(ClientAddress, ForwardedForOnlyFromTrustedPeers) {
    const std::set<std::string> trusted = {"10.0.0.2", "10.0.0.3"};
    EXPECT_EQ(client_address("192.0.2.1", "198.51.100.1", trusted), "192.0.2.1");
    EXPECT_EQ(client_address("10.0.0.2", "198.51.100.1", trusted), "198.51.100.1");
    EXPECT_EQ(client_address("10.0.0.2", "203.0.113.5, 198.51.100.1, 10.0.0.3", trusted), "198.51.100.1");
    EXPECT_EQ(client_address("10.0.0.2", "", trusted), "10.0.0.2");
    EXPECT_EQ(client_address("10.0.0.2", "10.0.0.3", trusted), "10.0.0.3");
}

TEST(ClientAddress, NetworkOfAnAddress) {
    EXPECT_EQ(client_network("192.0.2.77"), "192.0.2.0/24");
    EXPECT_EQ(client_network("::ffff:192.0.2.77"), "192.0.2.0/24");
    EXPECT_EQ(client_network("2001:db8:1:2:3:4:5:6"), "2001:db8:1:2::/64");
    EXPECT_EQ(client_network("not an address"), "not an address");
}
