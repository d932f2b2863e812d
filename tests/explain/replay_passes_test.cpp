// How many replay passes the rules' counters take, computed as the range
// profiler computes them: through CUPTI's host API, which needs the chip's
// name and no GPU. Each pass replays every counted launch once more, so a
// counter added to a rule is paid for in every counted launch; this test
// fails when one adds a pass on the chips explain was measured on.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "cupti/open_libcupti.hpp"
#include "cupti/range_profiler_host.hpp"
#include "explain/rule_book.hpp"

using namespace gmexplain;

namespace {
// The host part of the range profiler's table, loaded from libcupti.
struct HostApi {
    decltype(&::cuptiProfilerHostInitialize) cuptiProfilerHostInitialize = nullptr;
    decltype(&::cuptiProfilerHostDeinitialize) cuptiProfilerHostDeinitialize = nullptr;
    decltype(&::cuptiProfilerHostConfigAddMetrics) cuptiProfilerHostConfigAddMetrics = nullptr;
    decltype(&::cuptiProfilerHostGetConfigImageSize) cuptiProfilerHostGetConfigImageSize = nullptr;
    decltype(&::cuptiProfilerHostGetConfigImage) cuptiProfilerHostGetConfigImage = nullptr;
    decltype(&::cuptiProfilerHostGetNumOfPasses) cuptiProfilerHostGetNumOfPasses = nullptr;
};

// "" and a loaded table, or why none could be loaded.
std::string load_host_api(HostApi &api) {
    const gmcupti::OpenedCupti lib = gmcupti::open_libcupti();
    if (!lib.handle) return "libcupti could not be opened: " + lib.error;
#define GMX_LOAD(f)                                                               \
    api.f = reinterpret_cast<decltype(api.f)>(dlsym(lib.handle, #f));             \
    if (!api.f) return std::string(lib.library) + " lacks " #f;
    GMX_LOAD(cuptiProfilerHostInitialize)
    GMX_LOAD(cuptiProfilerHostDeinitialize)
    GMX_LOAD(cuptiProfilerHostConfigAddMetrics)
    GMX_LOAD(cuptiProfilerHostGetConfigImageSize)
    GMX_LOAD(cuptiProfilerHostGetConfigImage)
    GMX_LOAD(cuptiProfilerHostGetNumOfPasses)
#undef GMX_LOAD
    return "";
}

struct Refused {
    std::string call;
    CUptiResult result;
};

// The passes `metrics` need on `chip`; throws Refused where CUPTI refuses a step.
std::size_t passes_on(const HostApi &api, const std::string &chip, const std::vector<std::string> &metrics) {
    std::vector<const char *> names;
    for (const auto &m : metrics) names.push_back(m.c_str());
    std::vector<std::uint8_t> no_availability;  // the chip's whole counter set
    const auto check = [](CUptiResult r, const char *call) {
        if (r != CUPTI_SUCCESS) throw Refused{call, r};
    };
    const gmcupti::HostConfig c = gmcupti::configure_host(api, check, chip, no_availability, names, true);
    gmcupti::release_host(api, c.host);
    return c.passes;
}

// The counters a counted launch asks for: the rules' and the launch's duration.
std::vector<std::string> counted_metrics() {
    std::vector<std::string> metrics = load_rules().metrics();
    if (std::find(metrics.begin(), metrics.end(), "gpu__time_duration.sum") == metrics.end())
        metrics.push_back("gpu__time_duration.sum");
    return metrics;
}
}  // namespace

// GH100 (H100 and H200): six passes, one of them the SASS counters'
// instrumented pass. With the L2's whole throughput (lts__throughput, four
// passes on its own) and the store requests counted by the L1, seven.
TEST(ExplainReplayPasses, TheRulesCountersTakeSixPassesOnGH100) {
    HostApi api;
    const std::string why = load_host_api(api);
    if (!why.empty()) GTEST_SKIP() << why;
    std::size_t passes = 0;
    try {
        passes = passes_on(api, "GH100", counted_metrics());
    } catch (const Refused &r) {
        GTEST_SKIP() << "this libcupti's host API refused GH100's configuration at " << r.call << " (" << r.result << ")";
    }
    EXPECT_LE(passes, 6u) << "a counter added to the rules costs another replay of every counted launch";
    // The test can fail: the store requests counted by the L1 as well bring the set to seven.
    std::vector<std::string> with_l1_store_requests = counted_metrics();
    with_l1_store_requests.push_back("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum");
    EXPECT_GT(passes_on(api, "GH100", with_l1_store_requests), passes);
}
