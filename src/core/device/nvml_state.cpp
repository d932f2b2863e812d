#include "core/device/nvml_state.hpp"

#include "core/device/nvml_library.hpp"


#include <cmath>
#include <cstdio>
#include <utility>

namespace gmlab {

namespace {

// ---- NVML (nvml_library.hpp): the calls a reading makes.
constexpr unsigned kClockSm = 1, kClockMem = 2;  // nvmlClockType_t
constexpr unsigned kTemperatureGpu = 0;          // NVML_TEMPERATURE_GPU
constexpr int kPstateUnknown = 32;               // NVML_PSTATE_UNKNOWN
constexpr unsigned kPolicyPower = 0, kPolicyThermal = 1;  // nvmlPerfPolicyType_t

struct NvmlViolationTime {  // nvmlViolationTime_t
    unsigned long long reference_time;
    unsigned long long violation_time;  // nanoseconds
};

struct NvmlStateApi {
    nvml_return (*clock)(nvml_device, unsigned, unsigned *) = nullptr;
    nvml_return (*max_clock)(nvml_device, unsigned, unsigned *) = nullptr;
    nvml_return (*power)(nvml_device, unsigned *) = nullptr;
    nvml_return (*temperature)(nvml_device, unsigned, unsigned *) = nullptr;
    nvml_return (*pstate)(nvml_device, int *) = nullptr;
    nvml_return (*reasons)(nvml_device, unsigned long long *) = nullptr;
    nvml_return (*violation)(nvml_device, unsigned, NvmlViolationTime *) = nullptr;
};

const NvmlStateApi &nvml_state_api() {
    static const NvmlStateApi n = [] {
        const NvmlLibrary &lib = nvml_library();
        NvmlStateApi c;
        c.clock = lib.symbol<decltype(c.clock)>("nvmlDeviceGetClockInfo");
        c.max_clock = lib.symbol<decltype(c.max_clock)>("nvmlDeviceGetMaxClockInfo");
        c.power = lib.symbol<decltype(c.power)>("nvmlDeviceGetPowerUsage");
        c.temperature = lib.symbol<decltype(c.temperature)>("nvmlDeviceGetTemperature");
        c.pstate = lib.symbol<decltype(c.pstate)>("nvmlDeviceGetPerformanceState");
        // The newer name first (NVML 12.2 renamed throttle reasons to clock event reasons).
        c.reasons = lib.symbol<decltype(c.reasons)>("nvmlDeviceGetCurrentClocksEventReasons");
        if (!c.reasons) c.reasons = lib.symbol<decltype(c.reasons)>("nvmlDeviceGetCurrentClocksThrottleReasons");
        c.violation = lib.symbol<decltype(c.violation)>("nvmlDeviceGetViolationStatus");
        return c;
    }();
    return n;
}

// The calls of one device through the loaded library (a missing symbol: that figure is not read).
NvmlStateCalls calls_of(const NvmlStateApi &n, nvml_device dev) {
    NvmlStateCalls c;
    if (n.clock) c.clock = [&n, dev](unsigned type, unsigned *mhz) { return n.clock(dev, type, mhz); };
    if (n.max_clock) c.max_clock = [&n, dev](unsigned type, unsigned *mhz) { return n.max_clock(dev, type, mhz); };
    if (n.power) c.power = [&n, dev](unsigned *mw) { return n.power(dev, mw); };
    if (n.temperature) c.temperature = [&n, dev](unsigned *t) { return n.temperature(dev, kTemperatureGpu, t); };
    if (n.pstate) c.pstate = [&n, dev](int *p) { return n.pstate(dev, p); };
    if (n.reasons) c.reasons = [&n, dev](unsigned long long *r) { return n.reasons(dev, r); };
    if (n.violation)
        c.violation = [&n, dev](unsigned policy, unsigned long long *ns) {
            NvmlViolationTime v{};
            const nvml_return rc = n.violation(dev, policy, &v);
            *ns = v.violation_time;
            return rc;
        };
    return c;
}

class NvmlReader : public GpuStateReader {
public:
    explicit NvmlReader(std::string bus_id) : bus_id_(std::move(bus_id)) {}
    GpuState read() override {
        GpuState s;
        const nvml_device dev = nvml_library().device(bus_id_, &s.reason);
        if (!dev) return s;
        return state_from_calls(calls_of(nvml_state_api(), dev));
    }

private:
    std::string bus_id_;
};

double fell(double before, double after) { return before > 0 && after > 0 ? 1 - after / before : 0; }

std::string mhz(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.0f MHz", v);
    return b;
}

std::string ms(double ns) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f ms", ns / 1e6);
    return b;
}

nlohmann::json reading_json(const GpuState &s) {
    nlohmann::json j = nlohmann::json::object();
    auto put = [&j](const char *key, double v) {
        if (std::isfinite(v)) j[key] = v;
    };
    put("sm_clock_mhz", s.sm_clock_mhz);
    put("sm_clock_max_mhz", s.sm_clock_max_mhz);
    put("memory_clock_mhz", s.memory_clock_mhz);
    put("power_w", s.power_w);
    put("temperature_c", s.temperature_c);
    if (s.pstate >= 0) j["pstate"] = s.pstate;
    if (s.reasons_known) {
        j["clock_event_reasons"] = reason_names(s.reasons);
        j["clock_event_reasons_mask"] = s.reasons;
    }
    put("power_violation_ns", s.power_violation_ns);
    put("thermal_violation_ns", s.thermal_violation_ns);
    return j;
}

}  // namespace

