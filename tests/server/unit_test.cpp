// Pieces of gmlab-server that need no server: the SHA-256 of delete tokens,
// GPU keys, submission ids, token buckets and X-Forwarded-For.
#include <gtest/gtest.h>

#include "api.hpp"
#include "rate_limit.hpp"
#include "sha256.hpp"
#include "validate.hpp"

using namespace gmserver;

TEST(Sha256, KnownAnswers) {
    // FIPS 180-4 examples, and a message that needs a second padding block.
    EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    EXPECT_EQ(sha256_hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(GpuKey, Normalises) {
    EXPECT_EQ(gpu_key("NVIDIA H200", "9.0", 150109880320ull, 6016), "nvidia-h200-cc9.0-140gib-6016bit");
    EXPECT_EQ(gpu_key("  NVIDIA  GeForce RTX 4090!! ", "8.9", 25757220864ull, 384), "nvidia-geforce-rtx-4090-cc8.9-24gib-384bit");
    EXPECT_EQ(gpu_key("<script>", "7.5", 0, 0), "script-cc7.5-0gib-0bit");
    EXPECT_EQ(gpu_key("???", "7.5", 1ull << 30, 64), "gpu-cc7.5-1gib-64bit");
}

TEST(SubmissionId, Charset) {
    EXPECT_TRUE(valid_submission_id("a-b_c.9"));
    EXPECT_TRUE(valid_submission_id(std::string(128, 'x')));
    EXPECT_FALSE(valid_submission_id(""));
    EXPECT_FALSE(valid_submission_id(std::string(129, 'x')));
    EXPECT_FALSE(valid_submission_id("a b"));
    EXPECT_FALSE(valid_submission_id("x'; DROP TABLE runs;--"));
}

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

TEST(ClientAddress, ForwardedForOnlyFromTrustedPeers) {
    const std::set<std::string> trusted = {"10.0.0.2", "10.0.0.3"};
    EXPECT_EQ(client_address("192.0.2.1", "198.51.100.1", trusted), "192.0.2.1");
    EXPECT_EQ(client_address("10.0.0.2", "198.51.100.1", trusted), "198.51.100.1");
    EXPECT_EQ(client_address("10.0.0.2", "203.0.113.5, 198.51.100.1, 10.0.0.3", trusted), "198.51.100.1");
    EXPECT_EQ(client_address("10.0.0.2", "", trusted), "10.0.0.2");
    EXPECT_EQ(client_address("10.0.0.2", "10.0.0.3", trusted), "10.0.0.3");
}
