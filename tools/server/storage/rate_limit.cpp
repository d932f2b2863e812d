#include "storage/rate_limit.hpp"

#include <algorithm>
#include <cmath>

namespace gmserver {

int retry_after_seconds(double tokens, double rate) {
    if (rate <= 0) return 1;
    const double s = std::ceil((1 - tokens) / rate);
    return s < 1 ? 1 : s > 86400 ? 86400 : static_cast<int>(s);
}

bool TokenBuckets::take(const std::string &key, double rate, double burst, int *retry_after_s) {
    if (rate <= 0) return true;
    if (burst < 1) burst = 1;
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard<std::mutex> lock(mu_);
    // Buckets that have refilled completely carry no state: drop them now and
    // then so that many distinct clients cannot grow the map without bound.
    if (++since_sweep_ >= 10000) {
        since_sweep_ = 0;
        for (auto it = buckets_.begin(); it != buckets_.end();) {
            const double idle = std::chrono::duration<double>(now - it->second.at).count();
            if (it->second.tokens + idle * it->second.rate >= it->second.burst) it = buckets_.erase(it);
            else ++it;
        }
    }
    auto it = buckets_.find(key);
    if (it == buckets_.end()) it = buckets_.emplace(key, Bucket{burst, rate, burst, now}).first;
    Bucket &b = it->second;
    const double elapsed = std::chrono::duration<double>(now - b.at).count();
    b.tokens = std::min(burst, b.tokens + elapsed * rate);
    b.rate = rate;
    b.burst = burst;
    b.at = now;
    if (b.tokens >= 1) {
        b.tokens -= 1;
        return true;
    }
    if (retry_after_s) *retry_after_s = retry_after_seconds(b.tokens, rate);
    return false;
}

}  // namespace gmserver
