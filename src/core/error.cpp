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
        fail(GM_ERROR_NO_DEVICE, "no CUDA device (" + what + ")");
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
