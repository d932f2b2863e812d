// The injection library: CUDA loads it into an unmodified program through
// CUDA_INJECTION64_PATH and calls InitializeInjection() when the program
// first initialises the driver. gmlab explain sets the variables below; the
// library reads them, starts the pass asked for and writes its records to
// the record sink. It never prints into the program's output and never ends
// the program: what goes wrong becomes a record the front end reports.
//
//   GMLAB_EXPLAIN_OUT           folder for the records (required)
//   GMLAB_EXPLAIN_PASS          trace | counters | single (the trace, and the first
//                               launches of every kernel counted, in one run) | lines
//                               (SASS metrics per source line of the kernels named in
//                               GMLAB_EXPLAIN_KERNELS, or of every kernel: sass_pass.hpp)
//   GMLAB_EXPLAIN_KERNEL_REGEX  single: count only kernels whose demangled name matches
//   GMLAB_EXPLAIN_MAX_KERNELS   single: count at most this many distinct kernels
//   GMLAB_EXPLAIN_COUNT_TOP     single: count only kernels whose traced time ranks among this
//                               many, at a later launch (counter_pass.hpp); 0: the first launches
//   GMLAB_EXPLAIN_CALLSITES     0: no call sites (call_sites.hpp)
//   GMLAB_EXPLAIN_KERNELS       counters: mangled kernel names, one a line
//   GMLAB_EXPLAIN_METRICS       counters: metric names, comma separated
//   GMLAB_EXPLAIN_LAUNCH_SKIP   counters: launches of each kernel left alone first
//   GMLAB_EXPLAIN_LAUNCH_COUNT  counters: launches of each kernel counted
//   GMLAB_EXPLAIN_REPLAY        counters: "application" counts one one-pass group of the
//                               metrics, each launch run once (records: appreplay<group>-<pid>.jsonl)
//   GMLAB_EXPLAIN_GROUP         counters with application replay: the group this run counts
#include <dlfcn.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <sstream>
#include <string>

#include <cuda.h>

#include "inject/counter_pass.hpp"
#include "inject/phase_times.hpp"
#include "inject/cupti_table.hpp"
#include "inject/record_sink.hpp"
#include "inject/sass_pass.hpp"
#include "inject/trace_pass.hpp"
#include "inject/variables.hpp"
#include "inject/record_types.hpp"

