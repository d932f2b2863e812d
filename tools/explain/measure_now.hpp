// Costs measured on the spot (gmlab explain --measure, docs/explain.md): where
// no gmlab run of this GPU model is found (or always, with --measure), the
// experiments the findings name are run at small sizes through libgmlab in
// this process, and the costs are read from their results as from a run
// document. Everything but the run itself is pure and tested on committed
// results: which costs a finding needs (measurement_request), one run per
// experiment with the points every finding needs (plan_measurements), and the
// results turned into the lab the rules read (lab_from_measurements).
// measure_with_libgmlab is the thin call into gm_run.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "explain/expression.hpp"
#include "explain/lab_figures.hpp"

namespace gmexplain {

// One experiment to run, with every parameter it is given.
struct Measurement {
    std::string experiment;
    nlohmann::json parameters;       // the experiment's --quick parameters, the rules' over them
    std::vector<std::string> rules;  // whose costs it gives
};

// One run's result, or why there is none.
struct MeasuredResult {
    nlohmann::json result;    // a gmlab.result document (null when the run failed)
    double seconds = 0;       // wall time of the run
    std::string measured_at;  // when it started (UTC, ISO 8601)
    std::string error;
};

// What the runs of one plan gave, in the plan's order.
struct MeasuredSession {
    nlohmann::json device;             // libgmlab's device information (its "name" is matched)
    nlohmann::json settings;           // the measurement settings used
    std::string error;                 // why nothing ran (no device, ...), or ""
    std::vector<MeasuredResult> results;
};

// Runs a plan on `device` (the ordinal the program's kernels ran on).
using Measurer = std::function<MeasuredSession(int device, const std::vector<Measurement> &plan)>;

// What a cost needs measured: {"experiment", "parameters", "points", "range"}
// ("points" and "range" name the parameters the cost's x fills), the rule's
// parameters with `at` and `baseline` evaluated on `figures`; null where they
// need a figure without a value.
nlohmann::json measurement_request(const CostSpec &spec, const Lookup &figures);

// Every finding of an explanation document without a cost, as its request with "rules": [its id].
std::vector<nlohmann::json> requests_in(const nlohmann::json &doc);

// The --quick parameters of an experiment ({} when it has none).
using QuickParameters = std::function<nlohmann::json(const std::string &experiment)>;

// One measurement per experiment, in the order first requested: the points of
// every request united, ranges widened to hold each, over the quick parameters.
std::vector<Measurement> plan_measurements(const std::vector<nlohmann::json> &requests, const QuickParameters &quick);

// The lab the rules read costs from, made of a session's results; nullopt
// (with a note) when the session measured nothing or on another GPU model.
std::optional<LabRun> lab_from_measurements(const std::string &gpu_name, const std::vector<Measurement> &plan,
                                            const MeasuredSession &session, std::vector<std::string> *notes);

// libgmlab's registry: an experiment's --quick parameters (needs no device).
nlohmann::json registry_quick_parameters(const std::string &experiment);

// The thin call: one context on `device`, each measurement through gm_run
// with few repetitions and no counters.
MeasuredSession measure_with_libgmlab(int device, const std::vector<Measurement> &plan);

}  // namespace gmexplain
