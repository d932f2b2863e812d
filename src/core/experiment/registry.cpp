#include "core/experiment/registry.hpp"

#include <algorithm>

#include "core/device/nvml_state.hpp"
#include "core/error.hpp"
#include "core/experiment/kernel_resources.hpp"
#include "core/measurement/harness.hpp"
#include "core/units.hpp"

namespace gmlab {

using nlohmann::json;

const std::vector<Experiment> &registry() {
    static const std::vector<Experiment> all = [] {
        std::vector<Experiment> v;
        add_every_family(v);
        // A declaration that names no list parameter is the family's mistake,
        // found before any experiment runs.
        for (const Experiment &e : v) check_axes(e.axes, e.params, e.name);
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

const char *better_name(Better b) {
    switch (b) {
        case Better::Higher: return "higher";
        case Better::Lower: return "lower";
        case Better::Neither: break;
    }
    return "neither";
}

const Figure *declared_figure(const Experiment &e, const std::string &key) {
    for (const Figure &f : e.figures)
        if (figure_matches(f, key)) return &f;
    return nullptr;
}

json describe(const Experiment &e) {
    json params = json::array();
    for (const auto &p : e.params) params.push_back(describe(p));
    json figures = json::array();
    for (const Figure &f : e.figures)
        figures.push_back({{"name", f.name}, {"unit", f.unit}, {"better", better_name(f.better)}, {"meaning", f.meaning}});
    json compared = json::array();
    for (const ComparedFigure &c : e.compared) {
        const Figure *f = declared_figure(e, c.key);
        compared.push_back({{"key", c.key}, {"label", c.label}, {"unit", f ? f->unit : ""}});
    }
    json d = {{"name", e.name},
            {"guide_section", e.guide_section},
            {"summary", e.summary},
            {"default_suite", e.default_suite},
            {"parameters", params},
            {"axes", describe(e.axes, e.params)},
            {"quick_parameters", e.quick},
            {"figures", figures},
            {"compared_figures", compared},
            {"kernels", kernel_names(e.name)}};
    if (e.chart) d["chart"] = describe(*e.chart);
    if (!e.consistency.empty()) {
        json c = json::array();
        for (const auto &f : e.consistency) c.push_back(gmvocab::consistency_to_json(f));
        d["consistency"] = c;
    }
    return d;
}

json parse_params_text(const char *text) {
    if (!text || !*text) return json::object();
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded()) invalid(std::string("params_json is not valid JSON: ") + text);
    if (j.is_null()) return json::object();
    return j;
}

std::size_t default_working_set(const DeviceInfo &d) {
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
    r.dram_theoretical_gbs = r.theoretical_gbs;
    r.memcpy_gbs = memcpy_peak_gbs(ctx);
    r.memory_budget_bytes = ctx.memory_budget();
    r.counters_mode = counter_mode_name(ctx.settings.counters);
    if (ctx.settings.counters == CounterMode::Off) {
        r.counters_reason = counters_off_reason();
    } else {
        const CounterAvailability &a = ctx.counter_availability();
        if (!a.available && ctx.settings.counters == CounterMode::On)
            fail(GM_ERROR_NOT_SUPPORTED, "hardware counters were asked for (counters = on) but are not available: " + a.reason);
        r.counters_available = a.available;
        r.counters_reason = a.reason;
        r.counters_chip = a.chip;
    }
    CounterSession *session = ctx.counter_session();
    r.counter_seconds_before = session ? session->seconds() : 0.0;
    const double launched_before = session ? session->launch_seconds() : 0.0;
    // The GPU's clocks, power and throttling before and after it measured.
    const std::unique_ptr<GpuStateReader> gpu = nvml_state_reader(ctx.info().pci_bus_id);
    const GpuState before = gpu->read();
    r.measuring_since = std::chrono::steady_clock::now();
    ctx.reset_peak();
    e.run(ctx, params, r);
    if (before.read) r.gpu_state = gpu_state_json(before, gpu->read());
    if (session) {
        r.counter_seconds = session->seconds() - r.counter_seconds_before;
        r.counter_launch_seconds = session->launch_seconds() - launched_before;
    }
    r.device_bytes_allocated = ctx.peak_bytes();
    if (r.applicable && !r.verification.passed)
        fail(GM_ERROR_INTERNAL, e.name + " finished without verifying its output");
    r.finished_at = utc_now();
    return r;
}

}  // namespace gmlab