namespace gmexplain {
namespace {

std::string env(const char *name) {
    const char *v = std::getenv(name);
    return v ? v : "";
}

std::uint64_t env_number(const char *name, std::uint64_t fallback) {
    const std::string v = env(name);
    if (v.empty()) return fallback;
    char *end = nullptr;
    const unsigned long long n = std::strtoull(v.c_str(), &end, 10);
    return (end && *end == '\0') ? n : fallback;
}

std::string g_pass;

void at_exit() {
    {
        PhaseTimer timer(Phase::exit);
        if (g_pass == "lines") lines_stop();
        if (g_pass != "trace") counters_stop();
        trace_flush();
    }
    phase_write_record();
    sink_write(Line().field("type", records::kExit).field("pid", std::int64_t(getpid())));
    sink_flush();
}

// A crashing program: its signal recorded with async-signal-safe calls only
// (no CUPTI flush, no lock, no stdio: the crash may have come while the
// program or CUPTI held them), then the signal does what it would have done:
// SA_RESETHAND restored its default action before this ran.
void on_fatal_signal(int sig) {
    sink_write_signal(sig);
    sink_write_stack();
    raise(sig);
}

void catch_fatal_signals() {
    sink_prepare_stack();
    struct sigaction sa {};
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND | SA_NODEFER;
    for (int sig : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL}) sigaction(sig, &sa, nullptr);
}

CounterPlan counter_plan() {
    CounterPlan plan;
    std::istringstream kernels(env(vars::kKernels));
    for (std::string line; std::getline(kernels, line);)
        if (!line.empty()) plan.kernels.insert(line);
    std::istringstream metrics(env(vars::kMetrics));
    for (std::string m; std::getline(metrics, m, ',');)
        if (!m.empty()) plan.metrics.push_back(m);
    plan.launch_skip = env_number(vars::kLaunchSkip, 0);
    plan.launch_count = env_number(vars::kLaunchCount, 1);
    plan.every_kernel = g_pass == "single";
    if (plan.every_kernel) plan.on_context_created = trace_context_created;
    plan.kernel_regex = env(vars::kKernelRegex);
    plan.max_kernels = env_number(vars::kMaxKernels, 64);
    if (plan.every_kernel) plan.count_top = env_number(vars::kCountTop, 0);
    if (plan.count_top) plan.max_kernels = ~std::size_t(0);  // every kernel is timed; the ranking chooses
    plan.application_replay = g_pass == "counters" && env(vars::kReplay) == "application";
    plan.metric_group = env_number(vars::kGroup, 0);
    plan.count_graphs = env(vars::kGraphs) != "0";
    return plan;
}

// The records' file name: the pass, or with application replay one name per
// run (each run of the program counts one group of metrics; the front end joins them).
std::string records_name() {
    if (g_pass != "counters" || env(vars::kReplay) != "application") return g_pass;
    return "appreplay" + std::to_string(env_number(vars::kGroup, 0));
}

// Pass 3 selects kernels as the counting passes do (GMLAB_EXPLAIN_KERNELS, or
// every kernel that GMLAB_EXPLAIN_KERNEL_REGEX matches) and skips as they do.
LinesPlan lines_plan() {
    LinesPlan plan;
    std::istringstream kernels(env(vars::kKernels));
    for (std::string line; std::getline(kernels, line);)
        if (!line.empty()) plan.kernels.insert(line);
    plan.kernel_regex = env(vars::kKernelRegex);
    plan.max_kernels = env_number(vars::kMaxKernels, 64);
    plan.launch_skip = env_number(vars::kLaunchSkip, 0);
    return plan;
}

// The lines pass runs alone: no trace, no range profiler beside the SASS patching.
void start_lines() {
    if (std::string why = lines_start(lines_plan()); !why.empty())
        sink_write(Line().field("type", records::kLinesUnavailable).field("reason", why));
}

int initialize() {
    const std::string out = env(vars::kOut);
    if (out.empty()) return 1;  // loaded without gmlab explain: stay out of the way
    phase_mark_loaded();
    PhaseTimer timer(Phase::initialize);
    g_pass = env(vars::kPass);
    if (g_pass != "counters" && g_pass != "single" && g_pass != "lines") g_pass = "trace";
    sink_open(out, records_name());
    const auto &api = cupti();
    sink_write(Line().field("type", records::kProcess).field("pid", std::int64_t(getpid()))
                   .field("ppid", std::int64_t(getppid())).field("pass", g_pass).field("cupti", api.library));
    std::atexit(at_exit);
    catch_fatal_signals();
    if (g_pass == "lines") {
        start_lines();
        return 1;
    }
    // The counting pass traces nothing (the launches record of counters_stop
    // says which chosen kernels ran); the single pass traces and counts, and
    // the front end leaves the counted launches' replayed times out of the trace.
    if (g_pass != "counters") {
        if (std::string why = trace_start(true, g_pass == "trace"); !why.empty()) {
            sink_write(Line().field("type", records::kTraceUnavailable).field("reason", why));
            return 1;
        }
        if (g_pass == "trace") return 1;
        trace_on_kernel(counters_kernel_traced);
    }
    if (std::string why = counters_start(counter_plan()); !why.empty()) {
        sink_write(Line().field("type", records::kCountersUnavailable).field("reason", why));
        // The counting pass did not subscribe, so its context callback will
        // never configure the single pass's unified-memory counters.
        if (g_pass == "single") trace_watch_contexts();
    }
    return 1;
}

// ---- An in-process session (the Python binding's explain.session()) ------

bool g_attached = false;
std::string g_attach_message;

// A CUDA driver function of the process, looked up (the library links no CUDA library).
template <class F> F driver_function(const char *name) { return reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name)); }

// The calling thread's CUDA context, or null (none yet, or no driver loaded).
CUcontext current_context() {
    CUcontext ctx = nullptr;
    if (auto get = driver_function<CUresult (*)(CUcontext *)>("cuCtxGetCurrent")) get(&ctx);
    return ctx;
}

