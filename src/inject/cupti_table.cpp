#include "inject/cupti_table.hpp"

#include <dlfcn.h>

#include <mutex>

#include "cupti/open_libcupti.hpp"

namespace gmexplain {

namespace {

CuptiTable load() {
    CuptiTable t;
    const gmcupti::OpenedCupti opened = gmcupti::open_libcupti();
    void *h = opened.handle;
    t.library = opened.library;
    if (!h) {
        t.reason = "libcupti could not be loaded (" + opened.error +
                   "); add the CUDA toolkit's lib64 (or the cuda-cupti package's folder) to LD_LIBRARY_PATH, "
                   "or name the file in GM_CUPTI_LIBRARY";
        t.profiler_reason = t.reason;
        t.sass_reason = t.reason;
        return t;
    }
    // Each function looked up; the first one missing of a group says why that
    // group (tracing, counting, source lines) is unavailable.
#define GMX_LOAD_INTO(f, why, needs)                                            \
    t.f = reinterpret_cast<decltype(t.f)>(dlsym(h, #f));                        \
    if (!t.f && t.why.empty()) t.why = t.library + " has no " #f + std::string(needs);
#define GMX_LOAD(f) GMX_LOAD_INTO(f, reason, "")
#define GMX_LOAD_PROFILER(f) GMX_LOAD_INTO(f, profiler_reason, ": counting needs the CUPTI range profiler of CUDA 12.6 or later")
#define GMX_LOAD_SASS(f) GMX_LOAD_INTO(f, sass_reason, ": source lines need CUPTI's SASS metrics API (CUDA 12.4 or later)")
    GMX_CUPTI_FUNCTIONS(GMX_LOAD)
    GMX_PROFILER_FUNCTIONS(GMX_LOAD_PROFILER)
    GMX_SASS_FUNCTIONS(GMX_LOAD_SASS)
#undef GMX_LOAD_SASS
#undef GMX_LOAD_PROFILER
#undef GMX_LOAD
#undef GMX_LOAD_INTO
    if (!t.reason.empty() && t.profiler_reason.empty()) t.profiler_reason = t.reason;
    // The SASS metrics API also needs the profiler's initialisation and chip name.
    if (t.sass_reason.empty() && !t.reason.empty()) t.sass_reason = t.reason;
    if (t.sass_reason.empty() && (!t.cuptiProfilerInitialize || !t.cuptiDeviceGetChipName))
        t.sass_reason = t.library + " has no cuptiProfilerInitialize or cuptiDeviceGetChipName: source lines need them";
    return t;
}

}  // namespace

const CuptiTable &cupti() {
    static std::once_flag once;
    static CuptiTable table;
    std::call_once(once, [] { table = load(); });
    return table;
}

std::string cupti_error(CUptiResult r) {
    const char *s = nullptr;
    const auto &t = cupti();
    if (t.cuptiGetResultString && t.cuptiGetResultString(r, &s) == CUPTI_SUCCESS && s) return s;
    return "CUPTI error " + std::to_string(static_cast<int>(r));
}

}  // namespace gmexplain
