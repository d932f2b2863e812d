#include "experiments/latency/latency_model.hpp"

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

namespace {

double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

std::vector<Plateau> find_plateaus(const std::vector<double> &sizes, const std::vector<double> &latency,
                                   double tolerance, std::size_t min_points) {
    std::vector<Plateau> out;
    const std::size_t n = std::min(sizes.size(), latency.size());
    min_points = std::max<std::size_t>(min_points, 1);
    std::size_t i = 0;
    while (i < n) {
        // The longest run from i whose spread stays within the tolerance.
        double lo = latency[i], hi = latency[i];
        std::size_t j = i + 1;
        for (; j < n; ++j) {
            const double nlo = std::min(lo, latency[j]), nhi = std::max(hi, latency[j]);
            if (nhi > nlo * (1.0 + tolerance)) break;
            lo = nlo;
            hi = nhi;
        }
        // A run can start on the rise into a level and end on the rise out of
        // it (the first sizes past a capacity still hit most of the time): its
        // ends are trimmed to the points within half the tolerance of its median.
        std::size_t first = i, last = j - 1;
        const auto begin = latency.begin();
        const double level = median_of(std::vector<double>(begin + static_cast<std::ptrdiff_t>(i), begin + static_cast<std::ptrdiff_t>(j)));
        const double band = 0.5 * tolerance * level;
        while (first < last && std::fabs(latency[first] - level) > band) ++first;
        while (last > first && std::fabs(latency[last] - level) > band) --last;
        if (last - first + 1 < min_points) {
            ++i;  // a point on the rise between two levels
            continue;
        }
        Plateau p;
        p.first = first;
        p.last = last;
        p.size_from = sizes[first];
        p.size_to = sizes[last];
        p.latency = median_of(std::vector<double>(begin + static_cast<std::ptrdiff_t>(first), begin + static_cast<std::ptrdiff_t>(last) + 1));
        p.open = last + 1 == n;
        out.push_back(p);
        i = last + 1;
    }
    return out;
}

CacheLevels name_levels(const std::vector<Plateau> &cached, const std::vector<Plateau> &bypass, double dram_latency,
                        double cache_fraction, double l1_fraction) {
    CacheLevels c;
    std::vector<Plateau> l2;
    for (const Plateau &p : bypass)
        if (!(dram_latency > 0) || p.latency < cache_fraction * dram_latency) l2.push_back(p);
    if (!l2.empty()) {
        c.l2 = true;
        c.l2_near = l2.front();
        if (l2.size() > 1) {
            c.l2_far = true;
            c.l2_far_level = l2.back();
        }
        c.l2_capacity = l2.back().size_to;
        c.l2_capacity_open = l2.back().open;
    }
    if (!cached.empty()) {
        const Plateau &first = cached.front();
        if (c.l2 ? first.latency < l1_fraction * c.l2_near.latency : false) {
            c.l1 = true;
            c.l1_level = first;
        }
    }
    return c;
}

}  // namespace gmlab
