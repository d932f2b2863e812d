// An experiment whose hardware arrived with a later GPU generation than the
// context's: its result is marked not applicable, with the reason and the
// device's compute capability, never an error.
#pragma once

#include <string>

#include "core/device/device_info.hpp"
#include "core/experiment/result.hpp"

namespace gmlab {

// True where the device has compute capability major.minor or newer; else
// marks `out` not applicable, "<experiment> needs compute capability
// <major>.<minor> or newer: <why>; this device is <its own>", and is false.
inline bool has_compute_capability(const DeviceInfo &dev, int major, int minor, const std::string &experiment,
                                   const std::string &why, Result &out) {
    if (dev.cc_major > major || (dev.cc_major == major && dev.cc_minor >= minor)) return true;
    out.not_applicable(experiment + " needs compute capability " + std::to_string(major) + "." + std::to_string(minor) +
                       " or newer: " + why + "; this device is " + std::to_string(dev.cc_major) + "." +
                       std::to_string(dev.cc_minor));
    return false;
}

}  // namespace gmlab