// The device record CUPTI writes when tracing starts before the context:
// read from the driver for a session that attaches later.
void write_current_device() {
    using GetDevice = CUresult (*)(CUdevice *);
    using GetName = CUresult (*)(char *, int, CUdevice);
    using GetAttribute = CUresult (*)(int *, CUdevice_attribute, CUdevice);
    using TotalMem = CUresult (*)(size_t *, CUdevice);
    const auto get_device = driver_function<GetDevice>("cuCtxGetDevice");
    const auto get_name = driver_function<GetName>("cuDeviceGetName");
    const auto attribute = driver_function<GetAttribute>("cuDeviceGetAttribute");
    const auto total = driver_function<TotalMem>("cuDeviceTotalMem_v2");
    CUdevice device = 0;
    char name[256] = "";
    if (!get_device || !get_name || !attribute || get_device(&device) != CUDA_SUCCESS ||
        get_name(name, sizeof name, device) != CUDA_SUCCESS)
        return;
    auto value = [&](CUdevice_attribute a) {
        int v = 0;
        return attribute(&v, a, device) == CUDA_SUCCESS ? v : 0;
    };
    size_t bytes = 0;
    if (total) total(&bytes, device);
    // Bandwidth as CUPTI's record gives it (KB/s): memory clock (kHz) x bus width (bytes) x 2.
    const std::uint64_t kbs = std::uint64_t(value(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE)) *
                              std::uint64_t(value(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH) / 8) * 2;
    sink_write(Line().field("type", records::kDevice).field("id", int(device)).field("name", std::string(name))
                   .field("sm_count", value(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT))
                   .field("memory_bytes", std::uint64_t(bytes)).field("memory_bandwidth_kbs", kbs)
                   .field("l2_bytes", value(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE))
                   .field("compute_capability", value(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) * 10 +
                                                    value(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR))
                   .field("max_warps_per_sm", value(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR) / 32)
                   .field("max_blocks_per_sm", value(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR))
                   .field("registers_per_sm", value(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR))
                   .field("shared_per_sm", value(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)));
}

int attach(const std::string &folder) {
    if (!g_pass.empty() || g_attached) {
        g_attach_message = g_attached ? "a session is already open in this process"
                                      : "this process already runs under gmlab explain (CUDA_INJECTION64_PATH)";
        return 1;
    }
    const auto &api = cupti();
    if (!api.reason.empty()) {
        g_attach_message = api.reason;
        return 1;
    }
    phase_reset();
    setenv(vars::kOut, folder.c_str(), 1);
    setenv(vars::kPass, "single", 1);
    g_pass = "single";
    sink_open(folder, g_pass);
    sink_write(Line().field("type", records::kProcess).field("pid", std::int64_t(getpid()))
                   .field("ppid", std::int64_t(getppid())).field("pass", g_pass).field("cupti", api.library)
                   .field("session", 1));
    if (std::string why = trace_start(true, false); !why.empty()) {
        sink_write(Line().field("type", records::kTraceUnavailable).field("reason", why));
        g_attach_message = why;
        sink_close();
        g_pass.clear();
        return 1;
    }
    trace_on_kernel(counters_kernel_traced);
    if (std::string why = counters_start(counter_plan()); !why.empty()) {
        sink_write(Line().field("type", records::kCountersUnavailable).field("reason", why));
        trace_watch_contexts();
    }
    // The context exists already: its creation was before the session, and
    // so was CUPTI's record of its device.
    if (current_context()) {
        trace_context_created();
        write_current_device();
    }
    g_attached = true;
    return 0;
}

int detach() {
    if (!g_attached) {
        g_attach_message = "no session is open";
        return 1;
    }
    if (current_context())
        if (auto sync = driver_function<CUresult (*)()>("cuCtxSynchronize")) sync();
    counters_stop();
    counters_detach();
    trace_detach();
    phase_write_record();
    sink_write(Line().field("type", records::kExit).field("pid", std::int64_t(getpid())));
    sink_close();
    g_attached = false;
    g_pass.clear();
    return 0;
}

}  // namespace
}  // namespace gmexplain

// An in-process session: what the calling process launches from now on is
// traced and counted into `folder`, as the single pass does in a program that
// gmlab explain started, until gmlab_explain_detach(); the front end reads the
// folder with --from-records. The variables gm_explain_session() names
// must be set first. 0, or 1 with the reason in gmlab_explain_attach_message().
extern "C" __attribute__((visibility("default"))) int gmlab_explain_attach(const char *folder) {
    try {
        if (!folder || !*folder) {
            gmexplain::g_attach_message = "folder is empty";
            return 1;
        }
        return gmexplain::attach(folder);
    } catch (...) {
        gmexplain::g_attach_message = "the session could not start";
        return 1;
    }
}

extern "C" __attribute__((visibility("default"))) int gmlab_explain_detach(void) {
    try {
        return gmexplain::detach();
    } catch (...) {
        gmexplain::g_attach_message = "the session could not end cleanly";
        return 1;
    }
}

extern "C" __attribute__((visibility("default"))) const char *gmlab_explain_attach_message(void) {
    return gmexplain::g_attach_message.c_str();
}

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
    // The driver calls this once per process; 1 tells it the library initialised.
    try {
        return gmexplain::initialize();
    } catch (...) {
        return 1;
    }
}
