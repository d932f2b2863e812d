// One device context's counter session: the CUPTI range profiler with one
// user range and user replay, through the calls src/cupti writes once for this
// session and explain's injection library.
#include <chrono>
#include <cstdint>
#include <cstring>

#include <cuda_runtime_api.h>

#include "core/counters/counters.hpp"
#include "core/counters/cupti_api.hpp"
#include "core/error.hpp"
#include "cupti/cupti_params.hpp"

#if GM_HAVE_CUPTI_HEADERS
#include "cupti/range_profiler_host.hpp"
#include "cupti/range_profiler_target.hpp"
#endif

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
    std::map<std::string, gmcupti::HostConfig> configs;  // by the metric names joined with ','

    ~Impl() {
        if (api) disable();
        for (auto &[key, c] : configs) gmcupti::release_host(*api, c.host);
    }

    void check(CUptiResult r, const char *call) const {
        if (r != CUPTI_SUCCESS) fail(GM_ERROR_NOT_SUPPORTED, explain(*api, r, call));
    }
    // check() as the shared range-profiler sequence (src/cupti) calls it.
    auto checked() const {
        return [this](CUptiResult r, const char *call) { check(r, call); };
    }

    void initialize() {
        if (initialized) return;
        gmcupti::profiler_initialize(*api, checked());

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

        chip = gmcupti::chip_name(*api, checked(), static_cast<std::size_t>(device));
        availability_image = gmcupti::counter_availability(*api, checked(), ctx);
        initialized = true;
    }

    // The configuration of `metrics` (key: their names joined), built on first
    // use and kept for the session. A metric the chip refuses is named with
    // the chip in the error.
    const gmcupti::HostConfig &config(const std::string &key, const std::vector<std::string> &metrics,
                                      const std::vector<const char *> &names) {
        auto it = configs.find(key);
        if (it != configs.end()) return it->second;
        auto naming_metrics = [&](CUptiResult r, const char *call) {
            if (r == CUPTI_SUCCESS) return;
            std::string why = explain(*api, r, call);
            if (std::strcmp(call, "cuptiProfilerHostConfigAddMetrics") == 0) {
                std::string list;
                for (const auto &m : metrics) list += (list.empty() ? "" : ", ") + m;
                why += " (metrics " + list + " on chip " + chip + ")";
            }
            fail(GM_ERROR_NOT_SUPPORTED, why);
        };
        // Kept once complete: configure_host frees the host object itself when a step fails.
        gmcupti::HostConfig c = gmcupti::configure_host(*api, naming_metrics, chip, availability_image, names, true);
        return configs[key] = std::move(c);
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
            object = gmcupti::enable(*api, checked(), ctx);
            configured.clear();
        }
        return object;
    }

    void disable() {
        if (!object) return;
        gmcupti::disable(*api, object);
        object = nullptr;
        configured.clear();
    }

    // Stops a started pass on every path out of a count (its result ignored:
    // the count is already failing with the error that matters).
    struct Running {
        const Impl &impl;
        bool started = false;
        explicit Running(const Impl &i) : impl(i) {}
        ~Running() {
            if (started) gmcupti::stop(*impl.api, [](CUptiResult, const char *) {}, impl.object);
        }
        Running(const Running &) = delete;
        Running &operator=(const Running &) = delete;
    };

    // User replay of one user range: each pass prepared, started, the range
    // pushed around the launch, stopped, until CUPTI has every pass it needs.
    std::size_t run_passes(CUpti_RangeProfiler_Object *on, Running &running, const std::function<int()> &run,
                           const std::function<int()> &prepare) {
        std::size_t passes = 0;
        for (bool all_submitted = false; !all_submitted;) {
            if (++passes > 64) fail(GM_ERROR_NOT_SUPPORTED, "the range profiler asked for more than 64 passes");
            if (prepare) fail_on_cuda_error(prepare(), "preparing the counted launch");
            gmcupti::start(*api, checked(), on);
            running.started = true;
            auto push = GM_CUPTI_PARAMS(CUpti_RangeProfiler_PushRange_Params);
            push.pRangeProfilerObject = on;
            push.pRangeName = "gmlab";
            check(api->cuptiRangeProfilerPushRange(&push), "cuptiRangeProfilerPushRange");
            fail_on_cuda_error(run(), "the counted launch");
            auto pop = GM_CUPTI_PARAMS(CUpti_RangeProfiler_PopRange_Params);
            pop.pRangeProfilerObject = on;
            check(api->cuptiRangeProfilerPopRange(&pop), "cuptiRangeProfilerPopRange");
            running.started = false;
            all_submitted = gmcupti::stop(*api, checked(), on);
        }
        return passes;
    }

    std::map<std::string, double> count(const std::vector<std::string> &metrics, const std::function<int()> &run,
                                        const std::function<int()> &prepare, std::size_t *passes_out) {
        initialize();
        std::vector<const char *> names;
        for (const auto &m : metrics) names.push_back(m.c_str());
        std::string key;
        for (const auto &m : metrics) key += m + ",";
        const gmcupti::HostConfig &cfg = config(key, metrics, names);

        CUpti_RangeProfiler_Object *on = enabled(key);
        Running running(*this);
        std::vector<std::uint8_t> data = gmcupti::counter_data_image(*api, checked(), on, names, 1);
        gmcupti::set_config(*api, checked(), on, cfg.image, data, CUPTI_UserRange, CUPTI_UserReplay, 1);
        configured = key;

        *passes_out = run_passes(on, running, run, prepare);
        if (gmcupti::decode_data(*api, checked(), on) > 0)
            fail(GM_ERROR_NOT_SUPPORTED, "the range profiler dropped the counted range");
        if (gmcupti::counter_data_ranges(*api, checked(), data) < 1)
            fail(GM_ERROR_NOT_SUPPORTED, "the range profiler recorded no range");
        const std::vector<double> values = gmcupti::evaluate(*api, checked(), cfg.host, data, 0, names);
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
