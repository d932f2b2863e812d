#include "crowd/outliers.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gmserver {

Distribution distribution_of(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    Distribution d;
    for (double v : values) add_value(d, v);
    return d;
}

void add_value(Distribution &d, double value) {
    const std::int32_t key = bin_key(value);
    auto it = std::lower_bound(d.begin(), d.end(), value, [](const HistogramAggregate::BinValue &b, double v) { return b.mean < v; });
    // The bin of the value is the one at or just below where it would go.
    for (auto b : {it, it == d.begin() ? d.end() : it - 1}) {
        if (b != d.end() && bin_key(b->mean) == key) {
            b->mean += (value - b->mean) / double(b->n + 1);
            ++b->n;
            return;
        }
    }
    d.insert(it, {value, 1});
}

std::uint64_t count_of(const Distribution &d) {
    std::uint64_t n = 0;
    for (const auto &b : d) n += b.n;
    return n;
}

double distribution_quantile(const Distribution &d, double q) {
    const std::uint64_t n = count_of(d);
    const double pos = q * double(n - 1);
    const std::uint64_t lo = static_cast<std::uint64_t>(pos);
    const std::uint64_t hi = std::min(lo + 1, n - 1);
    double vlo = d.front().mean, vhi = d.back().mean;
    std::uint64_t seen = 0;
    bool have_lo = false;
    for (const auto &b : d) {
        const std::uint64_t end = seen + b.n;  // ranks [seen, end) are in this bin
        if (!have_lo && lo < end) {
            vlo = b.mean;
            have_lo = true;
        }
        if (hi < end) {
            vhi = b.mean;
            break;
        }
        seen = end;
    }
    return vlo + (vhi - vlo) * (pos - double(lo));
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
        const Distribution &d = it->second;
        s.n = count_of(d);
        s.median = distribution_quantile(d, 0.5);
        s.q1 = distribution_quantile(d, 0.25);
        s.q3 = distribution_quantile(d, 0.75);
        // Values in the upload's own bin count as equal to it.
        const std::int32_t key = bin_key(f.value);
        std::uint64_t below = 0, equal = 0;
        for (const auto &b : d) {
            if (bin_key(b.mean) == key) equal += b.n;
            else if (b.mean < f.value) below += b.n;
        }
        s.percentile = 100.0 * (double(below) + 0.5 * double(equal)) / double(s.n);
        if (s.n >= kMinUploadsToJudge) {
            Distribution dev;
            dev.reserve(d.size());
            for (const auto &b : d) dev.push_back({std::fabs(b.mean - s.median), b.n});
            std::sort(dev.begin(), dev.end(), [](const auto &a, const auto &b) { return a.mean < b.mean; });
            const double mad = std::max(distribution_quantile(dev, 0.5), kMadFloor * std::fabs(s.median));
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
