// The device's memory spaces: what CUDA reports about them, read once per context.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "core/device/host_link.hpp"

namespace gmlab {

struct DeviceInfo {
    int ordinal = 0;
    std::string name;
    std::string uuid;
    std::string pci_bus_id;
    int cc_major = 0, cc_minor = 0;
    int multiprocessors = 0;
    int warp_size = 32;
    int clock_khz = 0;         // peak SM clock
    int memory_clock_khz = 0;  // peak memory clock
    int bus_width_bits = 0;
    bool ecc_enabled = false;
    bool integrated = false;
    std::size_t global_bytes = 0;
    std::size_t free_bytes_at_start = 0;
    std::size_t l2_bytes = 0;
    std::size_t persisting_l2_max_bytes = 0;
    std::size_t access_policy_max_window_bytes = 0;
    std::size_t shared_per_block = 0;
    std::size_t shared_per_block_optin = 0;
    std::size_t shared_per_sm = 0;
    std::size_t constant_bytes = 0;
    int registers_per_block = 0;
    int registers_per_sm = 0;
    int max_threads_per_block = 0;
    int max_threads_per_sm = 0;
    int driver_cuda_version = 0;  // the CUDA version the driver supports (cudaDriverGetVersion)
    int runtime_version = 0;
    std::string driver_release;   // the driver's own release ("580.159.04"), "" where unknown
    HostLink host_link;           // what host<->device transfers are measured against

    // Double data rate: two transfers per memory clock over the whole bus.
    double theoretical_bandwidth_gbs() const {
        return 2.0 * memory_clock_khz * 1e3 * (bus_width_bits / 8.0) / 1e9;
    }
};

// Reads the properties of device `ordinal` (throws gmlab::Error).
DeviceInfo query_device(int ordinal);

// The "device" block of the result schema.
nlohmann::json to_json(const DeviceInfo &d);

// "12.4" from CUDA's 12040.
std::string cuda_version_string(int version);

}  // namespace gmlab
