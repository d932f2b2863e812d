// What the server puts into the URLs it hands out: percent-encoding, and the
// Host headers it believes when no --public-url is set.
#include <gtest/gtest.h>

#include <string>

#include "web/url.hpp"

using namespace gmserver;

TEST(Url, EncodesAllButTheUnreservedCharacters) {
    EXPECT_EQ(url_encode("nvidia-h200_cc9.0~x"), "nvidia-h200_cc9.0~x");
    EXPECT_EQ(url_encode("a b/c?d&e\"<"), "a%20b%2Fc%3Fd%26e%22%3C");
}

TEST(Url, PlainHostsAndPortsAreBelieved) {
    for (const char *h : {"example.org", "example.org:8080", "127.0.0.1", "127.0.0.1:1", "localhost:65535",
                          "[::1]", "[::1]:8080", "[2001:db8::7]:443", "gmlab_test.internal", "A-B.example"})
        EXPECT_TRUE(valid_host_header(h)) << h;
}

TEST(Url, HostsThatCouldBeMarkupOrAnotherSiteAreNot) {
    const std::string too_long = std::string(250, 'a') + ".example";
    for (const std::string &h :
         {std::string(), std::string("evil.example/path"), std::string("evil.example\"><script>"),
          std::string("user@evil.example"), std::string("a b"), std::string("a\tb"), std::string("a\r\nX-Injected: 1"),
          std::string("'quoted'"), std::string("<evil>"), std::string("a%2fb"), std::string("host:"),
          std::string("host:port"), std::string("host:123456"), std::string("host:65536"), std::string(":8080"),
          std::string("[::1"), std::string("[]"), std::string("[::1]x"), std::string("[::1]:"), std::string("[fe80::1%eth0]"),
          std::string("a\\b"), std::string("a,b"), std::string("evil.example#x"), std::string("evil.example?x"),
          std::string("a\0b", 3), too_long})
        EXPECT_FALSE(valid_host_header(h)) << h;
    EXPECT_TRUE(valid_host_header(std::string(255, 'a')));
    EXPECT_FALSE(valid_host_header(std::string(256, 'a')));
}
