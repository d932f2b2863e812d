// The CUPTI functions the injection library calls, loaded at run time
// (dlopen): the library links no libcupti, so that it loads into any CUDA
// program and says why it cannot trace or count where CUPTI is missing.
#pragma once

#include <string>

#include <cupti_activity.h>
#include <cupti_callbacks.h>
#include <cupti_pcsampling.h>
#include <cupti_driver_cbid.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include "cupti/cupti_functions.hpp"

namespace gmexplain {

// The activity API (its shared part with the library's counters, and what
// only the trace needs) and the callbacks.
#define GMX_CUPTI_FUNCTIONS(X)                       \
    X(cuptiGetResultString)                          \
    X(cuptiGetDeviceId)                              \
    X(cuptiSubscribe)                                \
    X(cuptiUnsubscribe)                              \
    X(cuptiEnableCallback)                           \
    GM_CUPTI_ACTIVITY_FUNCTIONS(X)                   \
    X(cuptiActivityFlushPeriod)                      \
    X(cuptiGetGraphNodeId)

// The range profiler's sequence, shared with the library's counters.
#define GMX_PROFILER_FUNCTIONS(X)                    \
    X(cuptiProfilerDeInitialize)                     \
    GM_CUPTI_RANGE_PROFILER_FUNCTIONS(X)             \
    X(cuptiRangeProfilerCounterDataGetRangeInfo)

// Pass 3 (--lines): SASS metrics per instruction and the cubin's line table.
#define GMX_SASS_FUNCTIONS(X)                        \
    X(cuptiSassMetricsGetNumOfMetrics)               \
    X(cuptiSassMetricsGetMetrics)                    \
    X(cuptiSassMetricsGetProperties)                 \
    X(cuptiSassMetricsSetConfig)                     \
    X(cuptiSassMetricsUnsetConfig)                   \
    X(cuptiSassMetricsEnable)                        \
    X(cuptiSassMetricsDisable)                       \
    X(cuptiSassMetricsGetDataProperties)             \
    X(cuptiSassMetricsFlushData)                     \
    X(cuptiGetSassToSourceCorrelation)               \
    X(cuptiGetCubinCrc)

struct CuptiTable {
#define GMX_MEMBER(f) decltype(&::f) f = nullptr;
    GMX_CUPTI_FUNCTIONS(GMX_MEMBER)
    GMX_PROFILER_FUNCTIONS(GMX_MEMBER)
    GMX_SASS_FUNCTIONS(GMX_MEMBER)
#undef GMX_MEMBER
    std::string library;          // the file that was loaded
    std::string reason;           // why tracing is impossible ("" when it is possible)
    std::string profiler_reason;  // why counting is impossible ("" when it is possible)
    std::string sass_reason;      // why source lines are impossible ("" when they are possible)
};

// Loads libcupti once, as gmcupti::open_libcupti finds it: GM_CUPTI_LIBRARY,
// else one already in the process (PyTorch may have loaded its own), else the usual names.
const CuptiTable &cupti();

// "CUPTI_ERROR_...: text" for a result code.
std::string cupti_error(CUptiResult r);

}  // namespace gmexplain
