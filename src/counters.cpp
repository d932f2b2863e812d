#include "counters.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include <cuda_runtime_api.h>

#include "error.hpp"

#if __has_include(<cupti_range_profiler.h>) && __has_include(<cupti_profiler_host.h>)
#define GM_HAVE_CUPTI_HEADERS 1
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>
#else
#define GM_HAVE_CUPTI_HEADERS 0
#endif

namespace gmlab {

// ---------------------------------------------------------------------------
// Declarations

CounterSet &CounterSet::operator+=(const CounterSet &o) {
    for (const auto &m : o.metrics)
        if (std::find(metrics.begin(), metrics.end(), m) == metrics.end()) metrics.push_back(m);
    derived.insert(derived.end(), o.derived.begin(), o.derived.end());
    agreements.insert(agreements.end(), o.agreements.begin(), o.agreements.end());
    return *this;
}

CounterSet CounterSet::agree(const std::string &counter, const std::string &predicted, double tolerance) const {
    CounterSet s = *this;
    s.agreements.push_back({counter, predicted, tolerance});
    return s;
}

namespace counter_sets {

CounterSet global_sectors() {
    CounterSet s;
    s.metrics = {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
                 "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"};
    s.derived = {{"sectors_per_request_ld", s.metrics[0], s.metrics[1]},
                 {"sectors_per_request_st", s.metrics[2], s.metrics[3]}};
    return s;
}

CounterSet dram() {
    CounterSet s;
    s.metrics = {"dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_sector_hit_rate.pct"};
    return s;
}

CounterSet shared_banks() {
    CounterSet s;
    s.metrics = {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                 "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
                 "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                 "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
                 "smsp__inst_executed_op_shared_ld.sum",
                 "smsp__inst_executed_op_shared_st.sum"};
    // Wavefronts per warp-level shared load or store instruction: the guide's
    // n-way conflict is n wavefronts for one request.
    s.derived = {{"wavefronts_per_request_ld", s.metrics[2], s.metrics[4]},
                 {"wavefronts_per_request_st", s.metrics[3], s.metrics[5]}};
    return s;
}

CounterSet local_sectors() {
    CounterSet s;
    s.metrics = {"l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
                 "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum"};
    s.derived = {{"local_sectors_per_request_ld", s.metrics[0], s.metrics[2]},
                 {"local_sectors_per_request_st", s.metrics[1], s.metrics[3]}};
    return s;
}

CounterSet global_load_instructions() {
    CounterSet s;
    // The hardware counter of warp-level global load instructions; Nsight
    // Compute's smsp__sass_inst_executed_op_global_ld counts the same
    // instructions by patching the code, which the range profiler does not do.
    s.metrics = {"smsp__inst_executed_op_global_ld.sum"};
    return s;
}

CounterSet occupancy() {
    CounterSet s;
    s.metrics = {"sm__warps_active.avg.pct_of_peak_sustained_active"};
    return s;
}

}  // namespace counter_sets

const char *counter_mode_name(CounterMode m) {
    switch (m) {
    case CounterMode::Off: return "off";
    case CounterMode::On: return "on";
    case CounterMode::Auto: return "auto";
    }
    return "auto";
}

std::string counters_off_reason() { return "counters are switched off (setting counters = off, gmlab run --counters off)"; }

std::vector<AgreementCheck> evaluate_counter_set(const CounterSet &set, std::map<std::string, double> &values,
                                                 const std::map<std::string, double> &predicted) {
    for (const auto &d : set.derived) {
        auto n = values.find(d.numerator);
        if (n == values.end()) continue;
        if (d.denominator.empty()) {
            if (d.divisor > 0) values[d.name] = n->second / d.divisor;
            continue;
        }
        auto q = values.find(d.denominator);
        if (q != values.end() && q->second > 0) values[d.name] = n->second / q->second;
    }
    std::vector<AgreementCheck> checks;
    for (const auto &a : set.agreements) {
        auto m = values.find(a.counter);
        auto p = predicted.find(a.predicted);
        if (m == values.end() || p == predicted.end()) continue;
        AgreementCheck c;
        c.counter = a.counter;
        c.predicted = a.predicted;
        c.tolerance = a.tolerance;
        c.measured = m->second;
        c.model = p->second;
        // "Exactly" allows for the rounding of the counters' evaluation in doubles.
        const double allowed = std::max(a.tolerance, 1e-9) * std::fabs(c.model) + 1e-12;
        c.agrees = std::fabs(c.measured - c.model) <= allowed;
        checks.push_back(c);
    }
    return checks;
}

// ---------------------------------------------------------------------------
// The CUPTI function table

#if GM_HAVE_CUPTI_HEADERS

#define GM_CUPTI_FUNCTIONS(X)                    \
    X(cuptiGetResultString)                      \
    X(cuptiProfilerInitialize)                   \
    X(cuptiProfilerDeviceSupported)              \
    X(cuptiDeviceGetChipName)                    \
    X(cuptiProfilerGetCounterAvailability)       \
    X(cuptiProfilerHostInitialize)               \
    X(cuptiProfilerHostDeinitialize)             \
    X(cuptiProfilerHostConfigAddMetrics)         \
    X(cuptiProfilerHostGetConfigImageSize)       \
    X(cuptiProfilerHostGetConfigImage)           \
    X(cuptiProfilerHostGetNumOfPasses)           \
    X(cuptiProfilerHostEvaluateToGpuValues)      \
    X(cuptiRangeProfilerEnable)                  \
    X(cuptiRangeProfilerDisable)                 \
    X(cuptiRangeProfilerGetCounterDataSize)      \
    X(cuptiRangeProfilerCounterDataImageInitialize) \
    X(cuptiRangeProfilerSetConfig)               \
    X(cuptiRangeProfilerStart)                   \
    X(cuptiRangeProfilerStop)                    \
    X(cuptiRangeProfilerPushRange)               \
    X(cuptiRangeProfilerPopRange)                \
    X(cuptiRangeProfilerDecodeData)              \
    X(cuptiRangeProfilerGetCounterDataInfo)

struct CuptiApi {
#define GM_CUPTI_MEMBER(f) decltype(&::f) f = nullptr;
    GM_CUPTI_FUNCTIONS(GM_CUPTI_MEMBER)
#undef GM_CUPTI_MEMBER
};

#else

struct CuptiApi {};

#endif

namespace {

std::mutex g_loader_mutex;
CuptiLoader g_test_loader;
std::unique_ptr<CuptiLoad> g_loaded;

std::string dl_error() {
    const char *e = dlerror();
    return e ? e : "unknown dlopen error";
}

CuptiLoad dlopen_cupti() {
    CuptiLoad out;
#if !GM_HAVE_CUPTI_HEADERS
    out.reason = "this libgmlab was built without the CUPTI headers (cupti_range_profiler.h), so it cannot count";
    return out;
#else
    std::vector<std::string> names;
    if (const char *env = std::getenv("GM_CUPTI_LIBRARY"); env && *env)
        names = {env};
    else
        names = {"libcupti.so.13", "libcupti.so.12", "libcupti.so", "/usr/local/cuda/lib64/libcupti.so",
                 "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so"};
    void *handle = nullptr;
    std::string first_error;
    for (const auto &n : names) {
        handle = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle) {
            out.library = n;
            break;
        }
        if (first_error.empty()) first_error = dl_error();
    }
    if (!handle) {
        out.reason = "libcupti (CUDA Profiling Tools Interface) could not be loaded (" + first_error +
                     "); it comes with the CUDA toolkit (lib64/libcupti.so) or the cuda-cupti package: add its "
                     "directory to LD_LIBRARY_PATH or name the file in GM_CUPTI_LIBRARY";
        return out;
    }
    // libnvperf_host evaluates the metrics; CUPTI loads it from its own
    // directory or the loader's path. Load it here to say so when it is missing.
    std::string dir;
    if (auto *sym = dlsym(handle, "cuptiGetResultString")) {
        Dl_info info{};
        if (dladdr(sym, &info) && info.dli_fname) {
            dir = info.dli_fname;
            dir = dir.substr(0, dir.find_last_of('/') + 1);
        }
    }
    void *nvperf = dir.empty() ? nullptr : dlopen((dir + "libnvperf_host.so").c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!nvperf) nvperf = dlopen("libnvperf_host.so", RTLD_NOW | RTLD_LOCAL);
    if (!nvperf) {
        out.reason = "libnvperf_host.so (NVIDIA's metric library, shipped beside libcupti in " +
                     (dir.empty() ? std::string("the CUDA toolkit") : dir) + ") could not be loaded (" + dl_error() +
                     "); add its directory to LD_LIBRARY_PATH";
        return out;
    }
    auto api = std::make_shared<CuptiApi>();
#define GM_CUPTI_LOAD(f)                                                                                          \
    api->f = reinterpret_cast<decltype(api->f)>(dlsym(handle, #f));                                              \
    if (!api->f) {                                                                                                \
        out.reason = out.library + " has no " #f ": counting needs the CUPTI range profiler of CUDA 12.6 or later"; \
        return out;                                                                                               \
    }
    GM_CUPTI_FUNCTIONS(GM_CUPTI_LOAD)
#undef GM_CUPTI_LOAD
    // The libraries stay loaded for the life of the process (CUPTI cannot be unloaded safely).
    out.api = std::move(api);
    return out;
#endif
}

}  // namespace

const CuptiLoad &load_cupti() {
    std::lock_guard<std::mutex> lock(g_loader_mutex);
    if (!g_loaded) g_loaded = std::make_unique<CuptiLoad>(g_test_loader ? g_test_loader() : dlopen_cupti());
    return *g_loaded;
}

void set_cupti_loader_for_testing(CuptiLoader loader) {
    std::lock_guard<std::mutex> lock(g_loader_mutex);
    g_test_loader = std::move(loader);
    g_loaded.reset();
}

// ---------------------------------------------------------------------------
// The session

#if GM_HAVE_CUPTI_HEADERS

namespace {

// A CUPTI parameter struct, zeroed, with its size set.
template <class T> T params(std::size_t struct_size) {
    T p;
    std::memset(&p, 0, sizeof p);
    p.structSize = struct_size;
    return p;
}

std::string result_name(const CuptiApi &api, CUptiResult r) {
    const char *s = nullptr;
    if (api.cuptiGetResultString && api.cuptiGetResultString(r, &s) == CUPTI_SUCCESS && s) return s;
    return "CUPTI error " + std::to_string(static_cast<int>(r));
}

// Why a CUPTI call failed, and what would make counters available.
std::string explain(const CuptiApi &api, CUptiResult r, const char *call) {
    std::string why = std::string(call) + " failed: " + result_name(api, r);
    switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        why += ". The driver lets only administrators read GPU performance counters: run as root, or allow all "
               "users with the nvidia module option NVreg_RestrictProfilingToAdminUsers=0 (a file in "
               "/etc/modprobe.d, then reload the driver or reboot), or on Windows the NVIDIA Control Panel / "
               "Nsight setting \"GPU performance counters\": allow access to all users";
        break;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
        why += ". Another profiler (Nsight Compute, Nsight Systems or another CUPTI client) is attached to this "
               "process; run without it to count";
        break;
    case CUPTI_ERROR_NOT_COMPATIBLE:
        why += ". This libcupti does not match the NVIDIA driver; use the CUPTI of a CUDA toolkit the driver supports";
        break;
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_SUPPORTED:
        why += ". This device or configuration does not support the range profiler";
        break;
    default: break;
    }
    return why;
}

const char *level_text(CUpti_Profiler_Support_Level l) {
    switch (l) {
    case CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED: return "unsupported";
    case CUPTI_PROFILER_CONFIGURATION_DISABLED: return "disabled";
    case CUPTI_PROFILER_CONFIGURATION_SUPPORTED: return "supported";
    default: return "unknown";
    }
}

}  // namespace

struct CounterSession::Impl {
    std::shared_ptr<const CuptiApi> api;
    CUcontext ctx = nullptr;
    int device = 0;
    bool initialized = false;
    std::string chip;
    std::vector<std::uint8_t> availability_image;
    struct Config {
        CUpti_Profiler_Host_Object *host = nullptr;
        std::vector<std::uint8_t> image;
        std::size_t passes = 0;
    };
    std::map<std::string, Config> configs;  // by the metric names joined with ','

