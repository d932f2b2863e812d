#include "inject/cupti_table.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <iterator>
#include <mutex>
#include <vector>

namespace gmexplain {

namespace {

void *open_cupti(std::string *name, std::string *error) {
    const std::vector<std::string> names(std::begin(gmcupti::kCuptiLibraryNames), std::end(gmcupti::kCuptiLibraryNames));
    // A libcupti the program already loaded is the one to share: two copies in
    // one process would each believe they own the profiler.
    for (const auto &n : names)
        if (void *h = dlopen(n.c_str(), RTLD_NOW | RTLD_NOLOAD)) {
            *name = n;
            return h;
        }
    std::vector<std::string> tries;
    if (const char *env = std::getenv("GM_CUPTI_LIBRARY"); env && *env) tries.push_back(env);
    tries.insert(tries.end(), names.begin(), names.end());
    tries.insert(tries.end(), std::begin(gmcupti::kCuptiLibraryPaths), std::end(gmcupti::kCuptiLibraryPaths));
    for (const auto &n : tries) {
        if (void *h = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL)) {
            *name = n;
            return h;
        }
        if (error->empty())
            if (const char *e = dlerror()) *error = e;
    }
    return nullptr;
}

CuptiTable load() {
    CuptiTable t;
    std::string error;
    void *h = open_cupti(&t.library, &error);
    if (!h) {
        t.reason = "libcupti could not be loaded (" + error +
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
