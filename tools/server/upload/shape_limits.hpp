// The shape an upload may have: which experiments, how many results, how
// many series per result and points per series. An experiment declares the
// axes it sweeps (gmlab describe: a series per combination of its series
// axes, each along its x axis); the server allows each experiment a multiple
// of what those axes can hold, within the operator's floors and ceilings
// (--max-points-per-series and the rest). A document far outside them (one
// series of 50,000 points where the axis holds 33, or an experiment the
// library does not declare) is refused with the field named, never stored:
// what is stored bounds what every later page, comparison and aggregate of
// its model costs.
//
// Pure, like the validator: the table is built once from the library's
// declarations (declared_shapes.hpp) and handed in.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace simdjson::dom {
class element;
}

namespace gmserver {

// What the operator sets (server flags); the per-experiment limits are
// derived from them and the declarations.
struct ShapeSettings {
    std::size_t max_points_per_series = 4096;  // ceiling for any experiment
    std::size_t max_series_per_result = 512;   // ceiling for any experiment
    std::size_t min_points_allowance = 256;    // floor: what any declared experiment may have
    std::size_t min_series_allowance = 64;     // floor
    double axis_slack = 4;                     // multiple of what the declared axes hold
    std::size_t max_results = 256;             // results in one upload (ceiling)
};

// One experiment's limits.
struct ExperimentShape {
    std::size_t max_points = 0, max_series = 0;
    // What its axes declare, for messages (0: the axis is not a list parameter).
    std::size_t declared_points = 0, declared_series = 0;
};

struct ShapeTable {
    std::map<std::string, ExperimentShape> experiments;  // only these are accepted
    std::size_t max_results = 256;
    // Page bounds: what a page renders of one model's experiment (the same
    // limits: no stored upload can exceed them, older ones are cut to them).
    const ExperimentShape *find(const std::string &experiment) const {
        const auto it = experiments.find(experiment);
        return it == experiments.end() ? nullptr : &it->second;
    }
};

// An experiment's limits from what its axes can hold: `declared_points` values
// along x (0: unknown), `declared_series` combinations of its series axes.
ExperimentShape derive_shape(std::size_t declared_points, std::size_t declared_series, const ShapeSettings &s);

struct ShapeProblem {
    std::string code;     // unknown_experiment, too_many_results, too_many_series, too_many_points
    std::string message;  // names the field
};

// Before the parse: a body over 1 MiB whose JSON values are denser than any
// run document's (one ',' or ':' per kMinBytesPerValue bytes; run documents
// have one per 11 bytes or more) is refused (too_large) without building its
// parse, which for 16 MiB of "[1,1,..." is ~240 MiB and a quarter second.
constexpr std::size_t kMinBytesPerValue = 6;
std::optional<ShapeProblem> check_density(std::string_view body);

// The document's results against the table; nullopt when it fits (or when
// table is null: no shape is enforced). The root is a parsed gmlab.run
// document whose other checks come after.
std::optional<ShapeProblem> check_shape(const simdjson::dom::element &root, const ShapeTable *table);

}  // namespace gmserver
