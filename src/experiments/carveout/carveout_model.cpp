#include "experiments/carveout/carveout_model.hpp"

#include <algorithm>

namespace gmlab {

namespace {

struct TableRow {
    int major, minor;
    std::size_t unified_kib;
    std::vector<std::size_t> capacities_kib;
};

const std::vector<TableRow> &table() {
    static const std::vector<std::size_t> volta = {0, 8, 16, 32, 64, 96}, turing = {32, 64},
                                          ga100 = {0, 8, 16, 32, 64, 100, 132, 164}, ga10x = {0, 8, 16, 32, 64, 100},
                                          hopper = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
    static const std::vector<TableRow> rows = {
        {7, 0, 128, volta},  {7, 2, 128, volta},   {7, 5, 96, turing},   {8, 0, 192, ga100},   {8, 6, 128, ga10x},
        {8, 7, 192, ga100},  {8, 9, 128, ga10x},   {9, 0, 256, hopper},  {10, 0, 256, hopper}, {10, 3, 256, hopper},
        {12, 0, 128, ga10x}, {12, 1, 128, ga10x},
    };
    return rows;
}

}  // namespace

UnifiedL1 unified_l1(int cc_major, int cc_minor, std::size_t max_shared_per_sm) {
    UnifiedL1 u;
    for (const TableRow &r : table()) {
        if (r.major != cc_major || r.minor != cc_minor) continue;
        if (r.capacities_kib.back() * kKiB != max_shared_per_sm) return u;  // not the chip the table describes
        u.known = true;
        u.unified_bytes = r.unified_kib * kKiB;
        for (std::size_t c : r.capacities_kib) u.shared_capacities.push_back(c * kKiB);
    }
    return u;
}

std::size_t shared_capacity_for(const UnifiedL1 &u, int percent, std::size_t max_shared_per_sm, std::size_t needed_bytes) {
    if (u.shared_capacities.empty()) return 0;
    const std::size_t p = static_cast<std::size_t>(std::clamp(percent, 0, 100));
    const std::size_t preferred = std::max((max_shared_per_sm * p + 99) / 100, needed_bytes);
    for (std::size_t c : u.shared_capacities)
        if (c >= preferred) return c;
    return u.shared_capacities.back();
}

double predicted_l1_hit_share(std::size_t working_set, std::size_t l1_bytes, std::uint64_t passes) {
    if (passes == 0 || working_set > l1_bytes) return 0.0;
    return 1.0 - 1.0 / static_cast<double>(passes);
}

L1Fall l1_fall(const std::vector<double> &sizes, const std::vector<double> &values, double min_step, LevelScale scale) {
    LevelOptions o;
    o.min_step = min_step;
    o.min_points = 1;  // a sweep of a few working sets: one point can be a level
    o.scale = scale;
    const Levels lv = find_levels(sizes, values, o);
    L1Fall f;
    const std::size_t top = highest_level(lv);
    if (top == lv.levels.size()) return f;
    f.found = true;
    f.level = lv.levels[top].value;
    f.fits = lv.levels[top].ends;
    const Step s = step_after(lv, top, sizes, values, scale);
    if (s.found) {
        f.fell = true;
        f.falls = s.x_after;
        f.drop = -s.change;
    }
    return f;
}

bool brackets(const L1Fall &f, double l1_bytes) {
    return f.found && l1_bytes >= f.fits && (!f.fell || l1_bytes < f.falls);
}

}  // namespace gmlab
