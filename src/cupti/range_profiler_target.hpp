// The range profiler's collection on the device, the calls the library's
// counters (src/core/counters/counter_session.cpp) and explain's injection
// library (src/inject/counter_pass.cpp) make alike: the profiler
// initialised, enabled on a context, a counter data image for a
// configuration, the configuration set, a pass started and stopped, the
// collected data decoded. What differs between them (user or auto ranges,
// user or kernel replay, how many ranges, pushing a named range) stays with
// each caller as arguments or calls of its own.
//
// Header only, for the reason and with the Api and check of
// range_profiler_host.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>

#include "cupti/cupti_params.hpp"

namespace gmcupti {

template <class Api, class Check> void profiler_initialize(const Api &api, const Check &check) {
    auto init = GM_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
    check(api.cuptiProfilerInitialize(&init), "cuptiProfilerInitialize");
}

// The range profiler enabled on a context: the object every later call names.
template <class Api, class Check>
CUpti_RangeProfiler_Object *enable(const Api &api, const Check &check, CUcontext ctx) {
    auto p = GM_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params);
    p.ctx = ctx;
    check(api.cuptiRangeProfilerEnable(&p), "cuptiRangeProfilerEnable");
    return p.pRangeProfilerObject;
}

// Disables the profiler object. Unchecked: it runs at teardown (a context
// being destroyed, a session ending), where nothing is left to report to.
template <class Api> void disable(const Api &api, CUpti_RangeProfiler_Object *object) {
    auto p = GM_CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params);
    p.pRangeProfilerObject = object;
    api.cuptiRangeProfilerDisable(&p);
}

// A counter data image, initialised, for `metrics` in up to `ranges` ranges.
template <class Api, class Check>
std::vector<std::uint8_t> counter_data_image(const Api &api, const Check &check, CUpti_RangeProfiler_Object *object,
                                             const std::vector<const char *> &metrics, std::size_t ranges) {
    auto ds = GM_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
    ds.pRangeProfilerObject = object;
    ds.pMetricNames = const_cast<const char **>(metrics.data());  // read only; CUPTI's field is not const
    ds.numMetrics = metrics.size();
    ds.maxNumOfRanges = ranges;
    ds.maxNumRangeTreeNodes = static_cast<std::uint32_t>(ranges);
    check(api.cuptiRangeProfilerGetCounterDataSize(&ds), "cuptiRangeProfilerGetCounterDataSize");
    std::vector<std::uint8_t> data(ds.counterDataSize, 0);
    auto di = GM_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
    di.pRangeProfilerObject = object;
    di.counterDataSize = data.size();
    di.pCounterData = data.data();
    check(api.cuptiRangeProfilerCounterDataImageInitialize(&di), "cuptiRangeProfilerCounterDataImageInitialize");
    return data;
}

// The configuration image and the counter data the next passes fill: one
// nesting level, from pass 0, up to `ranges_per_pass` ranges of kind `range`
// replayed as `replay` says. `data` must outlive the passes.
template <class Api, class Check>
void set_config(const Api &api, const Check &check, CUpti_RangeProfiler_Object *object,
                const std::vector<std::uint8_t> &config, std::vector<std::uint8_t> &data, CUpti_ProfilerRange range,
                CUpti_ProfilerReplayMode replay, std::size_t ranges_per_pass) {
    auto sc = GM_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
    sc.pRangeProfilerObject = object;
    sc.configSize = config.size();
    sc.pConfig = config.data();
    sc.counterDataImageSize = data.size();
    sc.pCounterDataImage = data.data();
    sc.range = range;
    sc.replayMode = replay;
    sc.maxRangesPerPass = ranges_per_pass;
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    sc.passIndex = 0;
    sc.targetNestingLevel = 1;
    check(api.cuptiRangeProfilerSetConfig(&sc), "cuptiRangeProfilerSetConfig");
}

template <class Api, class Check> void start(const Api &api, const Check &check, CUpti_RangeProfiler_Object *object) {
    auto st = GM_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params);
    st.pRangeProfilerObject = object;
    check(api.cuptiRangeProfilerStart(&st), "cuptiRangeProfilerStart");
}

// Ends a pass; true once every pass the configuration needs has been submitted.
template <class Api, class Check> bool stop(const Api &api, const Check &check, CUpti_RangeProfiler_Object *object) {
    auto stop = GM_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params);
    stop.pRangeProfilerObject = object;
    check(api.cuptiRangeProfilerStop(&stop), "cuptiRangeProfilerStop");
    return stop.isAllPassSubmitted != 0;
}

// Decodes what the passes collected into the counter data image; returns how
// many ranges were dropped.
template <class Api, class Check>
std::size_t decode_data(const Api &api, const Check &check, CUpti_RangeProfiler_Object *object) {
    auto dec = GM_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
    dec.pRangeProfilerObject = object;
    check(api.cuptiRangeProfilerDecodeData(&dec), "cuptiRangeProfilerDecodeData");
    return dec.numOfRangeDropped;
}

// How many ranges decoded counter data holds.
template <class Api, class Check>
std::size_t counter_data_ranges(const Api &api, const Check &check, const std::vector<std::uint8_t> &data) {
    auto info = GM_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
    info.pCounterDataImage = data.data();
    info.counterDataImageSize = data.size();
    check(api.cuptiRangeProfilerGetCounterDataInfo(&info), "cuptiRangeProfilerGetCounterDataInfo");
    return info.numTotalRanges;
}

}  // namespace gmcupti
