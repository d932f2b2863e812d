// The L2 persisting-access controls (compute capability 8.0 and later): the
// device-wide set-aside for persisting lines, and the access policy window of a
// context's stream.
#pragma once

#include <cstddef>

#include <nlohmann/json.hpp>

#include "core/device/context.hpp"

namespace gmlab {

struct L2Limits {
    int cc_major = 0, cc_minor = 0;
    std::size_t l2_bytes = 0;
    std::size_t persisting_max = 0;  // persistingL2CacheMaxSize
    std::size_t max_window = 0;      // accessPolicyMaxWindowSize
};
L2Limits l2_limits(const DeviceInfo &d);

// GM_ERROR_NOT_SUPPORTED below compute capability 8.0, naming the device's.
void require_l2_controls(const L2Limits &limits);

// Checks a window request against the limits and the buffer (host only).
// hit/miss properties: 0 normal, 1 streaming, 2 persisting (not allowed for miss).
void check_window(const L2Limits &limits, std::size_t buffer_bytes, std::size_t offset, std::size_t num_bytes,
                  double hit_ratio, int hit_property, int miss_property);

// Sets the device's persisting set-aside (clamped to the maximum) and returns
// the size in force afterwards.
std::size_t set_persisting_size(ContextState &ctx, std::size_t bytes);
std::size_t persisting_size(ContextState &ctx);

// Applies an access policy window to the context's stream: every kernel
// launched on it afterwards runs under the window.
void set_window(ContextState &ctx, const void *base, std::size_t num_bytes, double hit_ratio, int hit_property,
                int miss_property);
// Removes the stream's window and returns persisting lines to normal.
void reset_window(ContextState &ctx);

// What CUDA reports now: the stream's window and the set-aside.
nlohmann::json l2_state(ContextState &ctx);

// Restores the set-aside found at construction and clears the window when it
// goes out of scope, on every path (never throws).
class L2Restore {
public:
    explicit L2Restore(ContextState &ctx);
    ~L2Restore();
    L2Restore(const L2Restore &) = delete;
    L2Restore &operator=(const L2Restore &) = delete;

private:
    ContextState &ctx_;
    std::size_t saved_set_aside_ = 0;
};

}  // namespace gmlab
