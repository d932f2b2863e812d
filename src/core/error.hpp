// Internal errors. Library code throws gmlab::Error; the C shim (c_api.cpp)
// catches it at the boundary and turns it into a gm_status and a message.
#pragma once

#include <exception>
#include <string>

#include <cuda_runtime_api.h>

#include "gmlab.h"

namespace gmlab {

class Error : public std::exception {
public:
    Error(gm_status status, std::string message, bool sticky = false)
        : status_(status), message_(std::move(message)), sticky_(sticky) {}
    gm_status status() const noexcept { return status_; }
    // The device context is lost: every later call on it must fail.
    bool sticky() const noexcept { return sticky_; }
    const char *what() const noexcept override { return message_.c_str(); }

private:
    gm_status status_;
    std::string message_;
    bool sticky_ = false;
};

[[noreturn]] void fail(gm_status status, const std::string &message);
[[noreturn]] inline void invalid(const std::string &message) { fail(GM_ERROR_INVALID_ARGUMENT, message); }

// True for errors after which the CUDA context is unusable (a kernel faulted).
bool is_sticky(cudaError_t err);

// Turns a failed CUDA call into an Error: clears the error state, maps
// out-of-memory and no-device to their own codes, and names call, file and line.
void check_cuda(cudaError_t err, const char *call, const char *file, int line);

}  // namespace gmlab

#define GM_CUDA(call) ::gmlab::check_cuda((call), #call, __FILE__, __LINE__)
