// The model of on-demand migration: a kernel that touches host-resident
// managed memory waits for the driver to serve its page faults, group by
// group, and for the bytes to cross the host link:
//   time = fault groups x cost per fault group + bytes migrated / link bandwidth.
// Both constants are fitted by least squares over the measured on-demand
// points, each with the counted fault groups and bytes of its own repetition.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gmlab {

struct FaultModelPoint {
    double fault_groups = 0;  // GPU page-fault groups the driver served
    double bytes = 0;         // bytes it migrated
    double ms = 0;            // the measured median
};

struct FaultModel {
    bool fitted = false;
    std::string why_not;  // when not fitted
    double ms_per_fault_group = 0, ms_per_mb = 0;  // MB = 1e6 bytes
    std::size_t points = 0;

    double predict_ms(double fault_groups, double bytes) const { return fault_groups * ms_per_fault_group + bytes / 1e6 * ms_per_mb; }
    double us_per_fault_group() const { return ms_per_fault_group * 1e3; }
    double link_gbs() const { return ms_per_mb > 0 ? 1.0 / ms_per_mb : 0.0; }  // MB per ms = GB/s
};

// Least squares without intercept over the points. Not fitted (with the
// reason) where fewer than two points have faults, where faults and bytes are
// proportional at every point (the two costs cannot be told apart), or where a
// constant comes out negative (the points do not follow the model).
FaultModel fit_fault_model(const std::vector<FaultModelPoint> &points);

}  // namespace gmlab
