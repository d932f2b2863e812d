// The experiment registry: every experiment is declared once (name, guide
// section, summary, typed parameters) and runs through run_experiment.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "context.hpp"
#include "params.hpp"
#include "result.hpp"

namespace gmlab {

struct Experiment {
    std::string name;
    std::string guide_section;
    std::string summary;
    bool default_suite = false;
    std::vector<ParamSpec> params;
    // Parameters of `gmlab run --quick`: a smoke check that every kernel runs
    // and verifies, in seconds; its figures are not measurements to compare.
    nlohmann::json quick = nlohmann::json::object();
    // Fills series, verification, notes and summary of `out`; throws Error.
    void (*run)(ContextState &ctx, const Params &params, Result &out) = nullptr;
};

// Each experiment family adds its experiments here (one function per src/<family>.cpp).
void add_stream_experiments(std::vector<Experiment> &out);
void add_global_copy_experiments(std::vector<Experiment> &out);
void add_l2_experiments(std::vector<Experiment> &out);
void add_bank_experiments(std::vector<Experiment> &out);
void add_matmul_experiments(std::vector<Experiment> &out);
void add_transpose_experiments(std::vector<Experiment> &out);
void add_shared_alloc_experiments(std::vector<Experiment> &out);
void add_async_copy_experiments(std::vector<Experiment> &out);
void add_constant_experiments(std::vector<Experiment> &out);
void add_texture_experiments(std::vector<Experiment> &out);
void add_transfer_experiments(std::vector<Experiment> &out);
void add_zero_copy_experiments(std::vector<Experiment> &out);
void add_copy_overlap_experiments(std::vector<Experiment> &out);
void add_peer_experiments(std::vector<Experiment> &out);
void add_latency_experiments(std::vector<Experiment> &out);
void add_memory_spaces_experiments(std::vector<Experiment> &out);
void add_local_memory_experiments(std::vector<Experiment> &out);
void add_register_pressure_experiments(std::vector<Experiment> &out);
void add_alignment_experiments(std::vector<Experiment> &out);
void add_pitch_experiments(std::vector<Experiment> &out);

const std::vector<Experiment> &registry();
// Throws Error(GM_ERROR_UNKNOWN_EXPERIMENT) listing the known names.
const Experiment &find_experiment(const std::string &name);
nlohmann::json describe(const Experiment &e);

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
