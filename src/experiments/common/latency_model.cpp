#include "experiments/common/latency_model.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "core/error.hpp"

namespace gmlab {

std::vector<std::uint32_t> single_cycle(std::size_t n, std::uint64_t seed) {
    // Sattolo: a random order of the nodes in which j < i is always swapped in,
    // so the permutation it makes is one cycle through all of them.
    std::vector<std::uint32_t> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<std::uint32_t>(i);
    std::mt19937_64 rng(seed);
    for (std::size_t i = n; i > 1; --i) {
        std::uniform_int_distribution<std::size_t> pick(0, i - 2);
        std::swap(order[i - 1], order[pick(rng)]);
    }
    // Node order[k] is followed by order[k + 1].
    std::vector<std::uint32_t> next(n);
    for (std::size_t k = 0; k < n; ++k) next[order[k]] = order[(k + 1) % n];
    return next;
}

std::uint32_t walk(const std::vector<std::uint32_t> &next, std::uint32_t start, std::uint64_t hops) {
    hops %= next.size();  // one cycle through every node
    std::uint32_t p = start;
    for (std::uint64_t i = 0; i < hops; ++i) p = next[p];
    return p;
}

std::vector<std::size_t> working_sets(std::size_t min_bytes, std::size_t max_bytes, int points_per_octave,
                                      std::size_t stride) {
    if (stride == 0) invalid("stride must be at least 1, got 0");
    if (points_per_octave < 1) invalid("points_per_octave must be at least 1, got " + std::to_string(points_per_octave));
    if (min_bytes < 2 * stride)
        invalid("min_bytes must be at least 2 x stride = " + std::to_string(2 * stride) + ", got " + std::to_string(min_bytes));
    if (max_bytes <= min_bytes)
        invalid("max_bytes must be larger than min_bytes (" + std::to_string(min_bytes) + "), got " + std::to_string(max_bytes));
    std::vector<std::size_t> out;
    for (int k = 0;; ++k) {
        const double s = static_cast<double>(min_bytes) * std::pow(2.0, static_cast<double>(k) / points_per_octave);
        if (s >= static_cast<double>(max_bytes)) break;
        const std::size_t b = static_cast<std::size_t>(s) / stride * stride;
        if (out.empty() || b > out.back()) out.push_back(b);
    }
    const std::size_t last = max_bytes / stride * stride;
    if (out.empty() || last > out.back()) out.push_back(last);
    return out;
}

ChaseCurve chase_curve(std::vector<double> sizes, std::vector<double> latency, double min_step) {
    ChaseCurve c;
    c.sizes = std::move(sizes);
    c.latency = std::move(latency);
    LevelOptions o;
    o.min_step = min_step;
    o.min_points = 2;  // one working set alone is a point on the climb between levels
    o.scale = LevelScale::Relative;
    c.levels = find_levels(c.sizes, c.latency, o);
    return c;
}

namespace {

// The first working set past level `i` of a curve, 0 where the sweep ends on it.
double falls_after(const ChaseCurve &c, std::size_t i) {
    const Step s = step_after(c.levels, i, c.sizes, c.latency);
    return s.found ? s.x_after : 0.0;
}

// The median of a level's points whose working set is at most `limit`; the
// level's own value where none is (or limit <= 0).
double value_within(const ChaseCurve &c, const Level &level, double limit) {
    if (!(limit > 0)) return level.value;
    std::vector<double> v;
    for (std::size_t i = level.first; i <= level.last && i < c.sizes.size(); ++i)
        if (c.sizes[i] <= limit && std::isfinite(c.latency[i])) v.push_back(c.latency[i]);
    if (v.empty()) return level.value;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

CacheLevels name_levels(const ChaseCurve &cached, const ChaseCurve &bypass, double dram_latency, double cache_fraction,
                        double l1_fraction, double l2_reported_bytes) {
    CacheLevels c;
    const bool have_dram = dram_latency > 0;
    std::vector<std::size_t> l2;  // indices of the bypass chase's L2 levels
    const auto &levels = bypass.levels.levels;
    for (std::size_t i = 0; i < levels.size(); ++i) {
        const bool cache = !have_dram || levels[i].value < cache_fraction * dram_latency;
        if (cache && !c.dram) {
            l2.push_back(i);
        } else if (!cache && !c.dram && !l2.empty()) {
            c.dram = true;
            c.dram_level = levels[i];
        }
    }
    c.l2_levels = l2.size();
    if (!l2.empty()) {
        c.l2 = true;
        c.l2_near = levels[l2[0]];
        std::size_t last = l2[0];
        if (l2.size() > 1) {
            c.l2_far = true;
            c.l2_far_level = levels[l2[1]];
            c.l2_far_level.value = value_within(bypass, c.l2_far_level, l2_reported_bytes);
            last = l2[1];
        }
        c.l2_capacity = levels[last].ends;
        c.l2_capacity_open = levels[last].open_end;
        c.l2_falls = falls_after(bypass, last);
    }
    if (c.l2 && !cached.levels.levels.empty()) {
        const Level &first = cached.levels.levels.front();
        if (first.value < l1_fraction * c.l2_near.value) {
            c.l1 = true;
            c.l1_level = first;
            c.l1_falls = falls_after(cached, 0);
        }
    }
    return c;
}

}  // namespace gmlab
