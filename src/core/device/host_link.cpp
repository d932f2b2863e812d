#include "core/device/host_link.hpp"

#include "core/device/nvml_library.hpp"

#include <limits.h>
#include <stdlib.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>

namespace gmlab {

namespace {

// ---- NVML (nvml_library.hpp): the calls the host link reads.
constexpr unsigned kFieldC2cLinkCount = 170;   // NVML_FI_DEV_C2C_LINK_COUNT
constexpr unsigned kFieldC2cLinkStatus = 171;  // NVML_FI_DEV_C2C_LINK_GET_STATUS (1: active)
constexpr unsigned kFieldC2cLinkMaxBw = 172;   // NVML_FI_DEV_C2C_LINK_GET_MAX_BW (MB/s, per link)

struct NvmlFieldValue {  // nvmlFieldValue_t
    unsigned field_id;
    unsigned scope_id;
    long long timestamp;
    long long latency_usec;
    int value_type;
    nvml_return result;
    union {
        double d;
        unsigned ui;
        unsigned long ul;
        unsigned long long ull;
        long long sll;
        unsigned short us;
    } value;
};

struct Nvml {
    nvml_return (*max_gen)(nvml_device, unsigned *) = nullptr;
    nvml_return (*max_width)(nvml_device, unsigned *) = nullptr;
    nvml_return (*cur_gen)(nvml_device, unsigned *) = nullptr;
    nvml_return (*cur_width)(nvml_device, unsigned *) = nullptr;
    nvml_return (*fields)(nvml_device, int, NvmlFieldValue *) = nullptr;
};

const Nvml &nvml() {
    static const Nvml n = [] {
        const NvmlLibrary &lib = nvml_library();
        Nvml c;
        c.max_gen = lib.symbol<decltype(c.max_gen)>("nvmlDeviceGetMaxPcieLinkGeneration");
        c.max_width = lib.symbol<decltype(c.max_width)>("nvmlDeviceGetMaxPcieLinkWidth");
        c.cur_gen = lib.symbol<decltype(c.cur_gen)>("nvmlDeviceGetCurrPcieLinkGeneration");
        c.cur_width = lib.symbol<decltype(c.cur_width)>("nvmlDeviceGetCurrPcieLinkWidth");
        c.fields = lib.symbol<decltype(c.fields)>("nvmlDeviceGetFieldValues");
        return c;
    }();
    return n;
}

HostLink from_nvml(const std::string &bus_id, std::string *why) {
    HostLink l;
    nvml_device dev = nvml_library().device(bus_id, why);
    if (!dev) return l;
    const Nvml &n = nvml();
    // NVLink-C2C (Grace Hopper and later): the sum of the active links.
    if (n.fields) {
        NvmlFieldValue count{};
        count.field_id = kFieldC2cLinkCount;
        if (n.fields(dev, 1, &count) == 0 && count.result == 0 && count.value.ui > 0 && count.value.ui < 64) {
            double mbs = 0;
            int active = 0;
            for (unsigned i = 0; i < count.value.ui; ++i) {
                NvmlFieldValue f[2]{};
                f[0].field_id = kFieldC2cLinkStatus;
                f[0].scope_id = i;
                f[1].field_id = kFieldC2cLinkMaxBw;
                f[1].scope_id = i;
                if (n.fields(dev, 2, f) == 0 && f[0].result == 0 && f[0].value.ui == 1 && f[1].result == 0) {
                    mbs += f[1].value.ui;
                    ++active;
                }
            }
            if (active > 0 && mbs > 0) {
                l.type = "nvlink-c2c";
                l.links = active;
                l.theoretical_gbs = mbs * 1e6 / 1e9;
                l.source = "nvml";
                return l;
            }
        }
    }
    unsigned gen = 0, width = 0, cgen = 0, cwidth = 0;
    if (n.max_gen && n.max_width && n.max_gen(dev, &gen) == 0 && n.max_width(dev, &width) == 0 && gen > 0 &&
        width > 0 && pcie_lane_gbs(static_cast<int>(gen)) > 0) {
        l.type = "pcie";
        l.generation = static_cast<int>(gen);
        l.width = static_cast<int>(width);
        if (n.cur_gen && n.cur_gen(dev, &cgen) == 0) l.current_generation = static_cast<int>(cgen);
        if (n.cur_width && n.cur_width(dev, &cwidth) == 0) l.current_width = static_cast<int>(cwidth);
        l.theoretical_gbs = pcie_lane_gbs(l.generation) * l.width;
        l.source = "nvml";
        return l;
    }
    *why = "NVML reports no PCIe link generation and width";
    return l;
}

std::string read_line(const std::string &path) {
    std::ifstream f(path);
    std::string s;
    if (!f || !std::getline(f, s)) return "";
    return s;
}

// "16.0 GT/s PCIe", "8 GT/s", "2.5 GT/s PCIe" -> the generation; 0 if unreadable.
int generation_from_speed_text(const std::string &text) {
    if (text.empty()) return 0;
    char *end = nullptr;
    const double gts = std::strtod(text.c_str(), &end);
    if (end == text.c_str()) return 0;
    return pcie_generation_of(gts);
}

int width_from_text(const std::string &text) {
    if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return 0;
    return std::atoi(text.c_str());
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

// A PCI address as sysfs names it: "0000:1b:00.0".
bool is_pci_address(const std::string &s) {
    unsigned a, b, c, d;
    char tail;
    return std::sscanf(s.c_str(), "%x:%x:%x.%x%c", &a, &b, &c, &d, &tail) == 4;
}

}  // namespace

double pcie_lane_gbs(int generation) {
    switch (generation) {
        case 1: return 2.5 * 8.0 / 10.0 / 8.0;
        case 2: return 5.0 * 8.0 / 10.0 / 8.0;
        case 3: return 8.0 * 128.0 / 130.0 / 8.0;
        case 4: return 16.0 * 128.0 / 130.0 / 8.0;
        case 5: return 32.0 * 128.0 / 130.0 / 8.0;
        case 6: return 64.0 * 242.0 / 256.0 / 8.0;
        case 7: return 128.0 * 242.0 / 256.0 / 8.0;
        default: return 0;
    }
}

int pcie_generation_of(double gts) {
    const double rates[] = {2.5, 5, 8, 16, 32, 64, 128};
    for (int i = 0; i < 7; ++i)
        if (std::fabs(gts - rates[i]) < 0.01 * rates[i]) return i + 1;
    return 0;
}

HostLink host_link_from_sysfs(const std::string &pci_bus_id, const std::string &sysfs_root) {
    HostLink l;
    const std::string dev = sysfs_root + "/bus/pci/devices/" + lower(pci_bus_id);
    int gen = generation_from_speed_text(read_line(dev + "/max_link_speed"));
    int width = width_from_text(read_line(dev + "/max_link_width"));
    if (gen == 0 || width == 0) {
        l.type = "unknown";
        l.reason = "sysfs has no PCIe link speed and width for " + lower(pci_bus_id);
        return l;
    }
    // The slot may be slower or narrower than the device: the port above it
    // (the parent directory of the device's real sysfs path) limits the link.
    char real[PATH_MAX];
    if (realpath(dev.c_str(), real)) {
        std::string parent(real);
        parent = parent.substr(0, parent.rfind('/'));
        const std::string name = parent.substr(parent.rfind('/') + 1);
        if (is_pci_address(name)) {
            const int pgen = generation_from_speed_text(read_line(parent + "/max_link_speed"));
            const int pwidth = width_from_text(read_line(parent + "/max_link_width"));
            if (pgen > 0) gen = std::min(gen, pgen);
            if (pwidth > 0) width = std::min(width, pwidth);
        }
    }
    l.type = "pcie";
    l.generation = gen;
    l.width = width;
    l.current_generation = generation_from_speed_text(read_line(dev + "/current_link_speed"));
    l.current_width = width_from_text(read_line(dev + "/current_link_width"));
    l.theoretical_gbs = pcie_lane_gbs(gen) * width;
    l.source = "sysfs";
    return l;
}

HostLink query_host_link(const std::string &pci_bus_id, bool integrated, const std::string &sysfs_root) {
    if (integrated) {
        HostLink l;
        l.type = "integrated";
        l.reason = "an integrated GPU shares the host's memory: there is no host link";
        return l;
    }
    std::string nvml_why;
    HostLink l = from_nvml(pci_bus_id, &nvml_why);
    if (l.theoretical_gbs > 0) return l;
    l = host_link_from_sysfs(pci_bus_id, sysfs_root);
    if (l.theoretical_gbs > 0) return l;
    l.reason = nvml_why + "; " + l.reason;
    return l;
}

nlohmann::json to_json(const HostLink &l) {
    nlohmann::json j = {{"type", l.type}};
    if (l.type == "pcie") {
        j["generation"] = l.generation;
        j["width"] = l.width;
        if (l.current_generation > 0) j["current_generation"] = l.current_generation;
        if (l.current_width > 0) j["current_width"] = l.current_width;
    }
    if (l.type == "nvlink-c2c") j["links"] = l.links;
    if (l.theoretical_gbs > 0) {
        j["theoretical_gbs"] = l.theoretical_gbs;
        j["source"] = l.source;
    } else {
        j["reason"] = l.reason;
    }
    return j;
}

std::string describe(const HostLink &l) {
    char buf[160];
    if (l.theoretical_gbs <= 0) return "not known: " + l.reason;
    if (l.type == "pcie")
        std::snprintf(buf, sizeof buf, "PCIe %d.0 x%d, %.1f GB/s per direction (%s)", l.generation, l.width,
                      l.theoretical_gbs, l.source.c_str());
    else
        std::snprintf(buf, sizeof buf, "NVLink-C2C, %d link%s, %.1f GB/s (%s)", l.links, l.links == 1 ? "" : "s",
                      l.theoretical_gbs, l.source.c_str());
    return buf;
}

}  // namespace gmlab
