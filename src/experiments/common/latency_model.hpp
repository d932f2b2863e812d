// Host-side pieces of the pointer-chase experiments: the random single-cycle
// ring, the working-set sweep, and naming the levels (L1, the L2 partitions,
// DRAM) and capacities of a latency-vs-working-set curve. No device needed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "experiments/common/levels.hpp"

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

// One chase's curve (working sets ascending, latency in cycles) and its
// levels (experiments/common/levels.hpp): runs of working sets served at about
// one latency, and the climbs between them.
struct ChaseCurve {
    std::vector<double> sizes, latency;
    Levels levels;
};

// Finds the levels of a chase: a new level where the latency moves by at
// least min_step (relative) for at least two working sets. Past a capacity a
// random chase still hits about capacity / working set of the time, so the
// first size past it may still count: a capacity is good to about one step of
// the sweep.
ChaseCurve chase_curve(std::vector<double> sizes, std::vector<double> latency, double min_step);

// The levels named from the two chases.
struct CacheLevels {
    bool l1 = false;              // an L1 level in the cached (ld.ca) chase
    Level l1_level;
    double l1_falls = 0;          // the first working set past it (0: the sweep ends on it)
    bool l2 = false;              // at least one L2 level in the L1-bypassing (ld.cg) chase
    Level l2_near;                // the first L2 level
    bool l2_far = false;          // a second, slower L2 level: the far partition
    Level l2_far_level;
    std::size_t l2_levels = 0;    // L2 levels found; past the second they are left unnamed
    double l2_capacity = 0;       // where the last named L2 level ends
    bool l2_capacity_open = false;  // it ran to the end of the sweep
    double l2_falls = 0;          // the first working set past it (0: none)
    bool dram = false;            // a level of the bypass chase at DRAM latency, past the L2 levels
    Level dram_level;
};

// dram_latency: a cold chase (L2 flushed) in the same unit. Levels of the
// bypass chase below cache_fraction x dram_latency are L2 levels (the first
// near, the second far); the first level at or above it after them is DRAM's.
// The first level of the cached chase is L1 when it is below l1_fraction x the
// L2 (near) latency. Without a cold chase (dram_latency <= 0) every level of
// the bypass chase counts as L2.
// l2_reported_bytes (0: unknown): the L2 the device reports. The far level's
// value is the median of its points whose ring fits in it: a ring just past
// the L2 (H100: 50.8 MiB of 50 MiB) misses to DRAM part of the time and is
// often joined to the far level, the step being below min_step.
CacheLevels name_levels(const ChaseCurve &cached, const ChaseCurve &bypass, double dram_latency,
                        double cache_fraction = 0.85, double l1_fraction = 0.5, double l2_reported_bytes = 0);

}  // namespace gmlab
