// The CUPTI entry points gmlab calls, named once for the two places that load
// libcupti at run time: the library's counters (src/core/counters) and the
// injection library of gmlab explain (src/inject). Each builds its
// table of function pointers from these lists (X-macros: X(name) for each)
// and adds the few only it needs; the search list for libcupti is here too.
// Names only: no CUPTI header, nothing else of the tree.
#pragma once

namespace gmcupti {

// The range profiler's host and target sequence: the chip and its counters,
// a configuration of metrics, counter data, a range around launches, decoding.
#define GM_CUPTI_RANGE_PROFILER_FUNCTIONS(X)        \
    X(cuptiProfilerInitialize)                      \
    X(cuptiDeviceGetChipName)                       \
    X(cuptiProfilerGetCounterAvailability)          \
    X(cuptiProfilerHostInitialize)                  \
    X(cuptiProfilerHostDeinitialize)                \
    X(cuptiProfilerHostConfigAddMetrics)            \
    X(cuptiProfilerHostGetConfigImageSize)          \
    X(cuptiProfilerHostGetConfigImage)              \
    X(cuptiProfilerHostGetNumOfPasses)              \
    X(cuptiProfilerHostEvaluateToGpuValues)         \
    X(cuptiRangeProfilerEnable)                     \
    X(cuptiRangeProfilerDisable)                    \
    X(cuptiRangeProfilerGetCounterDataSize)         \
    X(cuptiRangeProfilerCounterDataImageInitialize) \
    X(cuptiRangeProfilerSetConfig)                  \
    X(cuptiRangeProfilerStart)                      \
    X(cuptiRangeProfilerStop)                       \
    X(cuptiRangeProfilerDecodeData)                 \
    X(cuptiRangeProfilerGetCounterDataInfo)

// The activity API as both use it: records delivered in buffers, and the
// unified-memory counters.
#define GM_CUPTI_ACTIVITY_FUNCTIONS(X)               \
    X(cuptiActivityConfigureUnifiedMemoryCounter)    \
    X(cuptiActivityRegisterCallbacks)                \
    X(cuptiActivityEnable)                           \
    X(cuptiActivityDisable)                          \
    X(cuptiActivityFlushAll)                         \
    X(cuptiActivityGetNextRecord)                    \
    X(cuptiActivityGetNumDroppedRecords)

// Where libcupti is looked for, in order, after GM_CUPTI_LIBRARY: the loader's
// path by soname, then the toolkit's usual folders.
inline constexpr const char *kCuptiLibraryNames[] = {"libcupti.so.13", "libcupti.so.12", "libcupti.so"};
inline constexpr const char *kCuptiLibraryPaths[] = {"/usr/local/cuda/lib64/libcupti.so",
                                                    "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so"};

}  // namespace gmcupti
