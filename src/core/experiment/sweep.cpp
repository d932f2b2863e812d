#include "core/experiment/sweep.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace gmlab {

using nlohmann::json;

namespace {

const ParamSpec *find_param(const std::vector<ParamSpec> &params, const std::string &name) {
    for (const ParamSpec &p : params)
        if (p.name == name) return &p;
    return nullptr;
}

bool is_list(const ParamSpec &p) { return p.type == ParamType::IntList || p.type == ParamType::EnumList; }

// The axes in describe's order: the series axes, outermost first, then x.
std::vector<std::string> every_axis(const SweepAxes &axes) {
    std::vector<std::string> all = axes.series;
    if (!axes.x.empty()) all.push_back(axes.x);
    return all;
}

// A resolved list parameter's values; an axis that is no list parameter is
// the family's mistake, not the user's.
const json &list_values(const Params &params, const std::string &axis) {
    if (!params.json().contains(axis)) fail(GM_ERROR_INTERNAL, "sweep axis '" + axis + "' is not a parameter");
    const json &values = params.json().at(axis);
    if (!values.is_array()) fail(GM_ERROR_INTERNAL, "sweep axis '" + axis + "' is not a list parameter");
    return values;
}

std::string value_text(const json &v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// Advances positions like an odometer, the innermost axis fastest; false
// once every combination has been visited.
bool advance(std::vector<std::size_t> &positions, const std::vector<const json *> &lists) {
    for (std::size_t i = positions.size(); i-- > 0;) {
        if (++positions[i] < lists[i]->size()) return true;
        positions[i] = 0;
    }
    return false;
}

}  // namespace

void check_axes(const SweepAxes &axes, const std::vector<ParamSpec> &params, const std::string &experiment) {
    const std::vector<std::string> all = every_axis(axes);
    for (std::size_t i = 0; i < all.size(); ++i) {
        const ParamSpec *p = find_param(params, all[i]);
        if (!p || !is_list(*p))
            fail(GM_ERROR_INTERNAL, experiment + " declares sweep axis '" + all[i] + "', which is not one of its list parameters");
        if (std::find(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(i), all[i]) != all.begin() + static_cast<std::ptrdiff_t>(i))
            fail(GM_ERROR_INTERNAL, experiment + " declares sweep axis '" + all[i] + "' twice");
    }
}

json describe(const SweepAxes &axes, const std::vector<ParamSpec> &params) {
    json out = json::array();
    for (const std::string &name : every_axis(axes)) {
        const ParamSpec *p = find_param(params, name);
        const std::size_t defaults = p && p->default_value.is_array() ? p->default_value.size() : 0;
        out.push_back({{"name", name}, {"default_values", defaults}, {"x", name == axes.x}});
    }
    return out;
}

const Combination::Value &Combination::value_of(const std::string &axis) const {
    for (const Value &v : values_)
        if (v.axis == axis) return v;
    fail(GM_ERROR_INTERNAL, "'" + axis + "' is not a series axis of this sweep");
}

long long Combination::integer(const std::string &axis) const {
    const Value &v = value_of(axis);
    if (!v.value.is_number_integer()) fail(GM_ERROR_INTERNAL, "sweep axis '" + axis + "' does not hold integers");
    return v.value.get<long long>();
}

const std::string &Combination::text(const std::string &axis) const {
    const Value &v = value_of(axis);
    if (!v.value.is_string()) fail(GM_ERROR_INTERNAL, "sweep axis '" + axis + "' does not hold text");
    return v.value.get_ref<const std::string &>();
}

bool Combination::starts(const std::string &axis) const {
    const Value &outer = value_of(axis);
    // Every axis inside `axis` is at its first value.
    for (auto it = values_.rbegin(); it != values_.rend() && &*it != &outer; ++it)
        if (it->position != 0) return false;
    return true;
}

bool Combination::ends(const std::string &axis) const {
    const Value &outer = value_of(axis);
    // Every axis inside `axis` is at its last value.
    for (auto it = values_.rbegin(); it != values_.rend() && &*it != &outer; ++it)
        if (it->position + 1 != it->count) return false;
    return true;
}

Sweep::Sweep(const Params &params, const SweepAxes &axes) : x_axis_(axes.x) {
    std::vector<const json *> lists;
    for (const std::string &axis : axes.series) lists.push_back(&list_values(params, axis));
    if (!x_axis_.empty()) x_values_ = list_values(params, x_axis_);
    for (const json *l : lists)
        if (l->empty()) return;  // an empty axis: nothing to measure
    std::vector<std::size_t> positions(lists.size(), 0);
    do {
        Combination c;
        for (std::size_t i = 0; i < lists.size(); ++i) {
            const json &v = (*lists[i])[positions[i]];
            c.values_.push_back({axes.series[i], v, positions[i], lists[i]->size()});
            c.label_ += (i ? ", " : "") + axes.series[i] + "=" + value_text(v);
        }
        combinations_.push_back(std::move(c));
    } while (advance(positions, lists));
}

const json &Sweep::x_list() const {
    if (x_axis_.empty()) fail(GM_ERROR_INTERNAL, "this sweep has no x axis");
    return x_values_;
}

std::vector<long long> Sweep::xs() const {
    std::vector<long long> out;
    for (const json &v : x_list()) {
        if (!v.is_number_integer()) fail(GM_ERROR_INTERNAL, "sweep axis '" + x_axis_ + "' does not hold integers");
        out.push_back(v.get<long long>());
    }
    return out;
}

std::vector<std::string> Sweep::x_texts() const {
    std::vector<std::string> out;
    for (const json &v : x_list()) {
        if (!v.is_string()) fail(GM_ERROR_INTERNAL, "sweep axis '" + x_axis_ + "' does not hold text");
        out.push_back(v.get<std::string>());
    }
    return out;
}

}  // namespace gmlab
