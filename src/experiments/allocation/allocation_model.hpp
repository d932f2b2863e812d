// The allocation experiment's models, host only. A pool that holds the memory
// hands it out at one cost whatever the size; page-locking and first touch
// cost per page, so their time is a fixed part plus a part per GiB.
#pragma once

#include <cstdint>
#include <vector>

namespace gmlab {

// time = fixed + GiB x per GiB, by least squares.
struct PageCost {
    bool fitted = false;  // false with fewer than two distinct sizes
    double fixed_ms = 0, ms_per_gib = 0;
    double predict_ms(double bytes) const { return fixed_ms + ms_per_gib * bytes / (1024.0 * 1024.0 * 1024.0); }
};
PageCost fit_page_cost(const std::vector<double> &bytes, const std::vector<double> &ms);

// One cost for every size: the median of the points' times, and the largest
// over the smallest of them (1 where the cost does not depend on the size).
struct FlatCost {
    double us = 0, max_over_min = 0;
};
FlatCost flat_cost(const std::vector<double> &us);

// The release threshold of the experiment's own pool: `asked`, or max_size
// where asked is 0 (so that the pool keeps every size measured). Refused
// naming pool_release_threshold where it exceeds the device's memory.
std::uint64_t pool_release_threshold(std::uint64_t asked, std::uint64_t max_size, std::uint64_t device_bytes);

}  // namespace gmlab
