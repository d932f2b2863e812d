// Per-client token buckets: `rate` requests per second on average, bursts of
// up to `burst`. One limiter for writes and one for reads.
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <unordered_map>

namespace gmserver {

class RateLimiter {
public:
    // rate <= 0 turns the limiter off.
    RateLimiter(double rate, double burst) : rate_(rate), burst_(burst < 1 ? 1 : burst) {}
    // True when the client may go ahead; otherwise *retry_after_s is how many
    // whole seconds until a token is there again.
    bool allow(const std::string &client, int *retry_after_s);

private:
    struct Bucket {
        double tokens;
        std::chrono::steady_clock::time_point at;
    };
    double rate_, burst_;
    std::mutex mu_;
    std::unordered_map<std::string, Bucket> buckets_;
    std::size_t since_sweep_ = 0;
};

}  // namespace gmserver
