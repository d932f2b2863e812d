#include "registry.hpp"

#include <algorithm>
#include <map>

#include "error.hpp"
#include "kernel_resources.hpp"

namespace gmlab {

using nlohmann::json;

namespace {

constexpr long long kMiB = 1024 * 1024;

// The parameters of `gmlab run --quick`, in one table: small sweeps (the ends
// and one point between) and small working sets, every kernel and variant
// still run and checked.
json quick_parameters(const std::string &name) {
    static const std::map<std::string, json> table = {
        {"stream", {{"array_bytes", 64 * kMiB}}},
        {"offset_copy", {{"offsets", {0, 1, 32}}, {"elements", 4 * kMiB}}},
        {"stride_copy", {{"strides", {1, 2, 32}}, {"elements", kMiB}}},
        {"l2_persist", {{"sweep_points", 2}, {"streaming_bytes", 128 * kMiB}}},
        {"bank_conflicts", {{"strides", {0, 1, 2, 32}}, {"iterations", 256}}},
        {"matmul_ab", {{"m", 1024}, {"n", 1024}}},
        {"matmul_aat", {{"m", 1024}}},
        {"transpose", {{"rows", 1024}, {"cols", 1024}}},
        {"shared_alloc", {{"elements", 4 * kMiB}}},
        {"async_copy", {{"copy_counts", {1, 4, 7}}}},
        {"constant_broadcast", {{"k", {1, 2, 32}}, {"iterations", 256}}},
        {"stencil", {{"elements", 4 * kMiB}}},
        {"texture", {{"width", 1024}, {"height", 1024}}},
        {"transfer", {{"min_size", 64 * 1024}, {"max_size", 4 * kMiB}, {"points_per_octave", 1}}},
        {"transfer_batching", {{"counts", {1, 16}}, {"chunk_sizes", {4096}}}},
        {"zero_copy", {{"bytes", 4 * kMiB}}},
        {"copy_overlap", {{"bytes", 16 * kMiB}, {"streams", {1, 2}}}},
        {"peer", {{"bytes", kMiB}, {"latency_copies", 10}}},
        {"latency", {{"points_per_octave", 1}, {"hops", 512}}},
        {"memory_spaces", {{"hops", 256}}},
        {"local_memory", {{"rounds", 4}}},
        {"register_pressure", {{"caps", {255, 32}}, {"iterations", 4}}},
        {"alignment", {{"records", kMiB}}},
        {"pitch_2d", {{"widths", {1000, 1025}}, {"height", 1024}}},
    };
    const auto it = table.find(name);
    return it == table.end() ? json::object() : it->second;
}

}  // namespace

const std::vector<Experiment> &registry() {
    static const std::vector<Experiment> all = [] {
        std::vector<Experiment> v;
        add_stream_experiments(v);
        add_global_copy_experiments(v);
        add_l2_experiments(v);
        add_bank_experiments(v);
        add_matmul_experiments(v);
        add_transpose_experiments(v);
        add_shared_alloc_experiments(v);
        add_async_copy_experiments(v);
        add_constant_experiments(v);
        add_texture_experiments(v);
        add_transfer_experiments(v);
        add_zero_copy_experiments(v);
        add_copy_overlap_experiments(v);
        add_peer_experiments(v);
        add_latency_experiments(v);
        add_memory_spaces_experiments(v);
        add_local_memory_experiments(v);
        add_register_pressure_experiments(v);
        add_alignment_experiments(v);
        add_pitch_experiments(v);
        for (Experiment &e : v) e.quick = quick_parameters(e.name);
        return v;
    }();
    return all;
}

const Experiment &find_experiment(const std::string &name) {
    for (const auto &e : registry())
        if (e.name == name) return e;
    std::string names;
    for (const auto &e : registry()) names += (names.empty() ? "" : ", ") + e.name;
    fail(GM_ERROR_UNKNOWN_EXPERIMENT, "unknown experiment '" + name + "'; known: " + names);
}

json describe(const Experiment &e) {
    json params = json::array();
    for (const auto &p : e.params) params.push_back(describe(p));
    return {{"name", e.name},
            {"guide_section", e.guide_section},
            {"summary", e.summary},
            {"default_suite", e.default_suite},
            {"parameters", params},
            {"quick_parameters", e.quick},
            {"kernels", kernel_names(e.name)}};
}

json parse_params_text(const char *text) {
    if (!text || !*text) return json::object();
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded()) invalid(std::string("params_json is not valid JSON: ") + text);
    if (j.is_null()) return json::object();
    return j;
}

std::size_t default_working_set(const DeviceInfo &d) {
    constexpr std::size_t kMiB = 1024 * 1024;
    return std::max<std::size_t>(4 * d.l2_bytes, 64 * kMiB);
}

void require_memory(ContextState &ctx, std::size_t bytes, const std::string &what) {
    std::size_t free_b = 0, total_b = 0;
    GM_CUDA(cudaMemGetInfo(&free_b, &total_b));
    const std::size_t budget = static_cast<std::size_t>(ctx.settings.memory_fraction * static_cast<double>(free_b));
    if (bytes > free_b)
        fail(GM_ERROR_OUT_OF_MEMORY, what + " needs " + std::to_string(bytes) + " bytes of device memory, more than the " +
                                         std::to_string(free_b) + " bytes free");
    if (bytes > budget)
        fail(GM_ERROR_OUT_OF_MEMORY,
             what + " needs " + std::to_string(bytes) + " bytes of device memory, more than its budget of " +
                 std::to_string(budget) + " bytes (memory_fraction " + std::to_string(ctx.settings.memory_fraction) +
                 " of " + std::to_string(free_b) + " bytes free); ask for less or raise memory_fraction");
}

Result run_experiment(ContextState &ctx, const std::string &name, const json &given) {
    const Experiment &e = find_experiment(name);
    Params params(resolve_params(e.params, given, e.name));
    ctx.activate();
    Result r;
    r.experiment = e.name;
    r.guide_section = e.guide_section;
    r.summary = e.summary;
    r.started_at = utc_now();
    r.device = to_json(ctx.fresh_info());
    r.settings = ctx.settings.to_json();
    r.parameters = params.json();
    r.theoretical_gbs = ctx.info().theoretical_bandwidth_gbs();
    r.memcpy_gbs = ctx.memcpy_peak_gbs();
    r.memory_budget_bytes = ctx.memory_budget();
    ctx.reset_peak();
    e.run(ctx, params, r);
    r.device_bytes_allocated = ctx.peak_bytes();
    if (r.applicable && !r.verification.passed)
        fail(GM_ERROR_INTERNAL, e.name + " finished without verifying its output");
    r.finished_at = utc_now();
    return r;
}

}  // namespace gmlab
