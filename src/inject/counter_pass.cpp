#include "inject/counter_pass.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "cupti/range_profiler_host.hpp"
#include "cupti/range_profiler_target.hpp"
#include "inject/sites/call_sites.hpp"
#include "inject/cupti_call.hpp"
#include "inject/cupti_table.hpp"
#include "inject/kernel_choice.hpp"
#include "inject/metric_groups.hpp"
#include "inject/phase_times.hpp"
#include "inject/record_sink.hpp"
#include "inject/record_types.hpp"

namespace gmexplain {

namespace {

// One device context's profiler: its configuration image and range-profiler object.
struct ContextProfiler {
    CUpti_Profiler_Host_Object *host = nullptr;
    std::vector<std::uint8_t> config;
    std::vector<const char *> names;
    CUpti_RangeProfiler_Object *object = nullptr;
    std::size_t passes = 0;
    std::string chip;
    std::vector<std::string> metrics;  // those the chip supports
};

struct State {
    CounterPlan plan;
    std::mutex mutex;
    CUpti_SubscriberHandle subscriber = nullptr;
    std::map<CUcontext, ContextProfiler> contexts;
    bool profiler_initialized = false;
    std::map<std::pair<std::string, std::uint32_t>, std::uint64_t> launches;  // per mangled name and call site
    bool failed = false;                            // counting stopped for good
    // The launch being counted (between the ENTER and EXIT callbacks).
    ContextProfiler *running = nullptr;
    std::vector<std::uint8_t> data;
    std::string running_kernel;
    std::uint32_t running_site = 0;  // its call site (call_sites.hpp), 0 for none
    std::uint64_t running_launch = 0;
    std::uint32_t running_correlation = 0;
    std::chrono::steady_clock::time_point count_started;  // after the profiler's set-up (phase_times.hpp)
    unsigned running_grid[3] = {0, 0, 0}, running_block[3] = {0, 0, 0};  // the launch's, for the runs' join
    KernelChoice choice;  // the kernels this pass works on
    std::map<std::pair<std::string, std::uint32_t>, std::uint64_t> counted;  // launches counted per kernel and site
    std::size_t counted_untimed = 0, counted_ranked = 0;  // kernels count_top chose before and after their timing
    // CUDA graph launches (the single pass): each graph counted at its second
    // launch (the first may upload it), its kernels as the profiler's ranges.
    std::size_t running_ranges = 1;  // 1 for a kernel launch
    std::map<const void *, std::uint64_t> graph_launches;  // per executable graph
    std::size_t graphs_counted = 0;
    bool graphs_failed = false;
    bool delay_noted = false;  // the note on launches behind a DelayKernel, written once
};
State *g_state = nullptr;

using LaunchKey = std::pair<std::string, std::uint32_t>;  // mangled name, call site

// count_top's view of the trace, under a lock of its own: the activity
// buffers are delivered on CUPTI's thread, which must never wait for a
// launch's counting (that holds State::mutex while it calls CUPTI).
struct TracedTimes {
    std::mutex mutex;
    std::map<std::uint32_t, LaunchKey> untimed;  // launches the trace has not delivered yet, by correlation
    std::map<LaunchKey, double> ns;              // traced time so far per kernel and site
};
TracedTimes *g_times = nullptr;
constexpr std::size_t kUntimedKept = 1u << 16;

void remember_launch(std::uint32_t correlation, const LaunchKey &key) {
    std::lock_guard<std::mutex> lock(g_times->mutex);
    if (g_times->untimed.size() >= kUntimedKept) g_times->untimed.erase(g_times->untimed.begin());
    g_times->untimed[correlation] = key;
}

// Where `key`'s traced time so far ranks against the `top` longest: untimed
// while the trace has delivered none of its launches.
enum class Rank { among, below, untimed };
Rank rank_of(const LaunchKey &key, std::size_t top) {
    std::lock_guard<std::mutex> lock(g_times->mutex);
    auto mine = g_times->ns.find(key);
    if (mine == g_times->ns.end()) return Rank::untimed;
    std::size_t longer = 0;
    for (const auto &[other, ns] : g_times->ns)
        if (ns > mine->second && ++longer >= top) return Rank::below;
    return Rank::among;
}

void counter_note(const std::string &text) { sink_write(Line().field("type", records::kNote).field("text", text)); }

// The range profiler's host and target calls, shared with the library's
// counters (src/cupti), each result checked as the passes check theirs.
using gmcupti::HostConfig;

// gmcupti::configure_host, a refusal thrown as CuptiFailure (the host object released).
HostConfig configure_host(const CuptiTable &api, const std::string &chip, std::vector<std::uint8_t> &availability,
                          const std::vector<const char *> &metrics, bool with_image) {
    PhaseTimer timer(Phase::host_config);
    return gmcupti::configure_host(api, cupti_check, chip, availability, metrics, with_image);
}

// Whether the chip's profiler takes every one of `metrics` (one host object
// for the whole list: the common case costs one initialisation, not one a metric).
bool metrics_supported(const CuptiTable &api, const std::string &chip, std::vector<std::uint8_t> &availability,
                       const std::vector<const char *> &metrics) {
    try {
        gmcupti::release_host(api, configure_host(api, chip, availability, metrics, false).host);
        return true;
    } catch (const CuptiFailure &) {
        return false;
    }
}

// The context's configuration, kept for its whole life (evaluation needs the host object).
void build_config(const CuptiTable &api, ContextProfiler &p, std::vector<std::uint8_t> &availability) {
    for (const auto &m : p.metrics) p.names.push_back(m.c_str());
    HostConfig c = configure_host(api, p.chip, availability, p.names, true);
    p.host = c.host;
    p.config = std::move(c.image);
    p.passes = c.passes;
}

// The context's configuration with every metric of the plan; false (nothing
// kept) where the chip refuses one of them.
bool configured_whole(const CuptiTable &api, ContextProfiler &p, std::vector<std::uint8_t> &availability) {
    p.metrics = g_state->plan.metrics;
    try {
        build_config(api, p, availability);
        return true;
    } catch (const CuptiFailure &) {
        p.metrics.clear();
        p.names.clear();
        return false;
    }
}

// How many passes the range profiler needs for `metrics` on this chip; 0
// where they cannot be configured.
std::size_t passes_needed(const CuptiTable &api, const std::string &chip, std::vector<std::uint8_t> &availability,
                          const std::vector<std::string> &metrics) {
    std::vector<const char *> names;
    for (const auto &m : metrics) names.push_back(m.c_str());
    try {
        const HostConfig c = configure_host(api, chip, availability, names, true);
        gmcupti::release_host(api, c.host);
        return c.passes;
    } catch (const CuptiFailure &) {
        return 0;
    }
}

std::string json_list(const std::vector<std::string> &items) {
    std::string out;
    for (const auto &i : items) out += (out.empty() ? "" : ",") + json_string(i);
    return "[" + out + "]";
}

// Application replay: the supported metrics split into one-pass groups (the
// split written as a record, for the front end to know how many runs it
// needs), and only this run's group kept.
void keep_one_group(const CuptiTable &api, ContextProfiler &p, std::vector<std::uint8_t> &availability) {
    const MetricGroups split = one_pass_groups(
        p.metrics, [&](const std::vector<std::string> &list) { return passes_needed(api, p.chip, availability, list); });
    std::string groups;
    for (const auto &g : split.groups) groups += (groups.empty() ? "" : ",") + json_list(g);
    sink_write(Line().field("type", records::kMetricGroups).field("chip", p.chip)
                   .field("group", std::uint64_t(g_state->plan.metric_group)).raw("groups", "[" + groups + "]")
                   .raw("too_large", json_list(split.too_large)));
    if (!split.too_large.empty()) {
        std::string names;
        for (const auto &m : split.too_large) names += (names.empty() ? "" : ", ") + m;
        counter_note("metrics that alone need more than one pass, not collected with application replay: " + names);
    }
    if (g_state->plan.metric_group >= split.groups.size())
        throw CuptiFailure{"application replay: metric group " + std::to_string(g_state->plan.metric_group) + " asked for, but chip " +
                      p.chip + " splits the metrics into " + std::to_string(split.groups.size()) + " group(s)"};
    p.metrics = split.groups[g_state->plan.metric_group];
}

// The profiler can be initialised only once the driver has a context (called
// from InitializeInjection, during cuInit, it fails with CUPTI_ERROR_UNKNOWN):
// on the first context's creation, or else on the first counted launch.
void initialize_profiler() {
    if (g_state->profiler_initialized) return;
    PhaseTimer timer(Phase::profiler_init);
    gmcupti::profiler_initialize(cupti(), cupti_check);
    g_state->profiler_initialized = true;
}

CUpti_RangeProfiler_Object *enable_profiler(CUcontext ctx) {
    PhaseTimer timer(Phase::enable);
    return gmcupti::enable(cupti(), cupti_check, ctx);
}

// The profiler of a context, set up on its first counted launch.
ContextProfiler &profiler_for(CUcontext ctx) {
    auto it = g_state->contexts.find(ctx);
    if (it != g_state->contexts.end()) return it->second;
    PhaseTimer timer(Phase::profiler_setup);
    const auto &api = cupti();
    initialize_profiler();
    ContextProfiler p;
    uint32_t device = 0;
    cupti_check(api.cuptiGetDeviceId(ctx, &device), "cuptiGetDeviceId");
    std::vector<std::uint8_t> availability;
    {
        PhaseTimer available(Phase::availability);
        p.chip = gmcupti::chip_name(api, cupti_check, device);
        availability = gmcupti::counter_availability(api, cupti_check, ctx);
    }
    // The common case, every metric taken, configures once: the host object
    // and image the counting keeps (a host object costs a load of the chip's
    // metric tables). Only where that fails is each metric tried alone.
    if (!g_state->plan.application_replay && configured_whole(api, p, availability)) {
        p.object = enable_profiler(ctx);
        return g_state->contexts[ctx] = std::move(p);
    }
    std::vector<const char *> asked;
    for (const auto &m : g_state->plan.metrics) asked.push_back(m.c_str());
    std::string unsupported;
    if (g_state->plan.application_replay && metrics_supported(api, p.chip, availability, asked)) {
        p.metrics = g_state->plan.metrics;
    } else {  // which ones: each alone
        for (const auto &m : g_state->plan.metrics) {
            if (metrics_supported(api, p.chip, availability, {m.c_str()})) p.metrics.push_back(m);
            else unsupported += (unsupported.empty() ? "" : ", ") + m;
        }
    }
    if (!unsupported.empty()) counter_note("metrics not available on chip " + p.chip + ": " + unsupported);
    if (p.metrics.empty()) throw CuptiFailure{"no metric asked for is available on chip " + p.chip};
    if (g_state->plan.application_replay) keep_one_group(api, p, availability);
    build_config(api, p, availability);
    if (g_state->plan.application_replay && p.passes != 1)
        throw CuptiFailure{"application replay: the metric group needs " + std::to_string(p.passes) + " passes, not one"};
    p.object = enable_profiler(ctx);
    return g_state->contexts[ctx] = std::move(p);
}

// A graph launch: as many ranges as it may have kernels.
constexpr std::size_t kGraphRanges = 256;
constexpr std::size_t kGraphsCounted = 16;

void start_count(CUcontext ctx, const std::string &kernel, std::uint32_t site, std::uint64_t launch,
                 std::size_t ranges = 1) {
    const auto &api = cupti();
    ContextProfiler &p = profiler_for(ctx);
    g_state->count_started = std::chrono::steady_clock::now();
    g_state->data = gmcupti::counter_data_image(api, cupti_check, p.object, p.names, ranges);
    // User replay with a one-pass configuration: the launch runs once and
    // nothing is replayed; kernel replay saves, replays and restores it.
    const CUpti_ProfilerReplayMode replay = g_state->plan.application_replay ? CUPTI_UserReplay : CUPTI_KernelReplay;
    gmcupti::set_config(api, cupti_check, p.object, p.config, g_state->data, CUPTI_AutoRange, replay, ranges);
    gmcupti::start(api, cupti_check, p.object);
    g_state->running = &p;
    g_state->running_kernel = kernel;
    g_state->running_ranges = ranges;
    g_state->running_site = site;
    g_state->running_launch = launch;
}

// The range's name: the kernel's, in auto ranges ("" where CUPTI gives none).
std::string range_name(const std::vector<std::uint8_t> &data, std::size_t index) {
    auto ri = GMX_PARAMS(CUpti_RangeProfiler_CounterData_GetRangeInfo_Params);
    ri.pCounterDataImage = data.data();
    ri.counterDataImageSize = data.size();
    ri.rangeIndex = index;
    ri.rangeDelimiter = "/";
    if (cupti().cuptiRangeProfilerCounterDataGetRangeInfo(&ri) != CUPTI_SUCCESS || !ri.rangeName) return "";
    return ri.rangeName;
}

// One range's metrics, as a counters record.
void write_range(ContextProfiler &p, std::size_t index, std::size_t ranges) {
    const std::vector<double> values = gmcupti::evaluate(cupti(), cupti_check, p.host, g_state->data, index, p.names);
    Line metrics;
    for (std::size_t i = 0; i < p.metrics.size(); ++i) metrics.field(p.metrics[i].c_str(), values[i]);
    const unsigned *g = g_state->running_grid, *b = g_state->running_block;
    const bool graph = g_state->running_kernel == "graph";
    Line record;
    record.field("type", records::kCounters).field("name", graph ? range_name(g_state->data, index) : g_state->running_kernel)
        .field("launch", g_state->running_launch).field("correlation", g_state->running_correlation)
        .field("site", std::uint64_t(g_state->running_site))
        .field("passes", std::uint64_t(p.passes)).field("chip", p.chip)
        .raw("grid", "[" + std::to_string(g[0]) + "," + std::to_string(g[1]) + "," + std::to_string(g[2]) + "]")
        .raw("block", "[" + std::to_string(b[0]) + "," + std::to_string(b[1]) + "," + std::to_string(b[2]) + "]")
        .field("replay", g_state->plan.application_replay ? "application" : "kernel");
    if (graph) record.field("graph_range", std::uint64_t(index)).field("graph_ranges", std::uint64_t(ranges));
    if (g_state->plan.application_replay) record.field("group", std::uint64_t(g_state->plan.metric_group));
    sink_write(record.raw("metrics", metrics.text()));
}

void finish_count() {
    const auto &api = cupti();
    ContextProfiler &p = *g_state->running;
    g_state->running = nullptr;
    const bool all_submitted = gmcupti::stop(api, cupti_check, p.object);
    if (g_state->plan.application_replay && !all_submitted)
        throw CuptiFailure{"application replay: the range profiler wants more passes of a launch of " + g_state->running_kernel};
    PhaseTimer counting(Phase::counting, g_state->count_started);  // from the launch's start_count
    // How many ranges were dropped is not reported: the ranges decoded are written.
    PhaseTimer timer(Phase::evaluate);
    gmcupti::decode_data(api, cupti_check, p.object);
    const std::size_t total = gmcupti::counter_data_ranges(api, cupti_check, g_state->data);
    if (total < 1) {
        counter_note("the range profiler recorded no range for a launch of " + g_state->running_kernel);
        return;
    }
    const std::size_t ranges = std::min<std::size_t>(total, g_state->running_ranges);
    for (std::size_t i = 0; i < ranges; ++i) write_range(p, i, ranges);
}

// The heads of the driver calls' parameter structures (generated_cuda_meta.h's
// cuLaunchKernel_params, also of the _ptsz and cooperative calls, and
// cuLaunchKernelEx_params), declared here: that header needs the driver's
// internal version macros.
struct LaunchKernelHead {
    CUfunction f;
    unsigned grid[3], block[3];
};
struct LaunchKernelExHead {
    const CUlaunchConfig *config;
};

// The launch's grid and block, from the driver call's parameters.
void remember_dimensions(CUpti_CallbackId id, const void *params) {
    unsigned *g = g_state->running_grid, *b = g_state->running_block;
    if (!params) return;
    if (id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx || id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz) {
        const CUlaunchConfig *c = static_cast<const LaunchKernelExHead *>(params)->config;
        if (!c) return;
        g[0] = c->gridDimX, g[1] = c->gridDimY, g[2] = c->gridDimZ;
        b[0] = c->blockDimX, b[1] = c->blockDimY, b[2] = c->blockDimZ;
        return;
    }
    const auto *p = static_cast<const LaunchKernelHead *>(params);
    for (int i = 0; i < 3; ++i) g[i] = p->grid[i], b[i] = p->block[i];
}

// Whether to count this launch: the ones --launch-skip/--launch-count name;
// with count_top, a kernel (at its call site) that repeats: once the trace has
// timed one of its launches, while its time so far ranks among count_top (at
// most twice count_top kernels so); before that (the trace is delivered every
// 50 ms), at its second launch (at most count_top kernels so, so that a loop's
// first kernels do not use up what the longest ones need). A kernel launched
// once is left to the counting run after (--passes 1).
bool count_this_launch(const LaunchKey &key, std::uint64_t launch, std::uint32_t correlation) {
    const CounterPlan &plan = g_state->plan;
    if (plan.count_top == 0)
        return launch >= plan.launch_skip && launch < plan.launch_skip + plan.launch_count;
    remember_launch(correlation, key);
    if (launch < std::max<std::uint64_t>(plan.launch_skip, 1)) return false;
    auto it = g_state->counted.find(key);
    const std::uint64_t done = it == g_state->counted.end() ? 0 : it->second;
    if (done >= plan.launch_count) return false;
    const Rank rank = rank_of(key, plan.count_top);
    if (rank == Rank::below) return false;
    if (done == 0) {
        std::size_t &budget = rank == Rank::untimed ? g_state->counted_untimed : g_state->counted_ranked;
        if (budget >= (rank == Rank::untimed ? plan.count_top : 2 * plan.count_top)) return false;
        ++budget;
    }
    ++g_state->counted[key];
    return true;
}

// Each call site of a kernel is a kernel of its own here: its launches are
// numbered apart, so that a kernel first launched at a clean line is also
// counted at the line that launches it badly.
// Stream captures open in the process (any stream: a capture in global mode
// makes the whole process's launches unsafe to replay).
std::atomic<int> g_open_captures{0};

void on_capture_call(CUpti_CallbackId id, const CUpti_CallbackData &cb) {
    if (cb.callbackSite != CUPTI_API_EXIT) return;
    const auto *result = static_cast<const CUresult *>(cb.functionReturnValue);
    if (one_of(id, kCaptureBeginCalls)) {
        if (result && *result == CUDA_SUCCESS) ++g_open_captures;
    } else if (g_open_captures > 0) {
        --g_open_captures;
    }
}

// XLA's autotuning launches a DelayKernel, which holds its stream until the
// host releases it, then the candidates it times on that stream, then
// releases it and waits. A launch counted in between is replayed behind the
// DelayKernel, which waits for its time-out each time (a JAX program spent
// 130 s counting three kernels so, on an H100). From a DelayKernel's launch
// to the host's next wait for the device, nothing is counted.
std::atomic<bool> g_delay_pending{false};
std::atomic<bool> g_follow_delays{false};  // the host's waits are seen (counters_start)

bool is_delay_kernel(const char *symbol) {
    return symbol && std::strstr(symbol, "DelayKernel") && never_counted(symbol);
}

void on_host_wait(const CUpti_CallbackData &cb) {
    if (cb.callbackSite == CUPTI_API_EXIT) g_delay_pending = false;
}

void on_launch(CUpti_CallbackId id, const CUpti_CallbackData &cb) {
    // The site is looked up before the lock: it may wait for Python's GIL.
    const bool enter = cb.callbackSite == CUPTI_API_ENTER;
    if (enter && is_delay_kernel(cb.symbolName)) g_delay_pending = g_follow_delays.load();  // never counted itself
    const std::uint32_t site = enter && cb.symbolName ? note_launch_site(cb.correlationId) : 0;
    std::lock_guard<std::mutex> lock(g_state->mutex);
    if (g_state->failed) return;
    try {
        if (enter) {
            if (!cb.symbolName || !g_state->choice.wanted(cb.symbolName, site)) return;
            if (g_open_captures > 0) return;  // captured into a graph, not run now
            const LaunchKey key{cb.symbolName, site};
            const std::uint64_t launch = g_state->launches[key]++;
            if (g_delay_pending) {  // numbered, but behind a DelayKernel: not counted
                if (!g_state->delay_noted)
                    counter_note("launches made while XLA's autotuning DelayKernel held a stream (until the host's next "
                                 "wait for the device) were not counted: a replay would wait for its time-out");
                g_state->delay_noted = true;
                return;
            }
            if (!count_this_launch(key, launch, cb.correlationId)) return;
            remember_dimensions(id, cb.functionParams);
            start_count(cb.context, cb.symbolName, site, launch);
            g_state->running_correlation = cb.correlationId;
        } else if (g_state->running && g_state->running_kernel != "graph") {
            finish_count();
        }
    } catch (const CuptiFailure &f) {
        g_state->failed = true;
        g_state->running = nullptr;
        sink_write(Line().field("type", records::kCountersUnavailable).field("reason", f.what));
    }
}

// A CUDA graph launch (the single pass): the graph's kernels counted as the
// profiler's auto ranges at its second launch. Where the profiler refuses,
// graphs stay uncounted and kernel launches are counted as before.
void on_graph_launch(const CUpti_CallbackData &cb) {
    const bool enter = cb.callbackSite == CUPTI_API_ENTER;
    const std::uint32_t site = enter ? note_launch_site(cb.correlationId) : 0;
    std::lock_guard<std::mutex> lock(g_state->mutex);
    if (g_state->failed || g_state->graphs_failed || !g_state->plan.every_kernel || !g_state->plan.count_graphs ||
        g_state->plan.application_replay)
        return;
    try {
        if (enter) {
            const void *exec = cb.functionParams ? *static_cast<const void *const *>(cb.functionParams) : nullptr;
            if (g_state->running || g_state->graph_launches[exec]++ != 1 || g_state->graphs_counted >= kGraphsCounted) return;
            ++g_state->graphs_counted;
            std::fill(g_state->running_grid, g_state->running_grid + 3, 0u);
            std::fill(g_state->running_block, g_state->running_block + 3, 0u);
            start_count(cb.context, "graph", site, 1, kGraphRanges);
            g_state->running_correlation = cb.correlationId;
        } else if (g_state->running && g_state->running_kernel == "graph") {
            finish_count();
        }
    } catch (const CuptiFailure &f) {
        g_state->graphs_failed = true;
        g_state->running = nullptr;
        counter_note("CUDA graph launches not counted: " + f.what);
    }
}

// A context about to be destroyed takes its profiler with it: disabled here,
// while the context still exists.
void on_context_destroy(CUcontext ctx) {
    std::lock_guard<std::mutex> lock(g_state->mutex);
    auto it = g_state->contexts.find(ctx);
    if (it == g_state->contexts.end() || !it->second.object) return;
    gmcupti::disable(cupti(), it->second.object);
    it->second.object = nullptr;
}

void on_context_created() {
    if (g_state->plan.on_context_created) g_state->plan.on_context_created();
    std::lock_guard<std::mutex> lock(g_state->mutex);
    if (g_state->failed) return;
    try {
        PhaseTimer timer(Phase::profiler_setup);
        initialize_profiler();
    } catch (const CuptiFailure &f) {
        g_state->failed = true;
        sink_write(Line().field("type", records::kCountersUnavailable).field("reason", f.what));
    }
}

void CUPTIAPI callback(void *, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void *data) {
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API && is_kernel_launch(id))
        on_launch(id, *static_cast<const CUpti_CallbackData *>(data));
    else if (domain == CUPTI_CB_DOMAIN_DRIVER_API && one_of(id, kHostWaitCalls))
        on_host_wait(*static_cast<const CUpti_CallbackData *>(data));
    else if (domain == CUPTI_CB_DOMAIN_DRIVER_API && (one_of(id, kCaptureBeginCalls) || one_of(id, kCaptureEndCalls)))
        on_capture_call(id, *static_cast<const CUpti_CallbackData *>(data));
    else if (is_graph_node_event(domain, id))
        on_graph_node_event(id, data);
    else if (domain == CUPTI_CB_DOMAIN_DRIVER_API && is_graph_launch(id))
        on_graph_launch(*static_cast<const CUpti_CallbackData *>(data));
    else if (domain == CUPTI_CB_DOMAIN_RESOURCE && id == CUPTI_CBID_RESOURCE_CONTEXT_CREATED)
        on_context_created();
    else if (domain == CUPTI_CB_DOMAIN_RESOURCE && id == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING)
        on_context_destroy(static_cast<const CUpti_ResourceData *>(data)->context);
}

}  // namespace

