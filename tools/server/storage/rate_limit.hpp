// Per-client token buckets in this process: `rate` requests per second on
// average, bursts of up to `burst`. The SQLite storage's take_token() uses
// them (an SQLite file is served by one process); PostgreSQL keeps its buckets
// in the database so that replicas share them (storage/postgres/writes.cpp).
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <unordered_map>

namespace gmserver {

// Buckets by key, each with the rate and burst of its last use.
class TokenBuckets {
public:
    // True when the key may go ahead (a token was taken); otherwise
    // *retry_after_s is how many whole seconds until a token is there again.
    // rate <= 0: always true.
    bool take(const std::string &key, double rate, double burst, int *retry_after_s);

private:
    struct Bucket {
        double tokens, rate, burst;
        std::chrono::steady_clock::time_point at;
    };
    std::mutex mu_;
    std::unordered_map<std::string, Bucket> buckets_;
    std::size_t since_sweep_ = 0;
};

// One rate and burst for every client.
class RateLimiter {
public:
    // rate <= 0 turns the limiter off.
    RateLimiter(double rate, double burst) : rate_(rate), burst_(burst) {}
    bool allow(const std::string &client, int *retry_after_s) { return buckets_.take(client, rate_, burst_, retry_after_s); }

private:
    double rate_, burst_;
    TokenBuckets buckets_;
};

// Whole seconds until a bucket holding `tokens` has one token (at least 1).
int retry_after_seconds(double tokens, double rate);

}  // namespace gmserver
