// The CUPTI functions the counters use, as a table of pointers: filled by
// dlsym (cupti_loader.cpp) or by the fake for tests (fake_cupti.cpp), and
// called by the session (counter_session.cpp). Private to src/core/counters.
#pragma once

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

}  // namespace gmlab
