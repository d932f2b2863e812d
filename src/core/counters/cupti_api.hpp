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

#include "cupti/cupti_functions.hpp"
#else
#define GM_HAVE_CUPTI_HEADERS 0
#endif

namespace gmlab {

#if GM_HAVE_CUPTI_HEADERS

// The range profiler's sequence (shared with explain's injection library),
// and what only the counters call.
#define GM_CUPTI_FUNCTIONS(X)                    \
    X(cuptiGetResultString)                      \
    X(cuptiProfilerDeviceSupported)              \
    GM_CUPTI_RANGE_PROFILER_FUNCTIONS(X)         \
    X(cuptiRangeProfilerPushRange)               \
    X(cuptiRangeProfilerPopRange)

struct CuptiApi {
#define GM_CUPTI_MEMBER(f) decltype(&::f) f = nullptr;
    GM_CUPTI_FUNCTIONS(GM_CUPTI_MEMBER)
#undef GM_CUPTI_MEMBER
};

// The activity API, for the unified-memory counters: it needs libcupti only
// (not libnvperf_host, not the range profiler), so it is loaded on its own.
#define GM_CUPTI_COUNTER_ACTIVITY_FUNCTIONS(X) \
    X(cuptiGetResultString)                    \
    GM_CUPTI_ACTIVITY_FUNCTIONS(X)

struct CuptiActivityApi {
#define GM_CUPTI_MEMBER(f) decltype(&::f) f = nullptr;
    GM_CUPTI_COUNTER_ACTIVITY_FUNCTIONS(GM_CUPTI_MEMBER)
#undef GM_CUPTI_MEMBER
};

#else

struct CuptiApi {};
struct CuptiActivityApi {};

#endif

}  // namespace gmlab