std::string counters_start(const CounterPlan &plan) {
    const auto &api = cupti();
    if (!api.profiler_reason.empty()) return api.profiler_reason;
    g_state = new State;  // lives to the end of the process: callbacks may come from any thread
    g_times = new TracedTimes;
    g_state->plan = plan;
    // count_top ranks by the trace. CUPTI's periodic flush returns full buffers
    // only: a kernel is ranked once a buffer holding its records has filled;
    // before that it counts among the untimed (count_this_launch).
    if (plan.count_top && api.cuptiActivityFlushPeriod) api.cuptiActivityFlushPeriod(50);
    g_state->choice.choose(!plan.every_kernel, plan.kernels, plan.kernel_regex, plan.max_kernels, site_key_of);
    std::string why = subscribe_to_launches(&g_state->subscriber, callback,
                                            {CUPTI_CBID_RESOURCE_CONTEXT_CREATED, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING});
    // The host's waits end a DelayKernel's hold; where CUPTI refuses one of
    // them, DelayKernels are not followed (counting goes on as without them).
    bool waits = why.empty();
    for (CUpti_CallbackId id : kHostWaitCalls)
        waits = waits && api.cuptiEnableCallback(1, g_state->subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id) == CUPTI_SUCCESS;
    g_follow_delays = waits;
    return why;
}

