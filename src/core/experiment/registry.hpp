// The experiment registry: every experiment is declared once (name, guide
// section, summary, typed parameters) and runs through run_experiment.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/device/context.hpp"
#include "core/experiment/chart.hpp"
#include "core/experiment/figure.hpp"
#include "core/experiment/params.hpp"
#include "core/experiment/result.hpp"
#include "core/experiment/sweep.hpp"
#include "vocabulary/consistency.hpp"

namespace gmlab {

// One experiment as its family declares it, in the family's own folder
// (src/experiments/<family>/<family>.cpp): everything the library, the CLI's
// `describe` and `--quick`, and the documents need to know of it.
struct Experiment {
    std::string name;
    std::string guide_section;
    std::string summary;
    // In the standard suite (`gmlab run` without names); every experiment is
    // unless its family says otherwise.
    bool default_suite = true;
    std::vector<ParamSpec> params;
    // The list parameters it sweeps: one series per combination of
    // `axes.series` (outermost first), each along `axes.x`. The registry
    // checks that each names a list parameter above; its run walks them
    // through Sweep (sweep.hpp), and describe publishes them.
    SweepAxes axes;
    // Parameters of `gmlab run --quick`: a smoke check that every kernel runs
    // and verifies, in seconds; its figures are not measurements to compare.
    nlohmann::json quick = nlohmann::json::object();
    // The headline figures it writes into the result's summary (figure.hpp):
    // name, unit, which way is better, what it means.
    std::vector<Figure> figures;
    // The instances of those figures that the view across GPU models compares.
    std::vector<ComparedFigure> compared;
    // Its figures that measure a quantity other experiments measure too
    // (vocabulary/consistency.hpp): the report's consistency section compares them.
    std::vector<gmvocab::ConsistencyFigure> consistency;
    // How reports draw and explain its result; without one, its series
    // against their x with a generic explanation.
    std::optional<Chart> chart;
    // Fills series, verification, notes and summary of `out`; throws Error.
    void (*run)(ContextState &ctx, const Params &params, Result &out) = nullptr;
};

// Every family's experiments appended in the standard suite's order. Defined
// by the list of families (src/experiments/families.cpp), the one place that
// names them all: the core knows no experiment.
void add_every_family(std::vector<Experiment> &out);

// Every experiment, in the standard suite's order.
const std::vector<Experiment> &registry();
// Throws Error(GM_ERROR_UNKNOWN_EXPERIMENT) listing the known names.
const Experiment &find_experiment(const std::string &name);
nlohmann::json describe(const Experiment &e);
// The declared figure a summary key is an instance of; null when none is.
const Figure *declared_figure(const Experiment &e, const std::string &key);
const char *better_name(Better b);  // "higher", "lower", "neither"

// Parses a params JSON text ("" or null pointer: {}); throws on malformed JSON.
nlohmann::json parse_params_text(const char *text);

// Resolves the parameters, runs the experiment on the context and returns the
// finished result (device block, settings, references, memory, timestamps).
Result run_experiment(ContextState &ctx, const std::string &name, const nlohmann::json &params);

// Memory planning shared by experiments: a default working set of several
// times the L2 size, and a check of a plan against the context's budget.
std::size_t default_working_set(const DeviceInfo &d);
void require_memory(ContextState &ctx, std::size_t bytes, const std::string &what);

}  // namespace gmlab
