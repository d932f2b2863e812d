// The range profiler's host sequence, written once for the library's counters
// (src/core/counters/counter_session.cpp) and explain's injection library
// (src/inject/counter_pass.cpp): the chip and its counter
// availability, a configuration of metrics (host object, configuration image,
// passes), and counter data evaluated into metric values.
//
// Header only: the injection library links no libgmlab, so each side compiles
// these templates against its own table of loaded functions (Api: any struct
// with the GM_CUPTI_RANGE_PROFILER_FUNCTIONS members of cupti_functions.hpp).
// Each side keeps its own error model: `check(result, "cuptiCall")` is called
// after every call and must throw when the result is not CUPTI_SUCCESS.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_result.h>
#include <cupti_target.h>

#include "cupti/cupti_params.hpp"

namespace gmcupti {

// The chip's name as the profiler knows it ("gh100"), for a device ordinal.
template <class Api, class Check> std::string chip_name(const Api &api, const Check &check, std::size_t device) {
    auto name = GM_CUPTI_PARAMS(CUpti_Device_GetChipName_Params);
    name.deviceIndex = device;
    check(api.cuptiDeviceGetChipName(&name), "cuptiDeviceGetChipName");
    return name.pChipName ? name.pChipName : "";
}

// The context's counter availability image: asked once for its size, once for its bytes.
template <class Api, class Check>
std::vector<std::uint8_t> counter_availability(const Api &api, const Check &check, CUcontext ctx) {
    auto av = GM_CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params);
    av.ctx = ctx;
    check(api.cuptiProfilerGetCounterAvailability(&av), "cuptiProfilerGetCounterAvailability");
    std::vector<std::uint8_t> image(av.counterAvailabilityImageSize, 0);
    av.pCounterAvailabilityImage = image.data();
    check(api.cuptiProfilerGetCounterAvailability(&av), "cuptiProfilerGetCounterAvailability");
    return image;
}

// A host object configured with metrics on one chip: its configuration image
// and how many passes that needs (both left empty when built without image).
struct HostConfig {
    CUpti_Profiler_Host_Object *host = nullptr;
    std::vector<std::uint8_t> image;
    std::size_t passes = 0;
};

// Frees a host object. Unchecked: it runs on the way out of a failure or at
// teardown, where the first error is the one worth reporting.
template <class Api> void release_host(const Api &api, CUpti_Profiler_Host_Object *host) {
    if (!host) return;
    auto de = GM_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
    de.pHostObject = host;
    api.cuptiProfilerHostDeinitialize(&de);
}

// A new host object for `chip` with `metrics` added and, with_image, its
// configuration image built and its passes counted. The caller owns the host
// object (release_host); when a step fails it is released before the throw.
template <class Api, class Check>
HostConfig configure_host(const Api &api, const Check &check, const std::string &chip,
                          std::vector<std::uint8_t> &availability, const std::vector<const char *> &metrics,
                          bool with_image) {
    auto hi = GM_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params);
    hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hi.pChipName = chip.c_str();
    hi.pCounterAvailabilityImage = availability.data();
    check(api.cuptiProfilerHostInitialize(&hi), "cuptiProfilerHostInitialize");
    HostConfig c;
    c.host = hi.pHostObject;
    try {
        auto add = GM_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
        add.pHostObject = c.host;
        add.ppMetricNames = const_cast<const char **>(metrics.data());  // read only; CUPTI's field is not const
        add.numMetrics = metrics.size();
        check(api.cuptiProfilerHostConfigAddMetrics(&add), "cuptiProfilerHostConfigAddMetrics");
        if (!with_image) return c;
        auto size = GM_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
        size.pHostObject = c.host;
        check(api.cuptiProfilerHostGetConfigImageSize(&size), "cuptiProfilerHostGetConfigImageSize");
        c.image.assign(size.configImageSize, 0);
        auto img = GM_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
        img.pHostObject = c.host;
        img.configImageSize = c.image.size();
        img.pConfigImage = c.image.data();
        check(api.cuptiProfilerHostGetConfigImage(&img), "cuptiProfilerHostGetConfigImage");
        auto np = GM_CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
        np.configImageSize = c.image.size();
        np.pConfigImage = c.image.data();
        check(api.cuptiProfilerHostGetNumOfPasses(&np), "cuptiProfilerHostGetNumOfPasses");
        c.passes = np.numOfPasses;
        return c;
    } catch (...) {
        release_host(api, c.host);
        throw;
    }
}

// The values of `metrics` (in their order) in range `range` of decoded counter
// data, through the host object they were configured on.
template <class Api, class Check>
std::vector<double> evaluate(const Api &api, const Check &check, CUpti_Profiler_Host_Object *host,
                             const std::vector<std::uint8_t> &data, std::size_t range,
                             const std::vector<const char *> &metrics) {
    std::vector<double> values(metrics.size(), 0.0);
    auto ev = GM_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
    ev.pHostObject = host;
    ev.pCounterDataImage = data.data();
    ev.counterDataImageSize = data.size();
    ev.rangeIndex = range;
    ev.ppMetricNames = const_cast<const char **>(metrics.data());  // read only; CUPTI's field is not const
    ev.numMetrics = metrics.size();
    ev.pMetricValues = values.data();
    check(api.cuptiProfilerHostEvaluateToGpuValues(&ev), "cuptiProfilerHostEvaluateToGpuValues");
    return values;
}

}  // namespace gmcupti
