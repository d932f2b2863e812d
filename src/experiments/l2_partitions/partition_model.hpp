// Host-side pieces of the l2_partitions experiment, no device needed: the
// lines chased and the SMs they are chased from, the two latency levels found
// in the measurements (near and far partition), and the two-partition model's
// fit: which side each SM is on, and in which partition each line lives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gmlab {

// `count` distinct 128-byte lines at random (fixed seed) in a region of
// `region_bytes`, as byte offsets, none at the start of a 2 MiB page (the chase
// loads those first, to warm the address translation). Throws Error naming
// `lines` and `region_bytes` when the region holds fewer than 4 x count lines.
std::vector<std::uint64_t> choose_lines(std::size_t region_bytes, std::size_t count, std::uint64_t seed);

// Every step-th of the SM ids seen (ascending), from the first.
std::vector<unsigned> every_nth_sm(const std::vector<unsigned> &seen, unsigned step);

// The SM ids whose bit is set in words of 32 (bit b of word k: SM 32 k + b).
std::vector<unsigned> sm_ids_of(const std::vector<std::uint32_t> &bits);

// Two latency levels in a set of measurements: the split of the sorted values
// into a lower and an upper group with the least sum of squared distances to
// the groups' means (one-dimensional two-means, exact). found when the upper
// group's median exceeds the lower's by at least min_gap x the lower's, and
// each group holds at least min_share of the values; otherwise there is one
// level (low = high = the median of all, nothing is far).
struct TwoLevels {
    bool found = false;
    double threshold = 0;  // values above it are the upper level (far)
    double low = 0, high = 0, gap = 0;  // medians of the two groups, high - low
    std::size_t n_low = 0, n_high = 0;
};
TwoLevels split_two_levels(std::vector<double> values, double min_gap, double min_share);

// Whether a latency is at the upper (far) level of `levels`.
inline bool is_far(double cycles, const TwoLevels &levels) { return levels.found && cycles > levels.threshold; }

// The shares of a chase's hops at the lower level, at the upper level, and
// beyond it (slower than the upper level by more than half the gap: DRAM, or
// a missed address translation). With one level: near up to 1.5 x its latency.
struct LevelShares {
    double near = 0, far = 0, beyond = 0;
};
LevelShares level_shares(const std::vector<double> &cycles, const TwoLevels &levels);

// The two-partition model: SM s sees line l far exactly when side[s] differs
// from home[l]. far[s][l] is what was measured; the fit takes the first SM's
// row as side 0, puts every other SM on the side whose pattern it matches more
// often, and each line in the partition most SMs agree on. consistency is the
// share of (SM, line) pairs the fit explains.
struct PartitionFit {
    std::vector<int> side;  // per SM: 0 or 1
    std::vector<int> home;  // per line: the side it is near to
    double consistency = 0;
};
PartitionFit fit_sides(const std::vector<std::vector<bool>> &far);

// Bits as hexadecimal digits, four per digit, the first bit the lowest of the
// first digit: "far lines" per SM in a compact form.
std::string bits_hex(const std::vector<bool> &bits);

}  // namespace gmlab
