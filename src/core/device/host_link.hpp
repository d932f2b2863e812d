// The link between the host and the device (PCIe generation x width, or
// NVLink-C2C), and its theoretical bandwidth: what host<->device transfers are
// measured against. Read from the driver's NVML (loaded with dlopen, so the
// library does not need it), else from Linux sysfs; where neither says, the
// reason is kept instead of a figure.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gmlab {

struct HostLink {
    std::string type = "unknown";  // "pcie", "nvlink-c2c", "integrated" or "unknown"
    int generation = 0, width = 0;  // PCIe: the link's maximum, as the device and the slot allow
    int current_generation = 0, current_width = 0;  // PCIe: as trained now (idle links train down)
    int links = 0;                // NVLink-C2C: active links
    double theoretical_gbs = 0;   // per direction; 0 when not known
    std::string source;           // "nvml" or "sysfs"
    std::string reason = "not read";  // why the bandwidth is not known (theoretical_gbs == 0)
};

// Bandwidth of one PCIe lane in one direction, GB/s (10^9 B/s), after line
// encoding: 8b/10b for generations 1-2, 128b/130b for 3-5, FLIT 242/256 for 6-7.
// 0 for a generation it does not know.
double pcie_lane_gbs(int generation);

// The PCIe generation of a transfer rate in GT/s (2.5, 5, 8, 16, 32, 64, 128); 0 if none.
int pcie_generation_of(double gts);

// Reads the link of the device at `pci_bus_id` ("0000:1B:00.0"): NVML first,
// then sysfs under `sysfs_root` (normally "/sys"). Never throws.
HostLink query_host_link(const std::string &pci_bus_id, bool integrated, const std::string &sysfs_root = "/sys");

// The sysfs part alone (for tests): the device's and its upstream port's
// max_link_speed/width, the lower of each; current_link_* as they are now.
HostLink host_link_from_sysfs(const std::string &pci_bus_id, const std::string &sysfs_root);

// {"type", "generation", "width", ..., "theoretical_gbs", "source"} or {"type", "reason"}.
nlohmann::json to_json(const HostLink &l);

// "PCIe 5.0 x16, 63.0 GB/s per direction (nvml)" or "not known: <reason>".
std::string describe(const HostLink &l);

}  // namespace gmlab
