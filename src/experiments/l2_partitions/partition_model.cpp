#include "experiments/l2_partitions/partition_model.hpp"

#include <algorithm>
#include <random>
#include <unordered_set>

#include "core/error.hpp"
#include "experiments/l2_partitions/l2_partitions.cuh"

namespace gmlab {

namespace {

double median_of_sorted(const std::vector<double> &v, std::size_t from, std::size_t to) {
    const std::size_t n = to - from, m = from + n / 2;
    return n % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

}  // namespace

std::vector<std::uint64_t> choose_lines(std::size_t region_bytes, std::size_t count, std::uint64_t seed) {
    const std::uint64_t line = kernels::kChaseLineBytes, per_page = kernels::kChasePageBytes / line;
    const std::uint64_t candidates = region_bytes / line;
    if (count == 0) invalid("lines must be at least 1");
    if (candidates - (candidates + per_page - 1) / per_page < 4 * static_cast<std::uint64_t>(count))
        invalid("region_bytes (" + std::to_string(region_bytes) + ") must hold at least 4 x lines (" + std::to_string(count) +
                ") lines of 128 bytes besides the page starts; raise region_bytes or lower lines");
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::uint64_t> pick(0, candidates - 1);
    std::unordered_set<std::uint64_t> taken;
    std::vector<std::uint64_t> out;
    out.reserve(count);
    while (out.size() < count) {
        const std::uint64_t k = pick(rng);
        if (k % per_page == 0 || !taken.insert(k).second) continue;  // page starts warm the translation
        out.push_back(k * line);
    }
    return out;
}

std::vector<unsigned> every_nth_sm(const std::vector<unsigned> &seen, unsigned step) {
    std::vector<unsigned> out;
    if (step == 0) return out;
    for (std::size_t i = 0; i < seen.size(); i += step) out.push_back(seen[i]);
    return out;
}

std::vector<unsigned> sm_ids_of(const std::vector<std::uint32_t> &bits) {
    std::vector<unsigned> out;
    for (std::size_t k = 0; k < bits.size(); ++k)
        for (unsigned b = 0; b < 32; ++b)
            if (bits[k] >> b & 1u) out.push_back(static_cast<unsigned>(32 * k + b));
    return out;
}

TwoLevels split_two_levels(std::vector<double> values, double min_gap, double min_share) {
    TwoLevels t;
    const std::size_t n = values.size();
    if (n == 0) return t;
    std::sort(values.begin(), values.end());
    t.low = t.high = median_of_sorted(values, 0, n);
    t.threshold = values.back();
    t.n_low = n;
    if (n < 2) return t;
    // Prefix sums of x and x^2: the sum of squares of a group is
    // sum(x^2) - sum(x)^2 / count. Values are shifted by the median so that
    // the sums stay small next to the differences they are taken of.
    const double shift = t.low;
    std::vector<double> s(n + 1, 0.0), q(n + 1, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        const double x = values[i] - shift;
        s[i + 1] = s[i] + x;
        q[i + 1] = q[i] + x * x;
    }
    std::size_t best = 0;
    double best_cost = 0;
    for (std::size_t k = 1; k < n; ++k) {
        if (values[k] == values[k - 1]) continue;  // a split between equal values is no split
        const double left = q[k] - s[k] * s[k] / static_cast<double>(k);
        const double right = (q[n] - q[k]) - (s[n] - s[k]) * (s[n] - s[k]) / static_cast<double>(n - k);
        const double cost = left + right;
        if (best == 0 || cost < best_cost) {
            best = k;
            best_cost = cost;
        }
    }
    if (best == 0) return t;  // every value the same
    const double low = median_of_sorted(values, 0, best), high = median_of_sorted(values, best, n);
    const double share = static_cast<double>(std::min(best, n - best)) / static_cast<double>(n);
    if (!(high - low >= min_gap * low) || share < min_share) return t;
    t.found = true;
    t.low = low;
    t.high = high;
    t.gap = high - low;
    t.threshold = (values[best - 1] + values[best]) / 2;
    t.n_low = best;
    t.n_high = n - best;
    return t;
}

LevelShares level_shares(const std::vector<double> &cycles, const TwoLevels &levels) {
    LevelShares r;
    if (cycles.empty()) return r;
    std::size_t near = 0, far = 0, beyond = 0;
    for (double c : cycles) {
        if (levels.found) {
            if (c <= levels.threshold)
                ++near;
            else if (c <= levels.high + levels.gap / 2)
                ++far;
            else
                ++beyond;
        } else {
            (c <= 1.5 * levels.low ? near : beyond) += 1;
        }
    }
    const double n = static_cast<double>(cycles.size());
    r.near = near / n;
    r.far = far / n;
    r.beyond = beyond / n;
    return r;
}

PartitionFit fit_sides(const std::vector<std::vector<bool>> &far) {
    PartitionFit f;
    if (far.empty()) return f;
    const std::size_t lines = far[0].size();
    f.side.assign(far.size(), 0);
    for (std::size_t s = 1; s < far.size(); ++s) {
        std::size_t same = 0;
        for (std::size_t l = 0; l < lines; ++l) same += far[s][l] == far[0][l];
        f.side[s] = 2 * same >= lines ? 0 : 1;
    }
    // A line's home is the side that sees it near: SM s sees it far when
    // side[s] != home[l], so far[s][l] XOR side[s] is (home != 0) for every SM.
    f.home.assign(lines, 0);
    std::size_t explained = 0;
    for (std::size_t l = 0; l < lines; ++l) {
        std::size_t votes_one = 0;
        for (std::size_t s = 0; s < far.size(); ++s) votes_one += (far[s][l] != (f.side[s] == 1)) ? 1 : 0;
        f.home[l] = 2 * votes_one > far.size() ? 1 : 0;
        for (std::size_t s = 0; s < far.size(); ++s) explained += far[s][l] == (f.side[s] != f.home[l]);
    }
    const std::size_t cells = far.size() * lines;
    f.consistency = cells ? static_cast<double>(explained) / static_cast<double>(cells) : 0.0;
    return f;
}

std::string bits_hex(const std::vector<bool> &bits) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (std::size_t i = 0; i < bits.size(); i += 4) {
        unsigned d = 0;
        for (unsigned b = 0; b < 4 && i + b < bits.size(); ++b) d |= (bits[i + b] ? 1u : 0u) << b;
        out.push_back(digits[d]);
    }
    return out;
}

}  // namespace gmlab
