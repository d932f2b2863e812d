#include "core/device/nvml_health.hpp"

#include <algorithm>
#include <cstring>

#include "core/device/nvml_library.hpp"
#include "core/device/nvml_state.hpp"

namespace gmlab {

namespace {

using nlohmann::json;

constexpr unsigned kMaxNvLinks = 18;                  // NVML_NVLINK_MAX_LINKS
constexpr unsigned kCorrected = 0, kUncorrected = 1;  // nvmlMemoryErrorType_t
constexpr unsigned kVolatile = 0, kAggregate = 1;     // nvmlEccCounterType_t
constexpr unsigned kMultipleSingleBit = 0, kDoubleBit = 1;  // nvmlPageRetirementCause_t
constexpr nvml_return kInsufficientSize = 7;          // NVML_ERROR_INSUFFICIENT_SIZE

// nvmlPciInfo_t: busIdLegacy[16], domain, bus, device, pciDeviceId,
// pciSubSystemId, busId[32]. Only busId is read.
struct NvmlPciInfo {
    char bus_id_legacy[16];
    unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
    char reserve[64];  // room for fields a newer driver may add
};

struct NvmlHealthApi {
    nvml_return (*ecc_mode)(nvml_device, int *, int *) = nullptr;
    nvml_return (*ecc_total)(nvml_device, unsigned, unsigned, unsigned long long *) = nullptr;
    nvml_return (*retired)(nvml_device, unsigned, unsigned *, unsigned long long *) = nullptr;
    nvml_return (*retired_pending)(nvml_device, int *) = nullptr;
    nvml_return (*remapped)(nvml_device, unsigned *, unsigned *, unsigned *, unsigned *) = nullptr;
    nvml_return (*pcie_gen)(nvml_device, unsigned *) = nullptr;
    nvml_return (*pcie_gen_max)(nvml_device, unsigned *) = nullptr;
    nvml_return (*pcie_gen_gpu_max)(nvml_device, unsigned *) = nullptr;
    nvml_return (*pcie_width)(nvml_device, unsigned *) = nullptr;
    nvml_return (*pcie_width_max)(nvml_device, unsigned *) = nullptr;
    nvml_return (*link_state)(nvml_device, unsigned, int *) = nullptr;
    nvml_return (*link_version)(nvml_device, unsigned, unsigned *) = nullptr;
    nvml_return (*link_remote)(nvml_device, unsigned, NvmlPciInfo *) = nullptr;
    nvml_return (*mig_mode)(nvml_device, unsigned *, unsigned *) = nullptr;
    nvml_return (*power_limit)(nvml_device, unsigned *) = nullptr;
};

const NvmlHealthApi &health_api() {
    static const NvmlHealthApi n = [] {
        const NvmlLibrary &lib = nvml_library();
        NvmlHealthApi c;
        c.ecc_mode = lib.symbol<decltype(c.ecc_mode)>("nvmlDeviceGetEccMode");
        c.ecc_total = lib.symbol<decltype(c.ecc_total)>("nvmlDeviceGetTotalEccErrors");
        c.retired = lib.symbol<decltype(c.retired)>("nvmlDeviceGetRetiredPages");
        c.retired_pending = lib.symbol<decltype(c.retired_pending)>("nvmlDeviceGetRetiredPagesPendingStatus");
        c.remapped = lib.symbol<decltype(c.remapped)>("nvmlDeviceGetRemappedRows");
        c.pcie_gen = lib.symbol<decltype(c.pcie_gen)>("nvmlDeviceGetCurrPcieLinkGeneration");
        c.pcie_gen_max = lib.symbol<decltype(c.pcie_gen_max)>("nvmlDeviceGetMaxPcieLinkGeneration");
        c.pcie_gen_gpu_max = lib.symbol<decltype(c.pcie_gen_gpu_max)>("nvmlDeviceGetGpuMaxPcieLinkGeneration");
        c.pcie_width = lib.symbol<decltype(c.pcie_width)>("nvmlDeviceGetCurrPcieLinkWidth");
        c.pcie_width_max = lib.symbol<decltype(c.pcie_width_max)>("nvmlDeviceGetMaxPcieLinkWidth");
        c.link_state = lib.symbol<decltype(c.link_state)>("nvmlDeviceGetNvLinkState");
        c.link_version = lib.symbol<decltype(c.link_version)>("nvmlDeviceGetNvLinkVersion");
        c.link_remote = lib.symbol<decltype(c.link_remote)>("nvmlDeviceGetNvLinkRemotePciInfo_v2");
        c.mig_mode = lib.symbol<decltype(c.mig_mode)>("nvmlDeviceGetMigMode");
        c.power_limit = lib.symbol<decltype(c.power_limit)>("nvmlDeviceGetEnforcedPowerLimit");
        return c;
    }();
    return n;
}

json ecc_json(const NvmlHealthApi &n, nvml_device dev) {
    json j = json::object();
    int current = 0, pending = 0;
    if (!n.ecc_mode || n.ecc_mode(dev, &current, &pending) != 0) return {{"reason", "the driver does not report ECC mode"}};
    j["enabled"] = current != 0;
    j["pending_enabled"] = pending != 0;
    if (!current || !n.ecc_total) return j;
    unsigned long long v = 0;
    const std::pair<const char *, std::pair<unsigned, unsigned>> counts[] = {
        {"volatile_corrected", {kCorrected, kVolatile}},
        {"volatile_uncorrected", {kUncorrected, kVolatile}},
        {"aggregate_corrected", {kCorrected, kAggregate}},
        {"aggregate_uncorrected", {kUncorrected, kAggregate}}};
    for (const auto &[key, which] : counts)
        if (n.ecc_total(dev, which.first, which.second, &v) == 0) j[key] = v;
    return j;
}

// Retired pages (before Ampere) and remapped rows (Ampere on); each is left
// out where the GPU has the other mechanism.
void memory_repair_json(const NvmlHealthApi &n, nvml_device dev, json *out) {
    if (n.retired) {
        json r = json::object();
        for (const auto &[key, cause] : {std::pair{"single_bit", kMultipleSingleBit}, std::pair{"double_bit", kDoubleBit}}) {
            unsigned count = 0;
            const nvml_return rc = n.retired(dev, cause, &count, nullptr);
            if (rc == 0 || rc == kInsufficientSize) r[key] = count;
        }
        int pending = 0;
        if (!r.empty() && n.retired_pending && n.retired_pending(dev, &pending) == 0) r["pending"] = pending != 0;
        if (!r.empty()) (*out)["retired_pages"] = r;
    }
    unsigned corrected = 0, uncorrected = 0, pending = 0, failed = 0;
    if (n.remapped && n.remapped(dev, &corrected, &uncorrected, &pending, &failed) == 0)
        (*out)["remapped_rows"] = {{"correctable", corrected}, {"uncorrectable", uncorrected}, {"pending", pending != 0},
                                   {"failure", failed != 0}};
}

json pcie_json(const NvmlHealthApi &n, nvml_device dev) {
    json j = json::object();
    unsigned v = 0;
    if (n.pcie_gen && n.pcie_gen(dev, &v) == 0) j["current_generation"] = v;
    if (n.pcie_gen_max && n.pcie_gen_max(dev, &v) == 0) j["max_generation"] = v;
    if (n.pcie_gen_gpu_max && n.pcie_gen_gpu_max(dev, &v) == 0) j["gpu_max_generation"] = v;
    if (n.pcie_width && n.pcie_width(dev, &v) == 0) j["current_width"] = v;
    if (n.pcie_width_max && n.pcie_width_max(dev, &v) == 0) j["max_width"] = v;
    return j;
}

json nvlink_json(const NvmlHealthApi &n, nvml_device dev) {
    json links = json::array();
    unsigned version = 0;
    int active_count = 0;
    for (unsigned link = 0; n.link_state && link < kMaxNvLinks; ++link) {
        int active = 0;
        if (n.link_state(dev, link, &active) != 0) continue;  // no such link on this GPU
        json l = {{"link", link}, {"active", active != 0}};
        unsigned v = 0;
        if (active && n.link_version && n.link_version(dev, link, &v) == 0) {
            l["nvml_version"] = v;
            version = version ? std::min(version, v) : v;
        }
        NvmlPciInfo remote{};
        if (active && n.link_remote && n.link_remote(dev, link, &remote) == 0) {
            remote.bus_id[sizeof remote.bus_id - 1] = '\0';
            l["remote_pci_bus_id"] = std::string(remote.bus_id);
        }
        active_count += active ? 1 : 0;
        links.push_back(std::move(l));
    }
    json j = {{"links", links}, {"active_links", active_count}};
    if (version) {
        j["nvml_version"] = version;
        j["link_gbs"] = nvlink_link_gbs(version);
        j["theoretical_gbs"] = nvlink_link_gbs(version) * active_count;
    }
    return j;
}

}  // namespace

double nvlink_link_gbs(unsigned version) {
    // Per link and direction. NVML numbers versions either as the generation
    // (older drivers: 1..4) or as nvmlNvlinkVersion_t (1.0=1, 2.0=2, 2.2=3,
    // 3.0=4, 3.1=5, 4.0=6, 5.0=7); every value from 2 to 6 is 25 GB/s in both.
    if (version == 1) return 20;
    if (version >= 2 && version <= 6) return 25;
    if (version == 7) return 50;
    return 0;
}

json device_health_json(const std::string &pci_bus_id) {
    try {
        std::string why;
        const nvml_device dev = nvml_library().device(pci_bus_id, &why);
        if (!dev) return {{"source", "none"}, {"reason", why}};
        const NvmlHealthApi &n = health_api();
        json j = {{"source", "nvml"}, {"pci_bus_id", pci_bus_id}};
        j["ecc"] = ecc_json(n, dev);
        memory_repair_json(n, dev, &j);
        j["pcie"] = pcie_json(n, dev);
        j["nvlink"] = nvlink_json(n, dev);
        unsigned current = 0, pending = 0;
        if (n.mig_mode && n.mig_mode(dev, &current, &pending) == 0)
            j["mig"] = {{"enabled", current != 0}, {"pending_enabled", pending != 0}};
        unsigned mw = 0;
        if (n.power_limit && n.power_limit(dev, &mw) == 0) j["power_limit_w"] = mw / 1000.0;
        const GpuState s = nvml_state_reader(pci_bus_id)->read();
        if (s.read) j["state"] = gpu_state_json(s, GpuState{})["before"];
        return j;
    } catch (const std::exception &e) {
        return {{"source", "none"}, {"reason", std::string("NVML health not read: ") + e.what()}};
    }
}

}  // namespace gmlab