    ~Impl() {
        if (api) disable();
        for (auto &[key, c] : configs) {
            if (!c.host) continue;
            auto p = params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
            p.pHostObject = c.host;
            api->cuptiProfilerHostDeinitialize(&p);
        }
    }

    void check(CUptiResult r, const char *call) const {
        if (r != CUPTI_SUCCESS) fail(GM_ERROR_NOT_SUPPORTED, explain(*api, r, call));
    }

    void initialize() {
        if (initialized) return;
        auto init = params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
        check(api->cuptiProfilerInitialize(&init), "cuptiProfilerInitialize");

        auto sup = params<CUpti_Profiler_DeviceSupported_Params>(CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE);
        sup.cuDevice = device;
        sup.api = CUPTI_PROFILER_RANGE_PROFILING;
        check(api->cuptiProfilerDeviceSupported(&sup), "cuptiProfilerDeviceSupported");
        if (sup.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
            std::string why = "the range profiler does not support this device:";
            const std::pair<const char *, CUpti_Profiler_Support_Level> parts[] = {
                {"architecture (needs Turing, compute capability 7.5, or later)", sup.architecture},
                {"SLI", sup.sli},
                {"vGPU (profiling must be enabled for the VM)", sup.vGpu},
                {"confidential computing", sup.confidentialCompute},
                {"crypto-mining processor", sup.cmp},
                {"WSL", sup.wsl}};
            for (const auto &[what, level] : parts)
                if (level != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
                    why += std::string(" ") + what + ": " + level_text(level) + ";";
            why.pop_back();
            fail(GM_ERROR_NOT_SUPPORTED, why);
        }

        auto name = params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
        name.deviceIndex = static_cast<std::size_t>(device);
        check(api->cuptiDeviceGetChipName(&name), "cuptiDeviceGetChipName");
        chip = name.pChipName ? name.pChipName : "";

        auto av = params<CUpti_Profiler_GetCounterAvailability_Params>(CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
        av.ctx = ctx;
        check(api->cuptiProfilerGetCounterAvailability(&av), "cuptiProfilerGetCounterAvailability");
        availability_image.assign(av.counterAvailabilityImageSize, 0);
        av.pCounterAvailabilityImage = availability_image.data();
        check(api->cuptiProfilerGetCounterAvailability(&av), "cuptiProfilerGetCounterAvailability");
        initialized = true;
    }

    Config &config(const std::vector<std::string> &metrics, std::vector<const char *> &names) {
        std::string key;
        for (const auto &m : metrics) key += m + ",";
        auto it = configs.find(key);
        if (it != configs.end()) return it->second;
        Config c;
        auto hi = params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
        hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
        hi.pChipName = chip.c_str();
        hi.pCounterAvailabilityImage = availability_image.data();
        check(api->cuptiProfilerHostInitialize(&hi), "cuptiProfilerHostInitialize");
        c.host = hi.pHostObject;
        // Registered before the next check, so that the host object is freed on every path.
        Config &stored = configs[key] = c;
        auto add = params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
        add.pHostObject = stored.host;
        add.ppMetricNames = names.data();
        add.numMetrics = names.size();
        if (CUptiResult r = api->cuptiProfilerHostConfigAddMetrics(&add); r != CUPTI_SUCCESS) {
            std::string list;
            for (const auto &m : metrics) list += (list.empty() ? "" : ", ") + m;
            fail(GM_ERROR_NOT_SUPPORTED, explain(*api, r, "cuptiProfilerHostConfigAddMetrics") + " (metrics " + list +
                                             " on chip " + chip + ")");
        }
        auto size = params<CUpti_Profiler_Host_GetConfigImageSize_Params>(CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
        size.pHostObject = stored.host;
        check(api->cuptiProfilerHostGetConfigImageSize(&size), "cuptiProfilerHostGetConfigImageSize");
        stored.image.assign(size.configImageSize, 0);
        auto img = params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
        img.pHostObject = stored.host;
        img.configImageSize = stored.image.size();
        img.pConfigImage = stored.image.data();
        check(api->cuptiProfilerHostGetConfigImage(&img), "cuptiProfilerHostGetConfigImage");
        auto np = params<CUpti_Profiler_Host_GetNumOfPasses_Params>(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
        np.configImageSize = stored.image.size();
        np.pConfigImage = stored.image.data();
        check(api->cuptiProfilerHostGetNumOfPasses(&np), "cuptiProfilerHostGetNumOfPasses");
        stored.passes = np.numOfPasses;
        return stored;
    }

    // The range profiler stays enabled on the context from the first count to
    // the end of the session: enabling it costs more than a count. It only
    // collects between Start and Stop, so the timed launches in between run
    // as without it (checked by measuring: docs/result-schema.md).
    CUpti_RangeProfiler_Object *object = nullptr;
    // The configuration (key of `configs`) the enabled object collects: measured
    // on an H100 with CUDA 13, a later SetConfig with other metrics succeeds but
    // the object keeps collecting the counters of its first configuration (the
    // others evaluate to NaN). So a new set of metrics re-enables the object.
    std::string configured;

    CUpti_RangeProfiler_Object *enabled(const std::string &key) {
        if (object && configured != key) disable();
        if (!object) {
            auto p = params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
            p.ctx = ctx;
            check(api->cuptiRangeProfilerEnable(&p), "cuptiRangeProfilerEnable");
            object = p.pRangeProfilerObject;
            configured.clear();
        }
        return object;
    }

    void disable() {
        if (!object) return;
        auto p = params<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
        p.pRangeProfilerObject = object;
        api->cuptiRangeProfilerDisable(&p);
        object = nullptr;
        configured.clear();
    }

    // Stops a started pass on every path out of a count.
    struct Running {
        const Impl &impl;
        bool started = false;
        explicit Running(const Impl &i) : impl(i) {}
        ~Running() {
            if (!started) return;
            auto s = params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
            s.pRangeProfilerObject = impl.object;
            impl.api->cuptiRangeProfilerStop(&s);
        }
        Running(const Running &) = delete;
        Running &operator=(const Running &) = delete;
    };

    std::map<std::string, double> count(const std::vector<std::string> &metrics, const std::function<int()> &run,
                                        const std::function<int()> &prepare, std::size_t *passes_out) {
        initialize();
        std::vector<const char *> names;
        for (const auto &m : metrics) names.push_back(m.c_str());
        Config &cfg = config(metrics, names);
        std::string key;
        for (const auto &m : metrics) key += m + ",";

        struct {
            CUpti_RangeProfiler_Object *object;
        } on{enabled(key)};
        Running running(*this);
        auto ds = params<CUpti_RangeProfiler_GetCounterDataSize_Params>(CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
        ds.pRangeProfilerObject = on.object;
        ds.pMetricNames = names.data();
        ds.numMetrics = names.size();
        ds.maxNumOfRanges = 1;
        ds.maxNumRangeTreeNodes = 1;
        check(api->cuptiRangeProfilerGetCounterDataSize(&ds), "cuptiRangeProfilerGetCounterDataSize");
        std::vector<std::uint8_t> data(ds.counterDataSize, 0);
        auto di = params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
        di.pRangeProfilerObject = on.object;
        di.counterDataSize = data.size();
        di.pCounterData = data.data();
        check(api->cuptiRangeProfilerCounterDataImageInitialize(&di), "cuptiRangeProfilerCounterDataImageInitialize");

        auto sc = params<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
        sc.pRangeProfilerObject = on.object;
        sc.configSize = cfg.image.size();
        sc.pConfig = cfg.image.data();
        sc.counterDataImageSize = data.size();
        sc.pCounterDataImage = data.data();
        sc.range = CUPTI_UserRange;
        sc.replayMode = CUPTI_UserReplay;
        sc.maxRangesPerPass = 1;
        sc.numNestingLevels = 1;
        sc.minNestingLevel = 1;
        sc.passIndex = 0;
        sc.targetNestingLevel = 1;
        check(api->cuptiRangeProfilerSetConfig(&sc), "cuptiRangeProfilerSetConfig");
        configured = key;

        std::size_t passes = 0;
        for (bool all_submitted = false; !all_submitted;) {
            if (++passes > 64) fail(GM_ERROR_NOT_SUPPORTED, "the range profiler asked for more than 64 passes");
            if (prepare)
                if (int err = prepare(); err != 0)
                    fail(GM_ERROR_CUDA, std::string("preparing the counted launch failed: ") +
                                            cudaGetErrorString(static_cast<cudaError_t>(err)));
            auto st = params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
            st.pRangeProfilerObject = on.object;
            check(api->cuptiRangeProfilerStart(&st), "cuptiRangeProfilerStart");
            running.started = true;
            auto push = params<CUpti_RangeProfiler_PushRange_Params>(CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE);
            push.pRangeProfilerObject = on.object;
            push.pRangeName = "gmlab";
            check(api->cuptiRangeProfilerPushRange(&push), "cuptiRangeProfilerPushRange");
            if (int err = run(); err != 0)
                fail(GM_ERROR_CUDA, std::string("the counted launch failed: ") +
                                        cudaGetErrorString(static_cast<cudaError_t>(err)));
            auto pop = params<CUpti_RangeProfiler_PopRange_Params>(CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE);
            pop.pRangeProfilerObject = on.object;
            check(api->cuptiRangeProfilerPopRange(&pop), "cuptiRangeProfilerPopRange");
            auto stop = params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
            stop.pRangeProfilerObject = on.object;
            running.started = false;
            check(api->cuptiRangeProfilerStop(&stop), "cuptiRangeProfilerStop");
            all_submitted = stop.isAllPassSubmitted != 0;
        }
        *passes_out = passes;
        auto dec = params<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
        dec.pRangeProfilerObject = on.object;
        check(api->cuptiRangeProfilerDecodeData(&dec), "cuptiRangeProfilerDecodeData");
        if (dec.numOfRangeDropped > 0)
            fail(GM_ERROR_NOT_SUPPORTED, "the range profiler dropped the counted range");

        auto info = params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
        info.pCounterDataImage = data.data();
        info.counterDataImageSize = data.size();
        check(api->cuptiRangeProfilerGetCounterDataInfo(&info), "cuptiRangeProfilerGetCounterDataInfo");
        if (info.numTotalRanges < 1) fail(GM_ERROR_NOT_SUPPORTED, "the range profiler recorded no range");
        std::vector<double> values(names.size(), 0.0);
        auto ev = params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
        ev.pHostObject = cfg.host;
        ev.pCounterDataImage = data.data();
        ev.counterDataImageSize = data.size();
        ev.rangeIndex = 0;
        ev.ppMetricNames = names.data();
        ev.numMetrics = names.size();
        ev.pMetricValues = values.data();
        check(api->cuptiProfilerHostEvaluateToGpuValues(&ev), "cuptiProfilerHostEvaluateToGpuValues");
        std::map<std::string, double> out;
        for (std::size_t i = 0; i < metrics.size(); ++i) out[metrics[i]] = values[i];
        return out;
    }
};

CounterSession::CounterSession(void *cu_context, int device) : impl_(std::make_unique<Impl>()) {
    impl_->ctx = static_cast<CUcontext>(cu_context);
    impl_->device = device;
}

#else

struct CounterSession::Impl {
    std::shared_ptr<const CuptiApi> api;
    std::map<std::string, double> count(const std::vector<std::string> &, const std::function<int()> &,
                                        const std::function<int()> &, std::size_t *) {
        fail(GM_ERROR_NOT_SUPPORTED, load_cupti().reason);
    }
    std::string chip;
};

CounterSession::CounterSession(void *, int) : impl_(std::make_unique<Impl>()) {}

#endif

CounterSession::~CounterSession() = default;

const CounterAvailability &CounterSession::availability(const std::function<int()> &probe) {
    if (availability_.checked) return availability_;
    availability_.checked = true;
    const CuptiLoad &load = load_cupti();
    if (!load.api) {
        availability_.reason = load.reason;
        return availability_;
    }
    impl_->api = load.api;
    try {
        count({"dram__bytes_read.sum"}, probe);
        availability_.available = true;
        availability_.chip = impl_->chip;
    } catch (const Error &e) {
        availability_.reason = e.what();
    } catch (const std::exception &e) {
        availability_.reason = std::string("counting failed: ") + e.what();
    }
    return availability_;
}

std::map<std::string, double> CounterSession::count(const std::vector<std::string> &metrics,
                                                    const std::function<int()> &run,
                                                    const std::function<int()> &prepare) {
    if (!impl_->api) fail(GM_ERROR_NOT_SUPPORTED, "counters are not available");
    const auto t0 = std::chrono::steady_clock::now();
    // The time in the experiment's own work, apart from the profiler's.
    auto timed = [this](const std::function<int()> &f) -> std::function<int()> {
        if (!f) return f;
        return [this, &f]() {
            const auto s = std::chrono::steady_clock::now();
            const int rc = f();
            launch_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count();
            return rc;
        };
    };
    try {
        auto out = impl_->count(metrics, timed(run), timed(prepare), &last_passes_);
        seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return out;
    } catch (...) {
        seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        throw;
    }
}

// ---------------------------------------------------------------------------
// A fake CUPTI for tests: every call succeeds except the one named.

#if GM_HAVE_CUPTI_HEADERS

namespace {

struct FakeState {
    std::string failing;
    CUptiResult status = CUPTI_SUCCESS;
    double value = 0;
};
FakeState g_fake;
int g_fake_object = 0;
std::uint8_t g_fake_chip_storage = 0;

CUptiResult fake(const char *call) { return g_fake.failing == call ? g_fake.status : CUPTI_SUCCESS; }

#define GM_FAKE(f, T) CUptiResult f##_fake(T *p)

CUptiResult cuptiGetResultString_fake(CUptiResult r, const char **s) {
    *s = r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ? "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES" : "CUPTI_ERROR_FAKE";
    return CUPTI_SUCCESS;
}
GM_FAKE(cuptiProfilerInitialize, CUpti_Profiler_Initialize_Params) {
    (void)p;
    return fake("cuptiProfilerInitialize");
}
GM_FAKE(cuptiProfilerDeviceSupported, CUpti_Profiler_DeviceSupported_Params) {
    const bool unsupported = g_fake.failing == "architecture";
    p->isSupported = unsupported ? CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED : CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
    p->architecture = p->isSupported;
    p->sli = p->vGpu = p->confidentialCompute = p->cmp = p->wsl = CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
    return fake("cuptiProfilerDeviceSupported");
}
GM_FAKE(cuptiDeviceGetChipName, CUpti_Device_GetChipName_Params) {
    p->pChipName = "FAKE100";
    return fake("cuptiDeviceGetChipName");
}
GM_FAKE(cuptiProfilerGetCounterAvailability, CUpti_Profiler_GetCounterAvailability_Params) {
    if (!p->pCounterAvailabilityImage) p->counterAvailabilityImageSize = 16;
    return fake("cuptiProfilerGetCounterAvailability");
}
GM_FAKE(cuptiProfilerHostInitialize, CUpti_Profiler_Host_Initialize_Params) {
    p->pHostObject = reinterpret_cast<CUpti_Profiler_Host_Object *>(&g_fake_chip_storage);
    return fake("cuptiProfilerHostInitialize");
}
GM_FAKE(cuptiProfilerHostDeinitialize, CUpti_Profiler_Host_Deinitialize_Params) {
    (void)p;
    return CUPTI_SUCCESS;
}
GM_FAKE(cuptiProfilerHostConfigAddMetrics, CUpti_Profiler_Host_ConfigAddMetrics_Params) {
    (void)p;
    return fake("cuptiProfilerHostConfigAddMetrics");
}
GM_FAKE(cuptiProfilerHostGetConfigImageSize, CUpti_Profiler_Host_GetConfigImageSize_Params) {
    p->configImageSize = 64;
    return fake("cuptiProfilerHostGetConfigImageSize");
}
GM_FAKE(cuptiProfilerHostGetConfigImage, CUpti_Profiler_Host_GetConfigImage_Params) {
    (void)p;
    return fake("cuptiProfilerHostGetConfigImage");
}
GM_FAKE(cuptiProfilerHostGetNumOfPasses, CUpti_Profiler_Host_GetNumOfPasses_Params) {
    p->numOfPasses = 1;
    return fake("cuptiProfilerHostGetNumOfPasses");
}
GM_FAKE(cuptiProfilerHostEvaluateToGpuValues, CUpti_Profiler_Host_EvaluateToGpuValues_Params) {
    for (std::size_t i = 0; i < p->numMetrics; ++i) p->pMetricValues[i] = g_fake.value;
    return fake("cuptiProfilerHostEvaluateToGpuValues");
}
GM_FAKE(cuptiRangeProfilerEnable, CUpti_RangeProfiler_Enable_Params) {
    p->pRangeProfilerObject = reinterpret_cast<CUpti_RangeProfiler_Object *>(&g_fake_object);
    return fake("cuptiRangeProfilerEnable");
}
GM_FAKE(cuptiRangeProfilerDisable, CUpti_RangeProfiler_Disable_Params) {
    (void)p;
    return CUPTI_SUCCESS;
}
GM_FAKE(cuptiRangeProfilerGetCounterDataSize, CUpti_RangeProfiler_GetCounterDataSize_Params) {
    p->counterDataSize = 128;
    return fake("cuptiRangeProfilerGetCounterDataSize");
}
GM_FAKE(cuptiRangeProfilerCounterDataImageInitialize, CUpti_RangeProfiler_CounterDataImage_Initialize_Params) {
    (void)p;
    return fake("cuptiRangeProfilerCounterDataImageInitialize");
}
GM_FAKE(cuptiRangeProfilerSetConfig, CUpti_RangeProfiler_SetConfig_Params) {
    (void)p;
    return fake("cuptiRangeProfilerSetConfig");
}
GM_FAKE(cuptiRangeProfilerStart, CUpti_RangeProfiler_Start_Params) {
    (void)p;
    return fake("cuptiRangeProfilerStart");
}
GM_FAKE(cuptiRangeProfilerStop, CUpti_RangeProfiler_Stop_Params) {
    p->isAllPassSubmitted = 1;
    return fake("cuptiRangeProfilerStop");
}
GM_FAKE(cuptiRangeProfilerPushRange, CUpti_RangeProfiler_PushRange_Params) {
    (void)p;
    return fake("cuptiRangeProfilerPushRange");
}
GM_FAKE(cuptiRangeProfilerPopRange, CUpti_RangeProfiler_PopRange_Params) {
    (void)p;
    return fake("cuptiRangeProfilerPopRange");
}
GM_FAKE(cuptiRangeProfilerDecodeData, CUpti_RangeProfiler_DecodeData_Params) {
    p->numOfRangeDropped = 0;
    return fake("cuptiRangeProfilerDecodeData");
}
GM_FAKE(cuptiRangeProfilerGetCounterDataInfo, CUpti_RangeProfiler_GetCounterDataInfo_Params) {
    p->numTotalRanges = 1;
    return fake("cuptiRangeProfilerGetCounterDataInfo");
}
#undef GM_FAKE

}  // namespace

std::shared_ptr<const CuptiApi> fake_cupti_api(const std::string &failing_call, int status, double value) {
    g_fake.failing = failing_call;
    g_fake.status = static_cast<CUptiResult>(status);
    g_fake.value = value;
    auto api = std::make_shared<CuptiApi>();
#define GM_FAKE_SET(f) api->f = &f##_fake;
    GM_CUPTI_FUNCTIONS(GM_FAKE_SET)
#undef GM_FAKE_SET
    return api;
}

#else

std::shared_ptr<const CuptiApi> fake_cupti_api(const std::string &, int, double) { return nullptr; }

#endif

}  // namespace gmlab
