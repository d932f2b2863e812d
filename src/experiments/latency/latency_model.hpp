// Host-side pieces of the pointer-chase experiments: the random single-cycle
// ring, the working-set sweep, and finding the plateaus (cache levels) and
// knees (capacities) of a latency-vs-working-set curve. No device needed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gmlab {

// A random cyclic permutation of 0..n-1 that is one single cycle (Sattolo's
// algorithm, fixed seed): next[i] is the node visited after i, and following
// next from any node visits all n nodes before coming back. n >= 1.
std::vector<std::uint32_t> single_cycle(std::size_t n, std::uint64_t seed);

// The node reached from `start` after `hops` steps along next.
std::uint32_t walk(const std::vector<std::uint32_t> &next, std::uint32_t start, std::uint64_t hops);

// Working sets from min_bytes to max_bytes, points_per_octave per doubling
// (geometric), each rounded down to a multiple of stride and holding at least
// two lines; max_bytes itself is always the last. Throws Error naming the
// parameter for min_bytes >= max_bytes, min_bytes < 2 x stride, or a stride or
// points_per_octave of 0.
std::vector<std::size_t> working_sets(std::size_t min_bytes, std::size_t max_bytes, int points_per_octave,
                                      std::size_t stride);

// A run of consecutive points of the curve whose latencies stay within the
// tolerance of one another: one level of the memory hierarchy.
struct Plateau {
    std::size_t first = 0, last = 0;    // indices of its first and last point
    double size_from = 0, size_to = 0;  // working sets at those points
    double latency = 0;                 // median latency of its points
    bool open = false;                  // it runs to the end of the sweep (no knee seen after it)
};

// Splits a curve (sizes ascending) into plateaus: greedy runs whose largest
// latency is at most (1 + tolerance) x their smallest, with the points at either
// end further than tolerance / 2 from the run's median trimmed off, kept when at
// least min_points remain. Points between plateaus (the rise from one level to
// the next) belong to none. size_to of a plateau that is not open is the
// detected capacity of its level: the largest working set still served at about
// that latency. Past a capacity a random chase still hits about capacity /
// working set of the time, so the first size past it may still count: the
// estimate is good to about one step of the sweep.
std::vector<Plateau> find_plateaus(const std::vector<double> &sizes, const std::vector<double> &latency,
                                   double tolerance = 0.10, std::size_t min_points = 3);

// The levels named from the plateaus of the two chases.
struct CacheLevels {
    bool l1 = false;            // an L1 plateau in the cached (ld.ca) chase
    Plateau l1_level;
    bool l2 = false;            // at least one L2 plateau in the L1-bypassing (ld.cg) chase
    Plateau l2_near;            // the first L2 plateau
    bool l2_far = false;        // a second, slower L2 plateau (the far partition)
    Plateau l2_far_level;
    double l2_capacity = 0;     // size_to of the last L2 plateau
    bool l2_capacity_open = false;  // the last L2 plateau ran to the end of the sweep
};

// cached / bypass: plateaus of the ld.ca and ld.cg chases; dram_latency: a
// cold chase (L2 flushed) in the same unit. Plateaus of the bypass chase below
// cache_fraction x dram_latency are L2 levels (the first near, the last far when
// there are several); the first plateau of the cached chase is L1 when it is
// below l1_fraction x the L2 (near) latency.
CacheLevels name_levels(const std::vector<Plateau> &cached, const std::vector<Plateau> &bypass, double dram_latency,
                        double cache_fraction = 0.85, double l1_fraction = 0.5);

}  // namespace gmlab
