#include "rate_limit.hpp"

#include <algorithm>
#include <cmath>

namespace gmserver {

bool RateLimiter::allow(const std::string &client, int *retry_after_s) {
    if (rate_ <= 0) return true;
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard<std::mutex> lock(mu_);
    // Buckets that have refilled completely carry no state: drop them now and
    // then so that many distinct clients cannot grow the map without bound.
    if (++since_sweep_ >= 10000) {
        since_sweep_ = 0;
        for (auto it = buckets_.begin(); it != buckets_.end();) {
            const double idle = std::chrono::duration<double>(now - it->second.at).count();
            if (it->second.tokens + idle * rate_ >= burst_) it = buckets_.erase(it);
            else ++it;
        }
    }
    auto it = buckets_.find(client);
    if (it == buckets_.end()) it = buckets_.emplace(client, Bucket{burst_, now}).first;
    Bucket &b = it->second;
    const double elapsed = std::chrono::duration<double>(now - b.at).count();
    b.tokens = std::min(burst_, b.tokens + elapsed * rate_);
    b.at = now;
    if (b.tokens >= 1) {
        b.tokens -= 1;
        return true;
    }
    if (retry_after_s) *retry_after_s = static_cast<int>(std::ceil((1 - b.tokens) / rate_));
    if (retry_after_s && *retry_after_s < 1) *retry_after_s = 1;
    return false;
}

}  // namespace gmserver
