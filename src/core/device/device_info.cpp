#include "core/device/device_info.hpp"

#include <cstdio>
#include <fstream>
#include <regex>

#include <cuda_runtime_api.h>

#include "core/error.hpp"

namespace gmlab {

namespace {

int attribute(cudaDeviceAttr attr, int device) {
    int value = 0;
    GM_CUDA(cudaDeviceGetAttribute(&value, attr, device));
    return value;
}

std::string format_uuid(const cudaUUID_t &u) {
    // GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, as nvidia-smi prints it.
    char out[64];
    const auto *b = reinterpret_cast<const unsigned char *>(u.bytes);
    std::snprintf(out, sizeof out,
                  "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                  b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                  b[14], b[15]);
    return out;
}

// The kernel module's release from /proc (Linux); CUDA itself only reports the
// CUDA version the driver supports.
std::string read_driver_release() {
    std::ifstream f("/proc/driver/nvidia/version");
    std::string line;
    if (!f || !std::getline(f, line)) return "";
    std::smatch m;
    static const std::regex release(R"((\d+\.\d+(\.\d+)?))");
    const auto pos = line.find("Module");
    const std::string tail = pos == std::string::npos ? line : line.substr(pos);
    return std::regex_search(tail, m, release) ? m.str(1) : "";
}

}  // namespace

std::string cuda_version_string(int version) {
    return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

DeviceInfo query_device(int ordinal) {
    DeviceInfo d;
    d.ordinal = ordinal;
    cudaDeviceProp prop{};
    GM_CUDA(cudaGetDeviceProperties(&prop, ordinal));
    d.name = prop.name;
    d.uuid = format_uuid(prop.uuid);
    char bus[32] = {0};
    GM_CUDA(cudaDeviceGetPCIBusId(bus, sizeof bus, ordinal));
    d.pci_bus_id = bus;
    d.cc_major = prop.major;
    d.cc_minor = prop.minor;
    d.multiprocessors = prop.multiProcessorCount;
    d.warp_size = prop.warpSize;
    d.global_bytes = prop.totalGlobalMem;
    d.constant_bytes = prop.totalConstMem;
    d.shared_per_block = prop.sharedMemPerBlock;
    d.shared_per_block_optin = prop.sharedMemPerBlockOptin;
    d.shared_per_sm = prop.sharedMemPerMultiprocessor;
    d.max_threads_per_block = prop.maxThreadsPerBlock;
    d.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
    d.integrated = prop.integrated != 0;
    // Clocks, bus width and the L2 limits through attributes: several of the
    // matching cudaDeviceProp fields are gone from recent CUDA releases.
    d.clock_khz = attribute(cudaDevAttrClockRate, ordinal);
    d.memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, ordinal);
    d.bus_width_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, ordinal);
    d.ecc_enabled = attribute(cudaDevAttrEccEnabled, ordinal) != 0;
    d.l2_bytes = static_cast<std::size_t>(attribute(cudaDevAttrL2CacheSize, ordinal));
    d.persisting_l2_max_bytes =
        static_cast<std::size_t>(attribute(cudaDevAttrMaxPersistingL2CacheSize, ordinal));
    d.access_policy_max_window_bytes =
        static_cast<std::size_t>(attribute(cudaDevAttrMaxAccessPolicyWindowSize, ordinal));
    d.registers_per_block = attribute(cudaDevAttrMaxRegistersPerBlock, ordinal);
    d.registers_per_sm = attribute(cudaDevAttrMaxRegistersPerMultiprocessor, ordinal);
    GM_CUDA(cudaDriverGetVersion(&d.driver_cuda_version));
    GM_CUDA(cudaRuntimeGetVersion(&d.runtime_version));
    d.driver_release = read_driver_release();
    d.host_link = query_host_link(d.pci_bus_id, d.integrated);
    return d;
}

nlohmann::json to_json(const DeviceInfo &d) {
    using nlohmann::json;
    return json{
        {"ordinal", d.ordinal},
        {"name", d.name},
        {"uuid", d.uuid},
        {"pci_bus_id", d.pci_bus_id},
        {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
        {"multiprocessors", d.multiprocessors},
        {"warp_size", d.warp_size},
        {"sm_clock_mhz", d.clock_khz / 1000.0},
        {"memory_clock_mhz", d.memory_clock_khz / 1000.0},
        {"memory_bus_width_bits", d.bus_width_bits},
        {"theoretical_bandwidth_gbs", d.theoretical_bandwidth_gbs()},
        {"ecc_enabled", d.ecc_enabled},
        {"integrated", d.integrated},
        {"global_memory_bytes", d.global_bytes},
        {"free_memory_bytes", d.free_bytes_at_start},
        {"l2_cache_bytes", d.l2_bytes},
        {"persisting_l2_max_bytes", d.persisting_l2_max_bytes},
        {"access_policy_max_window_bytes", d.access_policy_max_window_bytes},
        {"shared_memory_per_block_bytes", d.shared_per_block},
        {"shared_memory_per_block_optin_bytes", d.shared_per_block_optin},
        {"shared_memory_per_multiprocessor_bytes", d.shared_per_sm},
        {"constant_memory_bytes", d.constant_bytes},
        {"registers_per_block", d.registers_per_block},
        {"registers_per_multiprocessor", d.registers_per_sm},
        {"max_threads_per_block", d.max_threads_per_block},
        {"max_threads_per_multiprocessor", d.max_threads_per_sm},
        {"driver_version", d.driver_release},
        {"driver_cuda_version", cuda_version_string(d.driver_cuda_version)},
        {"runtime_version", cuda_version_string(d.runtime_version)},
        {"host_link", to_json(d.host_link)},
    };
}

}  // namespace gmlab
