// The counters module without a GPU: the loader faked, so that the paths a
// user meets (no CUPTI, no permission, an unsupported device, another profiler)
// produce a result that says why, and the arithmetic of derived figures and
// agreement.
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include <cupti_result.h>

#include "core/counters/counters.hpp"
#include "core/error.hpp"
#include "core/experiment/result.hpp"

namespace gmlab {
namespace {

struct CountersFakeLoader {
    explicit CountersFakeLoader(CuptiLoader loader) { set_cupti_loader_for_testing(std::move(loader)); }
    ~CountersFakeLoader() { set_cupti_loader_for_testing(nullptr); }
};

int counters_ok_probe() { return 0; }

CuptiLoad fake_load(const std::string &failing, CUptiResult status, double value = 7) {
    CuptiLoad l;
    l.api = fake_cupti_api(failing, status, value);
    l.library = "fake";
    return l;
}

TEST(Counters, MissingLibrarySaysWhichAndHowToFixIt) {
    CountersFakeLoader fake([] {
        CuptiLoad l;
        l.reason = "libcupti (CUDA Profiling Tools Interface) could not be loaded (libcupti.so.13: cannot open shared object file)";
        return l;
    });
    CounterSession s(nullptr, 0);
    const CounterAvailability &a = s.availability(counters_ok_probe);
    EXPECT_TRUE(a.checked);
    EXPECT_FALSE(a.available);
    EXPECT_NE(a.reason.find("libcupti"), std::string::npos) << a.reason;
    EXPECT_THROW(s.count({"dram__bytes_read.sum"}, counters_ok_probe), Error);
}

TEST(Counters, RealLoaderWithAMissingFileNamesTheFile) {
    setenv("GM_CUPTI_LIBRARY", "/nonexistent/libcupti.so", 1);
    set_cupti_loader_for_testing(nullptr);  // forget what an earlier test loaded
    const CuptiLoad &l = load_cupti();
    unsetenv("GM_CUPTI_LIBRARY");
    EXPECT_FALSE(l.api);
    EXPECT_NE(l.reason.find("/nonexistent/libcupti.so"), std::string::npos) << l.reason;
    EXPECT_NE(l.reason.find("LD_LIBRARY_PATH"), std::string::npos) << l.reason;
    set_cupti_loader_for_testing(nullptr);
}

TEST(Counters, NoPermissionExplainsTheDriverSetting) {
    CountersFakeLoader fake([] { return fake_load("cuptiRangeProfilerEnable", CUPTI_ERROR_INSUFFICIENT_PRIVILEGES); });
    CounterSession s(nullptr, 0);
    const CounterAvailability &a = s.availability(counters_ok_probe);
    EXPECT_FALSE(a.available);
    EXPECT_NE(a.reason.find("CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"), std::string::npos) << a.reason;
    EXPECT_NE(a.reason.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos) << a.reason;
    EXPECT_NE(a.reason.find("root"), std::string::npos) << a.reason;
    EXPECT_NE(a.reason.find("GPU performance counters"), std::string::npos) << a.reason;
}

TEST(Counters, AnotherProfilerIsNamed) {
    CountersFakeLoader fake([] { return fake_load("cuptiProfilerInitialize", CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED); });
    CounterSession s(nullptr, 0);
    EXPECT_NE(s.availability(counters_ok_probe).reason.find("Another profiler"), std::string::npos);
}

TEST(Counters, UnsupportedArchitectureIsNamed) {
    CountersFakeLoader fake([] { return fake_load("architecture", CUPTI_SUCCESS); });
    CounterSession s(nullptr, 0);
    const std::string why = s.availability(counters_ok_probe).reason;
    EXPECT_NE(why.find("architecture"), std::string::npos) << why;
    EXPECT_NE(why.find("unsupported"), std::string::npos) << why;
}

TEST(Counters, AFailingProbeLaunchIsNotAvailability) {
    CountersFakeLoader fake([] { return fake_load("", CUPTI_SUCCESS); });
    CounterSession s(nullptr, 0);
    const CounterAvailability &a = s.availability([] { return 2; /* cudaErrorMemoryAllocation */ });
    EXPECT_FALSE(a.available);
    EXPECT_NE(a.reason.find("counted launch failed"), std::string::npos) << a.reason;
}

TEST(Counters, CountsThroughTheTableAndRunsEachPassAfterItsPreparation) {
    CountersFakeLoader fake([] { return fake_load("", CUPTI_SUCCESS, 42); });
    CounterSession s(nullptr, 0);
    ASSERT_TRUE(s.availability(counters_ok_probe).available);
    EXPECT_EQ(s.availability(counters_ok_probe).chip, "FAKE100");
    int runs = 0, prepared = 0;
    const double launched_before = s.launch_seconds();
    auto v = s.count({"a.sum", "b.sum"}, [&] {
        ++runs;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a launch that takes time
        return 0;
    }, [&] { ++prepared; return 0; });
    EXPECT_EQ(runs, 1);
    EXPECT_EQ(prepared, 1);
    EXPECT_EQ(s.last_passes(), 1u);
    EXPECT_EQ(v.at("a.sum"), 42);
    EXPECT_EQ(v.at("b.sum"), 42);
    // The launch's time is counted as the experiment's, apart from the profiler's.
    EXPECT_GE(s.launch_seconds() - launched_before, 0.019);
    EXPECT_LE(s.launch_seconds(), s.seconds());
}

TEST(Counters, AnUnknownMetricFailsTheCountNamingTheMetrics) {
    CountersFakeLoader fake([] { return fake_load("cuptiProfilerHostConfigAddMetrics", CUPTI_ERROR_INVALID_PARAMETER); });
    CounterSession s(nullptr, 0);
    // The probe's own metric is refused too: not available, with the metric named.
    const std::string why = s.availability(counters_ok_probe).reason;
    EXPECT_NE(why.find("dram__bytes_read.sum"), std::string::npos) << why;
}

TEST(Counters, DerivedFiguresAndAgreement) {
    CounterSet set = counter_sets::global_sectors().agree("sectors_per_request_ld", "sectors_per_request");
    std::map<std::string, double> v = {{"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 2621440},
                                       {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 524288},
                                       {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 100},
                                       {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", 0}};
    auto checks = evaluate_counter_set(set, v, {{"sectors_per_request", 5}});
    EXPECT_EQ(v.at("sectors_per_request_ld"), 5.0);
    EXPECT_EQ(v.count("sectors_per_request_st"), 0u);  // no requests: no ratio
    ASSERT_EQ(checks.size(), 1u);
    EXPECT_TRUE(checks[0].agrees);
    checks = evaluate_counter_set(set, v, {{"sectors_per_request", 4}});
    EXPECT_FALSE(checks[0].agrees);
    CounterSet loose = counter_sets::dram().agree("dram__bytes_read.sum", "bytes", 0.02);
    std::map<std::string, double> d = {{"dram__bytes_read.sum", 101.5}};
    EXPECT_TRUE(evaluate_counter_set(loose, d, {{"bytes", 100}})[0].agrees);
    d["dram__bytes_read.sum"] = 103;
    EXPECT_FALSE(evaluate_counter_set(loose, d, {{"bytes", 100}})[0].agrees);
}

TEST(Counters, ResultCarriesCountersAgreementAndModelAgreement) {
    Result r;
    r.experiment = "offset_copy";
    r.counters_mode = "auto";
    r.counters_available = true;
    Series s;
    s.name = "guide";
    s.quantity = Quantity::DramBandwidth;
    for (int i = 0; i < 4; ++i) {
        Point p;
        p.x = i;
        p.predicted["sectors_per_request"] = i == 0 ? 4 : 5;
        p.counters = {{"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", i == 3 ? 6.0 : p.predicted["sectors_per_request"]},
                      {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 1}};
        p.counter_checks = evaluate_counter_set(
            counter_sets::global_sectors().agree("sectors_per_request_ld", "sectors_per_request"), p.counters, p.predicted);
        s.points.push_back(p);
    }
    r.series.push_back(s);
    const auto doc = to_json(r);
    EXPECT_EQ(doc["schema"], "gmlab.result/1.3");
    EXPECT_EQ(doc["counters"]["available"], true);
    EXPECT_EQ(doc["series"][0]["points"][1]["counters"]["sectors_per_request_ld"], 5.0);
    EXPECT_EQ(doc["series"][0]["agreement"]["sectors_per_request_ld"]["points"], 4);
    EXPECT_EQ(doc["series"][0]["agreement"]["sectors_per_request_ld"]["agreeing"], 3);
    EXPECT_DOUBLE_EQ(doc["summary"]["model_agreement"].get<double>(), 0.75);
    EXPECT_DOUBLE_EQ(point_value(doc, 0, 3, "counters.sectors_per_request_ld"), 6.0);
    check_result_document(doc);
}

TEST(Counters, UnavailableResultSaysWhyAndHasNoPointCounters) {
    Result r;
    r.experiment = "stream";
    r.counters_mode = "auto";
    r.counters_reason = "no permission";
    Series s;
    s.name = "copy";
    s.quantity = Quantity::DramBandwidth;
    s.points.push_back(Point{});
    r.series.push_back(s);
    const auto doc = to_json(r);
    EXPECT_EQ(doc["counters"], (nlohmann::json{{"mode", "auto"}, {"available", false}, {"reason", "no permission"}}));
    EXPECT_FALSE(doc["series"][0]["points"][0].contains("counters"));
    EXPECT_FALSE(doc["summary"].contains("model_agreement"));
    EXPECT_FALSE(doc["series"][0].contains("agreement"));
    try {
        point_value(doc, 0, 0, "counters.dram__bytes_read.sum");
        FAIL() << "a missing counter must be an error";
    } catch (const Error &e) {
        EXPECT_EQ(e.status(), GM_ERROR_INVALID_ARGUMENT);
    }
}

TEST(Counters, OldAndNewSchemaVersionsAreRead) {
    EXPECT_TRUE(is_result_schema("gmlab.result/1"));
    EXPECT_TRUE(is_result_schema("gmlab.result/1.1"));
    EXPECT_TRUE(is_result_schema("gmlab.result/1.2"));
    EXPECT_TRUE(is_result_schema("gmlab.result/1.3"));
    EXPECT_FALSE(is_result_schema("gmlab.result/2"));
    EXPECT_FALSE(is_result_schema("gmlab.result/1."));
    EXPECT_FALSE(is_result_schema("gmlab.result/1.x"));
    EXPECT_FALSE(is_result_schema("gmlab.result/1.4"));
    EXPECT_TRUE(is_run_schema("gmlab.run/1.2"));
    EXPECT_TRUE(is_run_schema("gmlab.run/1.3"));
}

}  // namespace
}  // namespace gmlab
