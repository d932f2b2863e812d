// The lab's own measurements on this GPU: a gmlab run document (gmlab run
// --json) for the same GPU model, from which every rule reads the cost it
// prints. No figure is ever a constant of the code or of a rule file: where
// no run of this GPU model is found the finding says so and prints no gain.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "explain/expression.hpp"

namespace gmexplain {

struct LabRun {
    nlohmann::json doc;
    std::string path, device_name;
    // Results measured on the spot rather than read from a run document:
    // experiment -> {"parameters", "seconds", "measured_at"}.
    bool measured = false;
    std::map<std::string, nlohmann::json> measurements;
};

// What `LabRun::path` reads for results measured on the spot.
constexpr const char *kMeasuredNow = "measured now";

// The run to read: `explicit_path` if given (its GPU model must match), else
// the newest run of `gpu_name` among $XDG_STATE_HOME/gmlab/runs (or
// ~/.local/state/gmlab/runs, where gmlab contribute keeps runs) and the folders
// in GMLAB_RUNS_DIR (':'-separated). *why says what was searched when none is found.
std::optional<LabRun> find_lab_run(const std::string &explicit_path, const std::string &gpu_name, std::string *why);

// Where a rule reads its cost (the "cost" object of a rule file).
struct CostSpec {
    std::string experiment;
    std::string summary;            // a summary figure's name, or "" for a point of a series
    std::string series, value;      // series name, and the point's value path (dots: "values.us_per_call")
    std::string at, baseline;       // expressions for the x of the point, and of the baseline point ("" : none)
    std::string text;               // how the finding prints it
    // How to measure it on the spot (gmlab explain --measure): parameters over
    // the experiment's --quick ones; `points` names the list parameter that
    // receives the x of `at` and `baseline`, `range` the two size parameters
    // (smallest, largest) both set to `at` (docs/explain.md, "Costs measured on the spot").
    nlohmann::json measure_params = nlohmann::json::object();
    std::string measure_points;
    std::vector<std::string> measure_range;
};

struct Cost {
    bool found = false;
    double value = 0;               // the summary figure, the point's value, or point / baseline
    double at_x = 0, baseline_x = 0;
    std::string source;             // "stride_copy / guide, 4-byte words" : where it was read
    std::string missing;            // why not found
    std::string from;               // the run document's path, or kMeasuredNow
    nlohmann::json measurement;     // measured now: experiment, parameters, seconds, measured_at (else null)
};

Cost look_up_cost(const LabRun &run, const CostSpec &spec, const Lookup &figures);

// A summary figure of an experiment (stream's copy_gbs: the attainable bandwidth).
std::optional<double> lab_summary(const LabRun &run, const std::string &experiment, const std::string &figure);

}  // namespace gmexplain
