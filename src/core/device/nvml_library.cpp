#include "core/device/nvml_library.hpp"

#include <dlfcn.h>

#include <mutex>

namespace gmlab {

void *NvmlLibrary::find(const char *name) const { return lib_ ? dlsym(lib_, name) : nullptr; }

nvml_device NvmlLibrary::device(const std::string &pci_bus_id, std::string *why) const {
    if (!lib_) {
        *why = "NVML (libnvidia-ml.so.1) is not loadable";
        return nullptr;
    }
    if (!ready_) {
        *why = "NVML did not initialise";
        return nullptr;
    }
    nvml_device dev = nullptr;
    if (pci_bus_id.empty() || by_bus_id_(pci_bus_id.c_str(), &dev) != 0) {
        *why = "NVML does not know the device at " + (pci_bus_id.empty() ? std::string("(no PCI bus id)") : pci_bus_id);
        return nullptr;
    }
    return dev;
}

const NvmlLibrary &nvml_library() {
    static NvmlLibrary n;
    static std::once_flag once;
    std::call_once(once, [] {
        n.lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!n.lib_) return;
        const auto init = n.symbol<nvml_return (*)()>("nvmlInit_v2");
        n.by_bus_id_ = n.symbol<nvml_return (*)(const char *, nvml_device *)>("nvmlDeviceGetHandleByPciBusId_v2");
        n.ready_ = init && n.by_bus_id_ && init() == 0;
    });
    return n;
}

}  // namespace gmlab
