// Loads libcupti and libnvperf_host at run time (dlopen), so that libgmlab
// loads and measures without them and says why it cannot count.
#include <dlfcn.h>

#include <mutex>

#include "core/counters/counters.hpp"
#include "core/counters/cupti_api.hpp"
#include "cupti/open_libcupti.hpp"

namespace gmlab {

namespace {

std::mutex g_loader_mutex;
CuptiLoader g_test_loader;
std::unique_ptr<CuptiLoad> g_loaded;

std::string dl_error() {
    const char *e = dlerror();
    return e ? e : "unknown dlopen error";
}

#if GM_HAVE_CUPTI_HEADERS
// The activity API's table from an open libcupti, or why it is incomplete.
void load_activity_api(void *handle, CuptiLoad &out) {
    auto activity = std::make_shared<CuptiActivityApi>();
#define GM_CUPTI_LOAD_ACTIVITY(f)                                                                  \
    activity->f = reinterpret_cast<decltype(activity->f)>(dlsym(handle, #f));                     \
    if (!activity->f) {                                                                           \
        out.activity_reason = out.library + " has no " #f ": its activity API cannot count unified memory"; \
        return;                                                                                   \
    }
    GM_CUPTI_COUNTER_ACTIVITY_FUNCTIONS(GM_CUPTI_LOAD_ACTIVITY)
#undef GM_CUPTI_LOAD_ACTIVITY
    out.activity = std::move(activity);
}
#endif

CuptiLoad dlopen_cupti() {
    CuptiLoad out;
#if !GM_HAVE_CUPTI_HEADERS
    out.reason = "this libgmlab was built without the CUPTI headers (cupti_range_profiler.h), so it cannot count";
    out.activity_reason = out.reason;
    return out;
#else
    const gmcupti::OpenedCupti opened = gmcupti::open_libcupti();
    void *handle = opened.handle;
    out.library = opened.library;
    if (!handle) {
        out.reason = "libcupti (CUDA Profiling Tools Interface) could not be loaded (" + opened.error +
                     "); it comes with the CUDA toolkit (lib64/libcupti.so) or the cuda-cupti package: add its "
                     "directory to LD_LIBRARY_PATH or name the file in GM_CUPTI_LIBRARY";
        out.activity_reason = out.reason;
        return out;
    }
    load_activity_api(handle, out);
    // libnvperf_host evaluates the metrics; CUPTI loads it from its own
    // directory or the loader's path. Load it here to say so when it is missing.
    std::string dir;
    if (auto *sym = dlsym(handle, "cuptiGetResultString")) {
        Dl_info info{};
        if (dladdr(sym, &info) && info.dli_fname) {
            dir = info.dli_fname;
            dir = dir.substr(0, dir.find_last_of('/') + 1);
        }
    }
    void *nvperf = dir.empty() ? nullptr : dlopen((dir + "libnvperf_host.so").c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!nvperf) nvperf = dlopen("libnvperf_host.so", RTLD_NOW | RTLD_LOCAL);
    if (!nvperf) {
        out.reason = "libnvperf_host.so (NVIDIA's metric library, shipped beside libcupti in " +
                     (dir.empty() ? std::string("the CUDA toolkit") : dir) + ") could not be loaded (" + dl_error() +
                     "); add its directory to LD_LIBRARY_PATH";
        return out;
    }
    auto api = std::make_shared<CuptiApi>();
#define GM_CUPTI_LOAD(f)                                                                                          \
    api->f = reinterpret_cast<decltype(api->f)>(dlsym(handle, #f));                                              \
    if (!api->f) {                                                                                                \
        out.reason = out.library + " has no " #f ": counting needs the CUPTI range profiler of CUDA 12.6 or later"; \
        return out;                                                                                               \
    }
    GM_CUPTI_FUNCTIONS(GM_CUPTI_LOAD)
#undef GM_CUPTI_LOAD
    // The libraries stay loaded for the life of the process (CUPTI cannot be unloaded safely).
    out.api = std::move(api);
    return out;
#endif
}

}  // namespace

const CuptiLoad &load_cupti() {
    std::lock_guard<std::mutex> lock(g_loader_mutex);
    if (!g_loaded) g_loaded = std::make_unique<CuptiLoad>(g_test_loader ? g_test_loader() : dlopen_cupti());
    return *g_loaded;
}

void set_cupti_loader_for_testing(CuptiLoader loader) {
    std::lock_guard<std::mutex> lock(g_loader_mutex);
    g_test_loader = std::move(loader);
    g_loaded.reset();
}

}  // namespace gmlab
