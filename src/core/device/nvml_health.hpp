// A GPU's health as the driver's NVML reports it, for `gmlab check` and any
// other client (gm_device_health_json): ECC mode and error counts, retired
// pages and remapped rows, the PCIe link as trained against its maximum, the
// NVLink links (generation, active count, the peer each one reaches), MIG
// mode, the power limit and one reading of clocks, power and throttle reasons
// (nvml_state). NVML is loaded at run time (nvml_library); where it is absent
// the block says so instead of failing. Never throws.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace gmlab {

// Per-direction bandwidth of one NVLink link of a generation (NVML's
// nvmlDeviceGetNvLinkVersion: 1..5), GB/s; 0 for one it does not know.
double nvlink_link_gbs(unsigned version);

// The health block of the device at `pci_bus_id` ("0000:1B:00.0"):
// {"source": "nvml", "ecc": {...}, "retired_pages": {...}, "remapped_rows": {...},
//  "pcie": {...}, "nvlink": {...}, "mig": {...}, "power_limit_w", "state": {...}}
// or {"source": "none", "reason": "..."} where NVML cannot say. A figure the
// driver does not report for this GPU is left out (docs/api.md).
nlohmann::json device_health_json(const std::string &pci_bus_id);

}  // namespace gmlab
