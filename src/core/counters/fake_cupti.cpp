// A fake CUPTI for tests: every call succeeds except the one named.
#include <cstdint>
#include <map>
#include <string>

#include "core/counters/counters.hpp"
#include "core/counters/cupti_api.hpp"

namespace gmlab {

#if GM_HAVE_CUPTI_HEADERS

namespace {

struct FakeState {
    std::string failing;
    CUptiResult status = CUPTI_SUCCESS;
    double value = 0;
    std::map<std::string, double> values;  // per metric name, where a test gives one
};
FakeState g_fake;
int g_fake_object = 0;
std::uint8_t g_fake_chip_storage = 0;

CUptiResult fake(const char *call) { return g_fake.failing == call ? g_fake.status : CUPTI_SUCCESS; }

#define GM_FAKE(f, T) CUptiResult f##_fake(T *p)

CUptiResult cuptiGetResultString_fake(CUptiResult r, const char **s) {
    *s = r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ? "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES" : "CUPTI_ERROR_FAKE";
    return CUPTI_SUCCESS;
}
GM_FAKE(cuptiProfilerInitialize, CUpti_Profiler_Initialize_Params) {
    (void)p;
    return fake("cuptiProfilerInitialize");
}
GM_FAKE(cuptiProfilerDeviceSupported, CUpti_Profiler_DeviceSupported_Params) {
    const bool unsupported = g_fake.failing == "architecture";
    p->isSupported = unsupported ? CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED : CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
    p->architecture = p->isSupported;
    p->sli = p->vGpu = p->confidentialCompute = p->cmp = p->wsl = CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
    return fake("cuptiProfilerDeviceSupported");
}
GM_FAKE(cuptiDeviceGetChipName, CUpti_Device_GetChipName_Params) {
    p->pChipName = "FAKE100";
    return fake("cuptiDeviceGetChipName");
}
GM_FAKE(cuptiProfilerGetCounterAvailability, CUpti_Profiler_GetCounterAvailability_Params) {
    if (!p->pCounterAvailabilityImage) p->counterAvailabilityImageSize = 16;
    return fake("cuptiProfilerGetCounterAvailability");
}
GM_FAKE(cuptiProfilerHostInitialize, CUpti_Profiler_Host_Initialize_Params) {
    p->pHostObject = reinterpret_cast<CUpti_Profiler_Host_Object *>(&g_fake_chip_storage);
    return fake("cuptiProfilerHostInitialize");
}
GM_FAKE(cuptiProfilerHostDeinitialize, CUpti_Profiler_Host_Deinitialize_Params) {
    (void)p;
    return CUPTI_SUCCESS;
}
GM_FAKE(cuptiProfilerHostConfigAddMetrics, CUpti_Profiler_Host_ConfigAddMetrics_Params) {
    (void)p;
    return fake("cuptiProfilerHostConfigAddMetrics");
}
GM_FAKE(cuptiProfilerHostGetConfigImageSize, CUpti_Profiler_Host_GetConfigImageSize_Params) {
    p->configImageSize = 64;
    return fake("cuptiProfilerHostGetConfigImageSize");
}
GM_FAKE(cuptiProfilerHostGetConfigImage, CUpti_Profiler_Host_GetConfigImage_Params) {
    (void)p;
    return fake("cuptiProfilerHostGetConfigImage");
}
GM_FAKE(cuptiProfilerHostGetNumOfPasses, CUpti_Profiler_Host_GetNumOfPasses_Params) {
    p->numOfPasses = 1;
    return fake("cuptiProfilerHostGetNumOfPasses");
}
GM_FAKE(cuptiProfilerHostEvaluateToGpuValues, CUpti_Profiler_Host_EvaluateToGpuValues_Params) {
    for (std::size_t i = 0; i < p->numMetrics; ++i) {
        auto v = g_fake.values.find(p->ppMetricNames[i]);
        p->pMetricValues[i] = v != g_fake.values.end() ? v->second : g_fake.value;
    }
    return fake("cuptiProfilerHostEvaluateToGpuValues");
}
GM_FAKE(cuptiRangeProfilerEnable, CUpti_RangeProfiler_Enable_Params) {
    p->pRangeProfilerObject = reinterpret_cast<CUpti_RangeProfiler_Object *>(&g_fake_object);
    return fake("cuptiRangeProfilerEnable");
}
GM_FAKE(cuptiRangeProfilerDisable, CUpti_RangeProfiler_Disable_Params) {
    (void)p;
    return CUPTI_SUCCESS;
}
GM_FAKE(cuptiRangeProfilerGetCounterDataSize, CUpti_RangeProfiler_GetCounterDataSize_Params) {
    p->counterDataSize = 128;
    return fake("cuptiRangeProfilerGetCounterDataSize");
}
GM_FAKE(cuptiRangeProfilerCounterDataImageInitialize, CUpti_RangeProfiler_CounterDataImage_Initialize_Params) {
    (void)p;
    return fake("cuptiRangeProfilerCounterDataImageInitialize");
}
GM_FAKE(cuptiRangeProfilerSetConfig, CUpti_RangeProfiler_SetConfig_Params) {
    (void)p;
    return fake("cuptiRangeProfilerSetConfig");
}
GM_FAKE(cuptiRangeProfilerStart, CUpti_RangeProfiler_Start_Params) {
    (void)p;
    return fake("cuptiRangeProfilerStart");
}
GM_FAKE(cuptiRangeProfilerStop, CUpti_RangeProfiler_Stop_Params) {
    p->isAllPassSubmitted = 1;
    return fake("cuptiRangeProfilerStop");
}
GM_FAKE(cuptiRangeProfilerPushRange, CUpti_RangeProfiler_PushRange_Params) {
    (void)p;
    return fake("cuptiRangeProfilerPushRange");
}
GM_FAKE(cuptiRangeProfilerPopRange, CUpti_RangeProfiler_PopRange_Params) {
    (void)p;
    return fake("cuptiRangeProfilerPopRange");
}
GM_FAKE(cuptiRangeProfilerDecodeData, CUpti_RangeProfiler_DecodeData_Params) {
    p->numOfRangeDropped = 0;
    return fake("cuptiRangeProfilerDecodeData");
}
GM_FAKE(cuptiRangeProfilerGetCounterDataInfo, CUpti_RangeProfiler_GetCounterDataInfo_Params) {
    p->numTotalRanges = 1;
    return fake("cuptiRangeProfilerGetCounterDataInfo");
}
#undef GM_FAKE

}  // namespace

std::shared_ptr<const CuptiApi> fake_cupti_api(const std::string &failing_call, int status, double value) {
    return fake_cupti_api(failing_call, status, value, {});
}

std::shared_ptr<const CuptiApi> fake_cupti_api(const std::string &failing_call, int status, double value,
                                               const std::map<std::string, double> &values) {
    g_fake.failing = failing_call;
    g_fake.status = static_cast<CUptiResult>(status);
    g_fake.value = value;
    g_fake.values = values;
    auto api = std::make_shared<CuptiApi>();
#define GM_FAKE_SET(f) api->f = &f##_fake;
    GM_CUPTI_FUNCTIONS(GM_FAKE_SET)
#undef GM_FAKE_SET
    return api;
}

#else

std::shared_ptr<const CuptiApi> fake_cupti_api(const std::string &, int, double) { return nullptr; }
std::shared_ptr<const CuptiApi> fake_cupti_api(const std::string &, int, double, const std::map<std::string, double> &) {
    return nullptr;
}

#endif

}  // namespace gmlab
