#include "outliers.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gmserver {

double sorted_quantile(const std::vector<double> &v, double q) {
    const double pos = q * double(v.size() - 1);
    const std::size_t lo = static_cast<std::size_t>(pos);
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - double(lo));
}

std::vector<FigureStanding> standings(const std::vector<FigureValue> &upload, const ModelValues &model) {
    std::vector<FigureStanding> out;
    for (const FigureValue &f : upload) {
        FigureStanding s;
        s.experiment = f.experiment;
        s.figure = f.figure;
        s.value = f.value;
        const auto it = model.find({f.experiment, f.figure});
        if (it == model.end() || it->second.empty()) {
            out.push_back(s);
            continue;
        }
        const std::vector<double> &v = it->second;
        s.n = v.size();
        s.median = sorted_quantile(v, 0.5);
        s.q1 = sorted_quantile(v, 0.25);
        s.q3 = sorted_quantile(v, 0.75);
        const auto below = std::lower_bound(v.begin(), v.end(), f.value) - v.begin();
        const auto equal = std::upper_bound(v.begin(), v.end(), f.value) - v.begin() - below;
        s.percentile = 100.0 * (double(below) + 0.5 * double(equal)) / double(v.size());
        if (v.size() >= kMinUploadsToJudge) {
            std::vector<double> dev;
            dev.reserve(v.size());
            for (double x : v) dev.push_back(std::fabs(x - s.median));
            std::sort(dev.begin(), dev.end());
            const double mad = std::max(sorted_quantile(dev, 0.5), kMadFloor * std::fabs(s.median));
            s.judged = mad > 0;
            s.z = s.judged ? 0.6745 * (f.value - s.median) / mad : 0;
            s.unusual = std::fabs(s.z) > kUnusualZ;
            s.extreme = std::fabs(s.z) > kHoldZ;
        }
        out.push_back(s);
    }
    return out;
}

std::string hold_reason(const std::vector<FigureStanding> &st, const std::vector<std::string> &health) {
    std::string reason;
    std::size_t extreme = 0;
    for (const FigureStanding &s : st) {
        if (!s.extreme) continue;
        if (++extreme > 3) continue;  // the first three are named, the rest counted
        char buf[256];
        std::snprintf(buf, sizeof buf, "%s %s = %.4g, the model's median %.4g (robust z %.1f over %zu uploads)", s.experiment.c_str(),
                      s.figure.c_str(), s.value, s.median, s.z, s.n);
        reason += (reason.empty() ? "" : "; ") + std::string(buf);
    }
    if (extreme > 3) reason += "; and " + std::to_string(extreme - 3) + " more figures far outside";
    if (extreme) reason = "outlier: " + reason;
    for (const std::string &h : health) reason += (reason.empty() ? "" : "; ") + h;
    return reason;
}

}  // namespace gmserver
