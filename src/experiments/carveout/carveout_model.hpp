// The carveout model, no device needed: L1 and shared memory share one array
// per SM, and the carveout a kernel prefers decides how much of it is shared
// memory; the rest is the kernel's L1. From the device's compute capability
// and its largest shared memory per SM (cudaDevAttrMaxSharedMemoryPerMultiprocessor),
// the L1 a carveout leaves, and where a repeatedly read working set stops
// fitting it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/units.hpp"
#include "experiments/common/levels.hpp"

namespace gmlab {

// The unified L1/shared array per SM and the shared-memory capacities it can
// be split at (ascending), per the CUDA Programming Guide's compute
// capability tables. known only where the table's largest capacity equals the
// device's largest shared memory per SM.
struct UnifiedL1 {
    bool known = false;
    std::size_t unified_bytes = 0;
    std::vector<std::size_t> shared_capacities;
};
UnifiedL1 unified_l1(int cc_major, int cc_minor, std::size_t max_shared_per_sm);

// The shared-memory capacity configured for a carveout of `percent` (0..100)
// of max_shared_per_sm: the preference is rounded up to the next supported
// capacity (the Programming Guide: 50% of a 96 KB maximum, 48 KB, is not a
// capacity and becomes 64 KB), and the capacity is at least what the blocks
// resident on the SM need (`needed_bytes`: their static shared memory and the
// shared memory the system reserves per block). The largest capacity where
// nothing is larger.
std::size_t shared_capacity_for(const UnifiedL1 &u, int percent, std::size_t max_shared_per_sm, std::size_t needed_bytes);

// The L1 left beside that capacity: the unified size minus it.
inline std::size_t l1_left(const UnifiedL1 &u, std::size_t shared_capacity) {
    return u.unified_bytes > shared_capacity ? u.unified_bytes - shared_capacity : 0;
}

// One block per SM reading a working set `passes` times in order: while it
// fits the L1 every pass after the first hits; past it, in-order passes over
// more lines than an LRU-like cache holds evict each line before it is read
// again, and nothing hits.
double predicted_l1_hit_share(std::size_t working_set, std::size_t l1_bytes, std::uint64_t passes);

// Where the working set stops fitting L1, from one carveout's curve over the
// working sets (ascending): the curve's levels (experiments/common/levels.hpp)
// with a new level wherever the value moves by min_step, the highest of them
// (L1 hits are the fastest reads), and the step out of it. Not the largest
// drop of the curve: past L1 the reads fall again, further, where the L2 hits
// of a partly cached set give way to L2 alone.
struct L1Fall {
    bool found = false;   // the curve has a usable level at all
    bool fell = false;    // a working set past the highest level was measured
    double fits = 0;      // the largest working set on the highest level
    double falls = 0;     // the first working set past it (where fell)
    double level = 0;     // the highest level's value
    double drop = 0;      // how far the value fell there: 1 - to / from (Relative) or from - to (Absolute)
};
L1Fall l1_fall(const std::vector<double> &sizes, const std::vector<double> &values, double min_step,
               LevelScale scale = LevelScale::Relative);

// Whether an L1 of l1_bytes lies between what still fitted and what fell (at
// least what fitted, where nothing fell).
bool brackets(const L1Fall &f, double l1_bytes);

}  // namespace gmlab
