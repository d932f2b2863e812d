#include "experiments/managed_memory/fault_model.hpp"

#include <cstdio>

#include "experiments/common/transfer_common.hpp"

namespace gmlab {

FaultModel fit_fault_model(const std::vector<FaultModelPoint> &points) {
    FaultModel m;
    std::vector<double> groups, mb, ms;
    for (const FaultModelPoint &p : points) {
        if (!(p.fault_groups > 0) || !(p.ms > 0)) continue;
        groups.push_back(p.fault_groups);
        mb.push_back(p.bytes / 1e6);
        ms.push_back(p.ms);
    }
    m.points = ms.size();
    if (m.points < 2) {
        m.why_not = "the fit needs at least two on-demand points with counted GPU page faults, and has " +
                    std::to_string(m.points);
        return m;
    }
    double a = 0, b = 0;
    if (!fit_two(groups, mb, ms, &a, &b)) {
        m.why_not = "fault groups and migrated bytes are in the same proportion at every point, so the cost of a "
                    "fault group and the link's bandwidth cannot be told apart";
        return m;
    }
    if (a < 0 || b < 0) {
        char buf[200];
        std::snprintf(buf, sizeof buf,
                      "the least-squares constants came out negative (%.3g us per fault group, %.3g ms per MB): "
                      "these points do not follow the model",
                      a * 1e3, b);
        m.why_not = buf;
        return m;
    }
    m.fitted = true;
    m.ms_per_fault_group = a;
    m.ms_per_mb = b;
    return m;
}

}  // namespace gmlab