GpuState state_from_calls(const NvmlStateCalls &c) {
    GpuState s;
    s.read = true;
    unsigned u = 0;
    if (c.clock && c.clock(kClockSm, &u) == 0) s.sm_clock_mhz = u;
    if (c.clock && c.clock(kClockMem, &u) == 0) s.memory_clock_mhz = u;
    if (c.max_clock && c.max_clock(kClockSm, &u) == 0 && u > 0) s.sm_clock_max_mhz = u;
    if (c.power && c.power(&u) == 0) s.power_w = u / 1000.0;
    if (c.temperature && c.temperature(&u) == 0) s.temperature_c = u;
    int p = kPstateUnknown;
    if (c.pstate && c.pstate(&p) == 0 && p >= 0 && p <= 15) s.pstate = p;
    unsigned long long r = 0;
    if (c.reasons && c.reasons(&r) == 0) {
        s.reasons_known = true;
        s.reasons = r;
    }
    if (c.violation && c.violation(kPolicyPower, &r) == 0) s.power_violation_ns = static_cast<double>(r);
    if (c.violation && c.violation(kPolicyThermal, &r) == 0) s.thermal_violation_ns = static_cast<double>(r);
    return s;
}

std::unique_ptr<GpuStateReader> nvml_state_reader(const std::string &pci_bus_id) {
    return std::make_unique<NvmlReader>(pci_bus_id);
}

std::vector<std::string> reason_names(unsigned long long reasons) {
    static const std::pair<unsigned long long, const char *> kNames[] = {
        {kReasonGpuIdle, "gpu_idle"},         {kReasonApplicationsClocks, "applications_clocks_setting"},
        {kReasonSwPowerCap, "sw_power_cap"},  {kReasonHwSlowdown, "hw_slowdown"},
        {kReasonSyncBoost, "sync_boost"},     {kReasonSwThermal, "sw_thermal_slowdown"},
        {kReasonHwThermal, "hw_thermal_slowdown"}, {kReasonHwPowerBrake, "hw_power_brake_slowdown"},
        {kReasonDisplayClocks, "display_clock_setting"}};
    std::vector<std::string> out;
    unsigned long long known = 0;
    for (const auto &[bit, name] : kNames) {
        known |= bit;
        if (reasons & bit) out.push_back(name);
    }
    if (reasons & ~known) {
        char b[40];
        std::snprintf(b, sizeof b, "other_0x%llx", reasons & ~known);
        out.push_back(b);
    }
    return out;
}

std::vector<std::string> judge_gpu_state(const GpuState &before, const GpuState &after) {
    std::vector<std::string> w;
    if (!before.read || !after.read) return w;
    constexpr double kFell = 0.05;
    if (fell(before.sm_clock_mhz, after.sm_clock_mhz) > kFell)
        w.push_back("the SM clock fell from " + mhz(before.sm_clock_mhz) + " to " + mhz(after.sm_clock_mhz) + " while it measured");
    if (fell(before.memory_clock_mhz, after.memory_clock_mhz) > kFell)
        w.push_back("the memory clock fell from " + mhz(before.memory_clock_mhz) + " to " + mhz(after.memory_clock_mhz) +
                    " while it measured");
    for (const GpuState *s : {&before, &after}) {
        if (!s->reasons_known) continue;
        const std::vector<std::string> set = reason_names(s->reasons & ~kReasonGpuIdle);
        if (set.empty()) continue;
        std::string list;
        for (const auto &n : set) list += (list.empty() ? "" : ", ") + n;
        w.push_back(std::string("clock event reasons other than idle ") + (s == &before ? "before" : "after") +
                    " it measured: " + list);
    }
    const double power = after.power_violation_ns - before.power_violation_ns;
    const double thermal = after.thermal_violation_ns - before.thermal_violation_ns;
    if (power > 0) w.push_back("power limits held the clocks down for " + ms(power) + " while it measured");
    if (thermal > 0) w.push_back("thermal limits held the clocks down for " + ms(thermal) + " while it measured");
    return w;
}

nlohmann::json gpu_state_json(const GpuState &before, const GpuState &after) {
    nlohmann::json j = {{"source", "nvml"}, {"before", reading_json(before)}};
    if (after.read) j["after"] = reading_json(after);
    const double power = after.power_violation_ns - before.power_violation_ns;
    const double thermal = after.thermal_violation_ns - before.thermal_violation_ns;
    if (after.read && std::isfinite(power) && power >= 0) j["power_violation_ms"] = power / 1e6;
    if (after.read && std::isfinite(thermal) && thermal >= 0) j["thermal_violation_ms"] = thermal / 1e6;
    j["warnings"] = judge_gpu_state(before, after);
    return j;
}

}  // namespace gmlab
