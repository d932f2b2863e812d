#include "core/error.hpp"

namespace gmlab {

void fail(gm_status status, const std::string &message) { throw Error(status, message); }

bool is_sticky(cudaError_t err) {
    switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
        return true;
    default:
        return false;
    }
}

namespace {

std::string cuda_version_text(int version) {
    return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// Why a machine has no usable device, in the words a newcomer can act on: the
// runtime reports a missing driver and an old one with the same error.
std::string no_device_reason(cudaError_t err) {
    if (err == cudaErrorNoDevice) return "the driver is loaded but sees no GPU";
    if (err != cudaErrorInsufficientDriver) return "the driver could not be initialised";
    int driver = 0, runtime = 0;
    (void)cudaDriverGetVersion(&driver);
    (void)cudaRuntimeGetVersion(&runtime);
    if (driver == 0) return "no NVIDIA driver is loaded";
    return "the NVIDIA driver supports CUDA " + cuda_version_text(driver) + ", older than the CUDA " +
           cuda_version_text(runtime) + " this build of gmlab needs: update the driver";
}

}

void check_cuda(cudaError_t err, const char *call, const char *file, int line) {
    if (err == cudaSuccess) return;
    // Clear the (non-sticky) error so that the next call on this thread starts clean.
    (void)cudaGetLastError();
    std::string where = std::string(call) + " at " + file + ":" + std::to_string(line);
    std::string what = std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
    switch (err) {
    case cudaErrorMemoryAllocation:
        fail(GM_ERROR_OUT_OF_MEMORY, "device memory exhausted in " + where + " (" + what + ")");
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInitializationError:
        // The error's name alone: its text blames the driver's version even where no driver exists.
        fail(GM_ERROR_NO_DEVICE, "no CUDA device: " + no_device_reason(err) + " (" + cudaGetErrorName(err) + ")");
    default:
        break;
    }
    if (is_sticky(err)) {
        throw Error(GM_ERROR_CUDA,
                    "sticky device error in " + where + " (" + what +
                        "): the device context is lost; destroy every gmlab context and buffer and "
                        "restart the process",
                    true);
    }
    fail(GM_ERROR_CUDA, where + " failed: " + what);
}

}  // namespace gmlab