void counters_detach() {
    if (!g_state) return;
    std::lock_guard<std::mutex> lock(g_state->mutex);
    const auto &api = cupti();
    if (g_state->subscriber) api.cuptiUnsubscribe(g_state->subscriber);
    g_state->subscriber = nullptr;
    for (auto &[ctx, p] : g_state->contexts) {
        if (!p.object) continue;
        gmcupti::disable(api, p.object);
        p.object = nullptr;
    }
    if (g_state->profiler_initialized && api.cuptiProfilerDeInitialize) {
        auto de = GMX_PARAMS(CUpti_Profiler_DeInitialize_Params);
        api.cuptiProfilerDeInitialize(&de);
    }
    // A callback already past the unsubscription finds nothing to do; the
    // state itself stays (it may still be read), the next session makes its own.
    g_state->failed = true;
}

void counters_kernel_traced(std::uint32_t correlation, std::uint64_t ns) {
    if (!g_times) return;
    std::lock_guard<std::mutex> lock(g_times->mutex);
    auto it = g_times->untimed.find(correlation);
    if (it == g_times->untimed.end()) return;
    g_times->ns[it->second] += double(ns);
    g_times->untimed.erase(it);
}

void counters_stop() {
    if (!g_state) return;
    // Profilers still enabled belong to contexts the program never destroyed;
    // the driver tears them down with the process.
    std::lock_guard<std::mutex> lock(g_state->mutex);
    for (const auto &[key, n] : g_state->launches)
        sink_write(Line().field("type", records::kLaunches).field("name", key.first).field("site", std::uint64_t(key.second))
                       .field("count", n));
}

}  // namespace gmexplain
