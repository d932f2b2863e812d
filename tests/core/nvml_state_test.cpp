// The state the GPU was in (src/core/device/nvml_state.hpp) without a GPU:
// readings through faked NVML calls, the judgement of two readings, the
// result's gpu_state block, and no reading where NVML is absent.
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/device/nvml_state.hpp"
#include "core/experiment/result.hpp"

namespace gmlab {
namespace {

// A device as NVML would report it: each figure, and which calls fail.
struct FakeDevice {
    unsigned sm = 1980, sm_max = 1980, mem = 3201, power_mw = 412345, temperature = 47;
    int pstate = 0;
    unsigned long long reasons = 0, power_ns = 0, thermal_ns = 0;
    std::map<std::string, int> failing;  // call -> NVML status

    NvmlStateCalls calls() const {
        NvmlStateCalls c;
        auto rc = [this](const char *call) {
            auto it = failing.find(call);
            return it == failing.end() ? 0 : it->second;
        };
        c.clock = [this, rc](unsigned type, unsigned *v) {
            *v = type == 1 ? sm : type == 2 ? mem : 0;
            return rc("clock");
        };
        c.max_clock = [this, rc](unsigned, unsigned *v) {
            *v = sm_max;
            return rc("max_clock");
        };
        c.power = [this, rc](unsigned *v) {
            *v = power_mw;
            return rc("power");
        };
        c.temperature = [this, rc](unsigned *v) {
            *v = temperature;
            return rc("temperature");
        };
        c.pstate = [this, rc](int *v) {
            *v = pstate;
            return rc("pstate");
        };
        c.reasons = [this, rc](unsigned long long *v) {
            *v = reasons;
            return rc("reasons");
        };
        c.violation = [this, rc](unsigned policy, unsigned long long *v) {
            *v = policy == 0 ? power_ns : thermal_ns;
            return rc("violation");
        };
        return c;
    }
};

bool says(const std::vector<std::string> &w, const std::string &text) {
    for (const auto &s : w)
        if (s.find(text) != std::string::npos) return true;
    return false;
}

TEST(GpuState, ReadingConvertsUnitsAndKeepsWhatWasRead) {
    FakeDevice d;
    d.reasons = kReasonGpuIdle;
    const GpuState s = state_from_calls(d.calls());
    ASSERT_TRUE(s.read);
    EXPECT_EQ(s.sm_clock_mhz, 1980);
    EXPECT_EQ(s.sm_clock_max_mhz, 1980);
    EXPECT_EQ(s.memory_clock_mhz, 3201);
    EXPECT_DOUBLE_EQ(s.power_w, 412.345);
    EXPECT_EQ(s.temperature_c, 47);
    EXPECT_EQ(s.pstate, 0);
    EXPECT_TRUE(s.reasons_known);
    EXPECT_EQ(s.reasons, kReasonGpuIdle);
    // A call that fails (NVML_ERROR_NOT_SUPPORTED = 3) leaves its figure out; P-state 32 is "unknown".
    d.failing = {{"power", 3}, {"reasons", 3}};
    d.pstate = 32;
    const GpuState t = state_from_calls(d.calls());
    EXPECT_TRUE(std::isnan(t.power_w));
    EXPECT_FALSE(t.reasons_known);
    EXPECT_EQ(t.pstate, -1);
    EXPECT_EQ(t.sm_clock_mhz, 1980);
    // No calls at all (symbols missing from an old driver): read, with nothing in it.
    const GpuState none = state_from_calls(NvmlStateCalls{});
    EXPECT_TRUE(none.read);
    EXPECT_TRUE(std::isnan(none.sm_clock_mhz));
}

TEST(GpuState, ReasonsByName) {
    EXPECT_TRUE(reason_names(0).empty());
    EXPECT_EQ(reason_names(kReasonGpuIdle), std::vector<std::string>{"gpu_idle"});
    EXPECT_EQ(reason_names(kReasonSwPowerCap | kReasonHwThermal),
              (std::vector<std::string>{"sw_power_cap", "hw_thermal_slowdown"}));
    EXPECT_EQ(reason_names(0x1000), std::vector<std::string>{"other_0x1000"});
}

TEST(GpuState, ASteadyOrIdleGpuIsNotFlagged) {
    FakeDevice d;
    d.reasons = kReasonGpuIdle;  // idle before the first launch: that is not throttling
    const GpuState before = state_from_calls(d.calls());
    d.reasons = 0;
    d.sm = 1965;  // within 5 %
    d.power_ns = 0;
    EXPECT_TRUE(judge_gpu_state(before, state_from_calls(d.calls())).empty());
}

TEST(GpuState, AFallingClockAThrottleReasonAndTimeHeldDownAreFlagged) {
    FakeDevice d;
    d.power_ns = 5'000'000'000ull;  // cumulative since the driver loaded: only the difference counts
    const GpuState before = state_from_calls(d.calls());
    d.sm = 1755;
    d.reasons = kReasonSwPowerCap | kReasonGpuIdle;
    d.power_ns += 12'500'000;
    const GpuState after = state_from_calls(d.calls());
    const auto w = judge_gpu_state(before, after);
    EXPECT_TRUE(says(w, "the SM clock fell from 1980 MHz to 1755 MHz")) << ::testing::PrintToString(w);
    EXPECT_TRUE(says(w, "other than idle after it measured: sw_power_cap")) << ::testing::PrintToString(w);
    EXPECT_FALSE(says(w, "gpu_idle"));
    EXPECT_TRUE(says(w, "power limits held the clocks down for 12.5 ms")) << ::testing::PrintToString(w);
    EXPECT_FALSE(says(w, "thermal"));
    EXPECT_FALSE(says(w, "memory clock"));
    // Nothing judged where either reading is missing.
    EXPECT_TRUE(judge_gpu_state(before, GpuState{}).empty());
}

TEST(GpuState, TheResultsBlock) {
    FakeDevice d;
    d.reasons = kReasonGpuIdle;
    const GpuState before = state_from_calls(d.calls());
    d.thermal_ns = 2'000'000;
    d.reasons = kReasonHwThermal;
    d.temperature = 88;
    const nlohmann::json g = gpu_state_json(before, state_from_calls(d.calls()));
    EXPECT_EQ(g["source"], "nvml");
    EXPECT_EQ(g["before"]["sm_clock_mhz"], 1980);
    EXPECT_EQ(g["before"]["clock_event_reasons"], nlohmann::json::array({"gpu_idle"}));
    EXPECT_EQ(g["after"]["temperature_c"], 88);
    EXPECT_EQ(g["after"]["clock_event_reasons_mask"], kReasonHwThermal);
    EXPECT_DOUBLE_EQ(g["thermal_violation_ms"].get<double>(), 2.0);
    EXPECT_DOUBLE_EQ(g["power_violation_ms"].get<double>(), 0.0);
    EXPECT_EQ(g["warnings"].size(), 2u);  // hw_thermal_slowdown after, 2 ms held down
    // A figure NVML did not give is absent, not 0.
    d.failing = {{"power", 3}};
    const nlohmann::json h = gpu_state_json(state_from_calls(d.calls()), state_from_calls(d.calls()));
    EXPECT_FALSE(h["before"].contains("power_w"));
    // In the result document, and only where it was read.
    Result r;
    r.experiment = "stream";
    Series s;
    s.name = "copy";
    s.quantity = Quantity::DramBandwidth;
    s.points.push_back(Point{});
    r.series.push_back(s);
    EXPECT_FALSE(to_json(r).contains("gpu_state"));
    r.gpu_state = g;
    EXPECT_EQ(to_json(r)["gpu_state"], g);
    check_result_document(to_json(r));
}

// This machine has no GPU driver: nothing is read, and the reason says why.
// (On a machine with NVML the bus id below is no device's.)
TEST(GpuState, NoReadingWithoutNvmlOrTheDevice) {
    const GpuState s = nvml_state_reader("0000:FF:1F.7")->read();
    EXPECT_FALSE(s.read);
    EXPECT_NE(s.reason.find("NVML"), std::string::npos) << s.reason;
    EXPECT_FALSE(nvml_state_reader("")->read().read);
}

}  // namespace
}  // namespace gmlab
