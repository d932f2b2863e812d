// The state the GPU was in while an experiment measured: SM and memory
// clocks, power, temperature, P-state, the clock event (throttle) reasons and
// the time power and thermal limits held the clocks down, read before and
// after it through the driver's NVML (libnvidia-ml.so.1, loaded at run time as
// host_link.cpp does; nothing new is linked). Where NVML is absent nothing is
// read and the result has no gpu_state block. Never throws.
#pragma once

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gmlab {

// NVML's clock event reasons (nvmlClocksEventReason*, formerly
// nvmlClocksThrottleReason*): why the clocks are below their maximum.
inline constexpr unsigned long long kReasonGpuIdle = 0x1;
inline constexpr unsigned long long kReasonApplicationsClocks = 0x2;
inline constexpr unsigned long long kReasonSwPowerCap = 0x4;
inline constexpr unsigned long long kReasonHwSlowdown = 0x8;
inline constexpr unsigned long long kReasonSyncBoost = 0x10;
inline constexpr unsigned long long kReasonSwThermal = 0x20;
inline constexpr unsigned long long kReasonHwThermal = 0x40;
inline constexpr unsigned long long kReasonHwPowerBrake = 0x80;
inline constexpr unsigned long long kReasonDisplayClocks = 0x100;

// One reading. A figure NVML did not give is NaN (or -1, or unknown).
struct GpuState {
    bool read = false;               // NVML answered for this device
    std::string reason;              // why not, where it did not
    double sm_clock_mhz = NAN, sm_clock_max_mhz = NAN, memory_clock_mhz = NAN;
    double power_w = NAN, temperature_c = NAN;
    int pstate = -1;                 // 0 (P0, the fastest) .. 15; -1 unknown
    bool reasons_known = false;
    unsigned long long reasons = 0;  // kReason* bits
    // Nanoseconds, since the driver loaded, that power and thermal limits held
    // the clocks below the application clocks (nvmlDeviceGetViolationStatus).
    double power_violation_ns = NAN, thermal_violation_ns = NAN;
};

// The NVML calls one reading makes, each returning NVML's status (0: success),
// so that a test can stand in for the driver.
struct NvmlStateCalls {
    std::function<int(unsigned clock_type, unsigned *mhz)> clock, max_clock;  // NVML_CLOCK_SM 1, NVML_CLOCK_MEM 2
    std::function<int(unsigned *milliwatts)> power;
    std::function<int(unsigned *celsius)> temperature;
    std::function<int(int *pstate)> pstate;  // 0..15, 32 unknown
    std::function<int(unsigned long long *reasons)> reasons;
    std::function<int(unsigned policy, unsigned long long *violation_ns)> violation;  // NVML_PERF_POLICY_POWER 0, THERMAL 1
};

// One reading through those calls: units converted (milliwatts to watts),
// what failed or is unknown left out.
GpuState state_from_calls(const NvmlStateCalls &calls);

// Where readings come from.
class GpuStateReader {
public:
    virtual ~GpuStateReader() = default;
    virtual GpuState read() = 0;
};

// NVML's reader of the device at `pci_bus_id`; read() says why nothing was
// read where NVML is not loadable or does not know the device.
std::unique_ptr<GpuStateReader> nvml_state_reader(const std::string &pci_bus_id);

// The reasons set, by name ("gpu_idle", "sw_power_cap", ...).
std::vector<std::string> reason_names(unsigned long long reasons);

// What a reader of the result should be told: a clock that fell by more than
// 5 % from before to after, a reason other than idle set in either reading,
// time held down by power or thermal limits while it measured.
std::vector<std::string> judge_gpu_state(const GpuState &before, const GpuState &after);

// The result's gpu_state block: {"source", "before", "after",
// "power_violation_ms", "thermal_violation_ms" (during the experiment),
// "warnings"} (docs/result-schema.md).
nlohmann::json gpu_state_json(const GpuState &before, const GpuState &after);

}  // namespace gmlab
