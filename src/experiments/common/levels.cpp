#include "experiments/common/levels.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gmlab {

namespace {

// A piece of the fit: the kept points begin..end - 1 (indices into the kept list).
struct Piece {
    std::size_t begin = 0, end = 0;
};

double median_of(std::vector<double> v) {
    const std::size_t n = v.size();
    if (n == 0) return 0;
    auto mid = v.begin() + static_cast<std::ptrdiff_t>(n / 2);
    std::nth_element(v.begin(), mid, v.end());
    const double upper = *mid;
    if (n % 2) return upper;
    const double lower = *std::max_element(v.begin(), mid);
    return 0.5 * (lower + upper);
}

double median_of(const std::vector<double> &v, const Piece &p) {
    return median_of(std::vector<double>(v.begin() + static_cast<std::ptrdiff_t>(p.begin),
                                         v.begin() + static_cast<std::ptrdiff_t>(p.end)));
}

// What a piece costs the fit: how far its points lie from its median.
double piece_cost(const std::vector<double> &v, std::size_t begin, std::size_t end) {
    const double m = median_of(v, {begin, end});
    double sum = 0;
    for (std::size_t i = begin; i < end; ++i) sum += std::fabs(v[i] - m);
    return sum;
}

// The split of v into pieces that minimises the pieces' costs plus `penalty`
// for each piece (optimal partitioning by dynamic programming: best[b] is the
// cheapest split of the first b points).
std::vector<Piece> best_split(const std::vector<double> &v, double penalty) {
    const std::size_t n = v.size();
    std::vector<double> best(n + 1, std::numeric_limits<double>::infinity());
    std::vector<std::size_t> start(n + 1, 0);
    best[0] = 0;
    for (std::size_t b = 1; b <= n; ++b)
        for (std::size_t a = 0; a < b; ++a) {
            const double c = best[a] + piece_cost(v, a, b) + penalty;
            if (c < best[b]) {
                best[b] = c;
                start[b] = a;
            }
        }
    std::vector<Piece> pieces;
    for (std::size_t b = n; b > 0; b = start[b]) pieces.push_back({start[b], b});
    std::reverse(pieces.begin(), pieces.end());
    return pieces;
}

// Joins neighbouring pieces whose medians differ by less than `step`, the
// closest pair first, until every neighbour differs by at least that.
void join_close(std::vector<Piece> &pieces, const std::vector<double> &v, double step) {
    while (pieces.size() > 1) {
        std::size_t closest = pieces.size();
        double gap = step;
        for (std::size_t i = 0; i + 1 < pieces.size(); ++i) {
            const double d = std::fabs(median_of(v, pieces[i + 1]) - median_of(v, pieces[i]));
            if (d < gap) {
                gap = d;
                closest = i;
            }
        }
        if (closest == pieces.size()) return;
        pieces[closest].end = pieces[closest + 1].end;
        pieces.erase(pieces.begin() + static_cast<std::ptrdiff_t>(closest) + 1);
    }
}

bool usable(double y, LevelScale scale) { return std::isfinite(y) && (scale == LevelScale::Absolute || y > 0); }

double scaled(double y, LevelScale scale) { return scale == LevelScale::Relative ? std::log(y) : y; }

// The step on the fitted scale: a ratio becomes a difference of logarithms.
double scaled_step(const LevelOptions &o) {
    const double step = o.min_step > 0 ? o.min_step : LevelOptions{}.min_step;
    return o.scale == LevelScale::Relative ? std::log1p(step) : step;
}

}  // namespace

Levels find_levels(const std::vector<double> &x, const std::vector<double> &y, const LevelOptions &options) {
    Levels out;
    const std::size_t n = std::min(x.size(), y.size());
    const double step = scaled_step(options);
    std::vector<std::size_t> index;  // the usable points, by their index in the curve
    std::vector<double> v;           // their values on the fitted scale
    for (std::size_t i = 0; i < n; ++i) {
        if (!usable(y[i], options.scale) || !std::isfinite(x[i])) {
            out.unusable.push_back(i);
            continue;
        }
        index.push_back(i);
        v.push_back(scaled(y[i], options.scale));
    }
    // A lone point away from both neighbours while they agree with each other
    // is noise, not a level of its own: it is left out of the fit.
    std::vector<std::size_t> kept;
    std::vector<double> kv;
    for (std::size_t k = 0; k < v.size(); ++k) {
        const bool inner = k > 0 && k + 1 < v.size();
        if (inner && std::fabs(v[k - 1] - v[k + 1]) < step && std::fabs(v[k] - v[k - 1]) >= step &&
            std::fabs(v[k] - v[k + 1]) >= step) {
            out.outliers.push_back(index[k]);
            continue;
        }
        kept.push_back(index[k]);
        kv.push_back(v[k]);
    }
    if (kept.empty()) return out;
    std::vector<Piece> pieces = best_split(kv, step);
    join_close(pieces, kv, step);
    const std::size_t min_points = std::max<std::size_t>(options.min_points, 1);
    for (const Piece &p : pieces) {
        if (p.end - p.begin < min_points) {
            for (std::size_t k = p.begin; k < p.end; ++k) out.transitions.push_back(kept[k]);
            continue;
        }
        Level l;
        l.first = kept[p.begin];
        l.last = kept[p.end - 1];
        l.points = p.end - p.begin;
        std::vector<double> values;
        for (std::size_t k = p.begin; k < p.end; ++k) values.push_back(y[kept[k]]);
        l.value = median_of(values);
        l.begins = x[l.first];
        l.ends = x[l.last];
        l.open_start = l.first == index.front();
        l.open_end = l.last == index.back();
        out.levels.push_back(l);
    }
    std::sort(out.transitions.begin(), out.transitions.end());
    return out;
}

Step step_after(const Levels &levels, std::size_t i, const std::vector<double> &x, const std::vector<double> &y,
                LevelScale scale) {
    Step s;
    if (i >= levels.levels.size()) return s;
    const Level &l = levels.levels[i];
    auto set_aside = [&](std::size_t k) {
        return std::find(levels.unusable.begin(), levels.unusable.end(), k) != levels.unusable.end() ||
               std::find(levels.outliers.begin(), levels.outliers.end(), k) != levels.outliers.end();
    };
    const std::size_t n = std::min(x.size(), y.size());
    std::size_t after = l.last + 1;
    while (after < n && set_aside(after)) ++after;
    if (after >= n) return s;
    s.found = true;
    s.before = l.last;
    s.after = after;
    s.x_before = x[l.last];
    s.x_after = x[after];
    s.from = l.value;
    s.to = y[after];
    s.change = scale == LevelScale::Relative ? (s.from != 0 ? s.to / s.from - 1 : 0) : s.to - s.from;
    return s;
}

std::size_t highest_level(const Levels &levels) {
    std::size_t best = levels.levels.size();
    for (std::size_t i = 0; i < levels.levels.size(); ++i)
        if (best == levels.levels.size() || levels.levels[i].value > levels.levels[best].value) best = i;
    return best;
}

}  // namespace gmlab
