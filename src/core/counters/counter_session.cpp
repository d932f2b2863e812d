// One device context's counter session: the CUPTI range profiler with one
// user range and user replay.
#include <chrono>
#include <cstdint>
#include <cstring>

#include <cuda_runtime_api.h>

#include "core/counters/counters.hpp"
#include "core/counters/cupti_api.hpp"
#include "core/error.hpp"
#include "cupti/cupti_params.hpp"

namespace gmlab {

#if GM_HAVE_CUPTI_HEADERS

namespace {

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

// The callbacks around the counted range return a cudaError_t as an int (the
// session's interface carries no CUDA types); any error ends the count.
void fail_on_cuda_error(int err, const char *what) {
    if (err != 0)
        fail(GM_ERROR_CUDA, std::string(what) + " failed: " + cudaGetErrorString(static_cast<cudaError_t>(err)));
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
            auto p = GM_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
            p.pHostObject = c.host;
            api->cuptiProfilerHostDeinitialize(&p);
        }
    }

    void check(CUptiResult r, const char *call) const {
        if (r != CUPTI_SUCCESS) fail(GM_ERROR_NOT_SUPPORTED, explain(*api, r, call));
    }

    void initialize() {
        if (initialized) return;
        auto init = GM_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
        check(api->cuptiProfilerInitialize(&init), "cuptiProfilerInitialize");

        auto sup = GM_CUPTI_PARAMS(CUpti_Profiler_DeviceSupported_Params);
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

        auto name = GM_CUPTI_PARAMS(CUpti_Device_GetChipName_Params);
        name.deviceIndex = static_cast<std::size_t>(device);
        check(api->cuptiDeviceGetChipName(&name), "cuptiDeviceGetChipName");
        chip = name.pChipName ? name.pChipName : "";

        auto av = GM_CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params);
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
        auto hi = GM_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params);
        hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
        hi.pChipName = chip.c_str();
        hi.pCounterAvailabilityImage = availability_image.data();
        check(api->cuptiProfilerHostInitialize(&hi), "cuptiProfilerHostInitialize");
        c.host = hi.pHostObject;
        // Registered before the next check, so that the host object is freed on every path.
        Config &stored = configs[key] = c;
        auto add = GM_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
        add.pHostObject = stored.host;
        add.ppMetricNames = names.data();
        add.numMetrics = names.size();
        if (CUptiResult r = api->cuptiProfilerHostConfigAddMetrics(&add); r != CUPTI_SUCCESS) {
            std::string list;
            for (const auto &m : metrics) list += (list.empty() ? "" : ", ") + m;
            fail(GM_ERROR_NOT_SUPPORTED, explain(*api, r, "cuptiProfilerHostConfigAddMetrics") + " (metrics " + list +
                                             " on chip " + chip + ")");
        }
        auto size = GM_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
        size.pHostObject = stored.host;
        check(api->cuptiProfilerHostGetConfigImageSize(&size), "cuptiProfilerHostGetConfigImageSize");
        stored.image.assign(size.configImageSize, 0);
        auto img = GM_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
        img.pHostObject = stored.host;
        img.configImageSize = stored.image.size();
        img.pConfigImage = stored.image.data();
        check(api->cuptiProfilerHostGetConfigImage(&img), "cuptiProfilerHostGetConfigImage");
        auto np = GM_CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
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
            auto p = GM_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params);
            p.ctx = ctx;
            check(api->cuptiRangeProfilerEnable(&p), "cuptiRangeProfilerEnable");
            object = p.pRangeProfilerObject;
            configured.clear();
        }
        return object;
    }

    void disable() {
        if (!object) return;
        auto p = GM_CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params);
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
            auto s = GM_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params);
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
        auto ds = GM_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
        ds.pRangeProfilerObject = on.object;
        ds.pMetricNames = names.data();
        ds.numMetrics = names.size();
        ds.maxNumOfRanges = 1;
        ds.maxNumRangeTreeNodes = 1;
        check(api->cuptiRangeProfilerGetCounterDataSize(&ds), "cuptiRangeProfilerGetCounterDataSize");
        std::vector<std::uint8_t> data(ds.counterDataSize, 0);
        auto di = GM_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
        di.pRangeProfilerObject = on.object;
        di.counterDataSize = data.size();
        di.pCounterData = data.data();
        check(api->cuptiRangeProfilerCounterDataImageInitialize(&di), "cuptiRangeProfilerCounterDataImageInitialize");

        auto sc = GM_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
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
            if (prepare) fail_on_cuda_error(prepare(), "preparing the counted launch");
            auto st = GM_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params);
            st.pRangeProfilerObject = on.object;
            check(api->cuptiRangeProfilerStart(&st), "cuptiRangeProfilerStart");
            running.started = true;
            auto push = GM_CUPTI_PARAMS(CUpti_RangeProfiler_PushRange_Params);
            push.pRangeProfilerObject = on.object;
            push.pRangeName = "gmlab";
            check(api->cuptiRangeProfilerPushRange(&push), "cuptiRangeProfilerPushRange");
            fail_on_cuda_error(run(), "the counted launch");
            auto pop = GM_CUPTI_PARAMS(CUpti_RangeProfiler_PopRange_Params);
            pop.pRangeProfilerObject = on.object;
            check(api->cuptiRangeProfilerPopRange(&pop), "cuptiRangeProfilerPopRange");
            auto stop = GM_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params);
            stop.pRangeProfilerObject = on.object;
            running.started = false;
            check(api->cuptiRangeProfilerStop(&stop), "cuptiRangeProfilerStop");
            all_submitted = stop.isAllPassSubmitted != 0;
        }
        *passes_out = passes;
        auto dec = GM_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
        dec.pRangeProfilerObject = on.object;
        check(api->cuptiRangeProfilerDecodeData(&dec), "cuptiRangeProfilerDecodeData");
        if (dec.numOfRangeDropped > 0)
            fail(GM_ERROR_NOT_SUPPORTED, "the range profiler dropped the counted range");

        auto info = GM_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
        info.pCounterDataImage = data.data();
        info.counterDataImageSize = data.size();
        check(api->cuptiRangeProfilerGetCounterDataInfo(&info), "cuptiRangeProfilerGetCounterDataInfo");
        if (info.numTotalRanges < 1) fail(GM_ERROR_NOT_SUPPORTED, "the range profiler recorded no range");
        std::vector<double> values(names.size(), 0.0);
        auto ev = GM_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
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

}  // namespace gmlab
