#include "experiments/allocation/allocation_model.hpp"

#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "experiments/common/transfer_common.hpp"

namespace gmlab {

PageCost fit_page_cost(const std::vector<double> &bytes, const std::vector<double> &ms) {
    PageCost c;
    std::vector<double> one(bytes.size(), 1.0), gib;
    for (double b : bytes) gib.push_back(b / (1024.0 * 1024.0 * 1024.0));
    c.fitted = fit_two(one, gib, ms, &c.fixed_ms, &c.ms_per_gib);
    return c;
}

FlatCost flat_cost(const std::vector<double> &us) {
    FlatCost f;
    if (us.empty()) return f;
    std::vector<double> v = us;
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    f.us = v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
    f.max_over_min = v.front() > 0 ? v.back() / v.front() : 0;
    return f;
}

std::uint64_t pool_release_threshold(std::uint64_t asked, std::uint64_t max_size, std::uint64_t device_bytes) {
    if (asked > device_bytes)
        invalid("pool_release_threshold must be in 0.." + std::to_string(device_bytes) +
                " (0: max_size; at most the device's memory), got " + std::to_string(asked));
    return asked == 0 ? max_size : asked;
}

}  // namespace gmlab
