// The CUPTI functions the counters use, as tables of pointers: filled by
// dlsym (cupti_loader.cpp) or by the fakes for tests (fake_cupti.cpp,
// fake_cupti_activity.cpp), and called by the range-profiler session
// (counter_session.cpp) and the unified-memory counters
// (unified_memory_activity.cpp). Private to src/core/counters.
#pragma once

#if __has_include(<cupti_range_profiler.h>) && __has_include(<cupti_profiler_host.h>)
#define GM_HAVE_CUPTI_HEADERS 1
#include <cupti_activity.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>
#else
#define GM_HAVE_CUPTI_HEADERS 0
#endif

namespace gmlab {

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

// The activity API, for the unified-memory counters: it needs libcupti only
// (not libnvperf_host, not the range profiler), so it is loaded on its own.
#define GM_CUPTI_ACTIVITY_FUNCTIONS(X)           \
    X(cuptiGetResultString)                      \
    X(cuptiActivityConfigureUnifiedMemoryCounter) \
    X(cuptiActivityRegisterCallbacks)            \
    X(cuptiActivityEnable)                       \
    X(cuptiActivityDisable)                      \
    X(cuptiActivityFlushAll)                     \
    X(cuptiActivityGetNextRecord)

struct CuptiActivityApi {
#define GM_CUPTI_MEMBER(f) decltype(&::f) f = nullptr;
    GM_CUPTI_ACTIVITY_FUNCTIONS(GM_CUPTI_MEMBER)
#undef GM_CUPTI_MEMBER
};

#else

struct CuptiApi {};
struct CuptiActivityApi {};

#endif

}  // namespace gmlab
