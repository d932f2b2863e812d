// The driver's NVML (libnvidia-ml.so.1), loaded and initialised once per
// process at run time, never unloaded (other code in the process may use NVML
// too; nvmlInit counts its callers). Nothing is linked: its C ABI is stable
// and the few types used are declared here. The host link and the GPU's state
// read their own calls through symbol().
#pragma once

#include <string>

namespace gmlab {

using nvml_return = int;  // NVML_SUCCESS == 0
using nvml_device = void *;

class NvmlLibrary {
public:
    // The handle of the device at a PCI bus id, or null with *why saying why
    // not (the library not loadable, not initialised, the device unknown).
    nvml_device device(const std::string &pci_bus_id, std::string *why) const;
    // A function of the library by name, null where it has none (an older driver).
    template <class F>
    F symbol(const char *name) const {
        return reinterpret_cast<F>(find(name));
    }

private:
    friend const NvmlLibrary &nvml_library();
    void *find(const char *name) const;
    void *lib_ = nullptr;
    bool ready_ = false;
    nvml_return (*by_bus_id_)(const char *, nvml_device *) = nullptr;
};

const NvmlLibrary &nvml_library();

}  // namespace gmlab
