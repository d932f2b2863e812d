// Levels of a measured curve: where a quantity stays about constant over a
// range of x, and the steps between those ranges. One finder for every family
// that reads capacities off a sweep: latency's chase (L1, the two L2
// partitions, DRAM) and carveout's working sets (where L1 stops holding them).
// No device needed.
//
// The curve is split into pieces by a piecewise-constant fit: the split that
// minimises the sum over pieces of |value - the piece's median| (robust to a
// few stray points) plus a fixed cost per piece, the smallest step that counts
// (so a piece is only worth starting where the curve moves by about that much
// for at least a point or two). Neighbouring pieces whose medians differ by
// less than the smallest step are then joined, and pieces of fewer than
// min_points points are transitions between levels, not levels. A lone point
// far from two neighbours that agree with each other (one slow launch, a
// collision in the cache) is set aside before the fit: it splits nothing.
#pragma once

#include <cstddef>
#include <vector>

namespace gmlab {

// How two values are compared. Relative: by their ratio (a 10 % step is the
// same at 30 cycles as at 600; values must be positive). Absolute: by their
// difference (hit shares, where 0 is a value like any other).
enum class LevelScale { Relative, Absolute };

struct LevelOptions {
    double min_step = 0.10;       // the smallest step between levels: a ratio - 1 (Relative) or a difference
    std::size_t min_points = 2;   // a run of fewer points is a transition, not a level
    LevelScale scale = LevelScale::Relative;
};

// One level: the curve's points first..last (indices), of which `points`
// count towards its value (a lone outlier in between does not).
struct Level {
    std::size_t first = 0, last = 0;
    std::size_t points = 0;
    double value = 0;              // the median of its points
    double begins = 0, ends = 0;   // x at first and at last
    bool open_start = false;       // it begins at the curve's first usable point: it may extend below the sweep
    bool open_end = false;         // it ends at the curve's last usable point: it may extend past the sweep
};

struct Levels {
    std::vector<Level> levels;              // in the order of x
    std::vector<std::size_t> transitions;   // points on no level (the climb from one level to the next)
    std::vector<std::size_t> outliers;      // lone points set aside
    std::vector<std::size_t> unusable;      // not finite, or (Relative) not positive
};

// The levels of a curve (x ascending). Throws nothing; an empty or unusable
// curve has no levels. min_step <= 0 is taken as the default.
Levels find_levels(const std::vector<double> &x, const std::vector<double> &y, const LevelOptions &options = {});

// The step out of level `index`: from its last point to the first usable
// point after it (on the next level or on the climb towards it).
struct Step {
    bool found = false;                  // false where the level runs to the end of the curve
    std::size_t before = 0, after = 0;   // indices of those two points
    double x_before = 0, x_after = 0;
    double from = 0, to = 0;             // the level's value and the value at `after`
    double change = 0;                   // to / from - 1 (Relative) or to - from (Absolute)
};
Step step_after(const Levels &levels, std::size_t index, const std::vector<double> &x, const std::vector<double> &y,
                LevelScale scale = LevelScale::Relative);

// The index of the level with the largest value; levels.size() where there is none.
std::size_t highest_level(const Levels &levels);

}  // namespace gmlab
