// The canonical x axis of the per-model aggregates: every x of every upload
// is moved onto one of a fixed set of points before it is aggregated, so that
// uploads whose x differ slightly (by rounding, or on purpose) add to the same
// points instead of each adding points of their own. A model's aggregate, and
// every page drawn from it, then has at most one entry per canonical point
// and series, however many uploads there are.
//
// The experiments sweep integers (offsets and strides 0..64, counts, pitch
// widths such as 1023 and 32769, working sets rounded to 128 bytes), powers
// of two (sizes in bytes) and a few multiples of them (3 KiB, 48, 240 MiB).
// The canonical point of x:
//
//   - 0 for 0 (and -0); a negative x is mirrored: -canonical_x(-x);
//   - an integer up to 65536: itself, so offsets and strides, pitch widths
//     (1000, 1023, 1025, 4097, 32769) and register counts (80, 255) stay as
//     they were swept;
//   - 1 <= |x| < 64.5, not an integer: the nearest grid point (below) where
//     that is an integer within 2.5 % of x, else the nearest integer (half
//     away from zero): a shifted 3.003 is 3, 32.6 is 32, 25.3 is 25;
//   - anything else (below 1, a fraction above 64.5, beyond 65536): the
//     nearest grid point, a number with four significant bits, m * 2^e with
//     m one of 1, 1.125, 1.25, ..., 1.875 (ties away from zero). The grid
//     holds every power of two and 3, 5, 7, ... 15 times one, eight points
//     per octave (a step of 6 to 12.5 %): a value on it that is shifted by
//     up to 3 % comes back to it, and one off it (a working set of 82560
//     bytes) is drawn at most 6.25 % away (81920).
//
// An integer off the grid (25, 1000, 6400) keeps its own point, but shifted
// copies of it (25.5, 1001.2, 6406.4) go to the nearest grid point or
// integer: uploads that shift x on purpose add points there, which the
// aggregates bound by the uploads' shapes (aggregate.hpp).
//
// canonical_x(canonical_x(x)) == canonical_x(x). Per sign there are 65537
// exact integers and about 8 grid points per octave of the doubles (some
// 17,000): a bounded set whatever x an upload sends. Non-finite x are
// returned as they are (the aggregates leave such points out).
#pragma once

#include <cmath>

namespace gmserver {

constexpr double kCanonicalExactIntegers = 65536;  // integers up to this stay as they are
constexpr double kCanonicalRoundedBelow = 64.5;    // 1 <= |x| < this: integers only
constexpr double kCanonicalGridPull = 0.025;       // ... a grid point within 2.5 % first
constexpr int kCanonicalGridPerOctave = 8;         // m in 1, 1 + 1/8, ..., 1 + 7/8

// |x| on the grid of four significant bits (a > 0 and finite).
inline double canonical_grid_point(double a) {
    int e = 0;
    const double m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
    constexpr double steps = 2.0 * kCanonicalGridPerOctave;  // m * 16 in [8, 16)
    const double p = std::ldexp(std::round(m * steps) / steps, e);
    // The top of the last octave rounds up to 2^1024: the point below it instead.
    return std::isfinite(p) ? p : std::ldexp((steps - 1) / steps, e);
}

inline double canonical_x(double x) {
    if (!std::isfinite(x)) return x;
    if (x == 0) return 0.0;
    const double a = std::fabs(x);
    double c;
    if (a <= kCanonicalExactIntegers && a == std::floor(a)) {
        c = a;
    } else if (a >= 1 && a < kCanonicalRoundedBelow) {
        const double g = canonical_grid_point(a);
        c = g == std::floor(g) && std::fabs(a - g) <= kCanonicalGridPull * g ? g : std::round(a);
    } else {
        c = canonical_grid_point(a);
    }
    return std::copysign(c, x);
}

}  // namespace gmserver
