// Sweeps over declared axes: an experiment names the list parameters it
// sweeps (outermost first) and the one its series run along; the core walks
// their combinations, so a family writes one loop instead of nested ones.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/experiment/params.hpp"

namespace gmlab {

// The axes an experiment sweeps, each a list parameter (int_list or
// enum_list) of that experiment.
struct SweepAxes {
    // One series per combination of these, the outermost first.
    std::vector<std::string> series;
    // The axis each series runs along; "" where its x is not a list parameter.
    std::string x;
};

// Throws Error(GM_ERROR_INTERNAL) unless every axis names a distinct list
// parameter of `params` (the registry checks each experiment's declaration).
void check_axes(const SweepAxes &axes, const std::vector<ParamSpec> &params, const std::string &experiment);

// The axes as `describe` publishes them: for each, its name, how many values
// its default holds, and whether it is the x axis (the series axes first,
// outermost first, then the x axis).
nlohmann::json describe(const SweepAxes &axes, const std::vector<ParamSpec> &params);

// One combination of the series axes' values: what one series is measured at.
class Combination {
public:
    // The value of an integer axis, or of a text (enum) axis; throws
    // Error(GM_ERROR_INTERNAL) for an axis not swept or of the other type.
    long long integer(const std::string &axis) const;
    const std::string &text(const std::string &axis) const;
    // "word_sizes=4, variants=guide": the values in the axes' order.
    const std::string &label() const { return label_; }
    // True when this is the first combination with its value of `axis` (and
    // of every axis outside it): where a family sets up what that value needs
    // (arrays per word size) before the combinations that share it.
    bool starts(const std::string &axis) const;
    // True when this is the last combination with its value of `axis` (and of
    // every axis outside it): where a family finishes what that value began.
    bool ends(const std::string &axis) const;

private:
    friend class Sweep;
    struct Value {
        std::string axis;
        nlohmann::json value;
        std::size_t position;  // index of the value in the axis's list
        std::size_t count;     // values in the axis's list
    };
    const Value &value_of(const std::string &axis) const;
    std::vector<Value> values_;
    std::string label_;
};

// The combinations of the series axes of resolved parameters, in declared
// order (the outermost axis changes slowest; each axis's values in the order
// they were given), and the x values each series runs along.
class Sweep {
public:
    // Throws Error(GM_ERROR_INTERNAL) when an axis is not a list parameter of `params`.
    Sweep(const Params &params, const SweepAxes &axes);
    const std::vector<Combination> &combinations() const & { return combinations_; }
    // Of a temporary sweep, by value: `for (c : Sweep(params, axes).combinations())`
    // then walks a vector that lives as long as the loop.
    std::vector<Combination> combinations() && { return std::move(combinations_); }
    // The x axis's values as given; throws where there is no x axis or it is not of that type.
    std::vector<long long> xs() const;
    std::vector<std::string> x_texts() const;

private:
    const nlohmann::json &x_list() const;
    std::vector<Combination> combinations_;
    std::string x_axis_;
    nlohmann::json x_values_;
};

}  // namespace gmlab
