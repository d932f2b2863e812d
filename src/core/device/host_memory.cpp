#include "core/device/host_memory.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <sys/sysinfo.h>

#include <cuda_runtime_api.h>

#include "core/error.hpp"
#include "core/units.hpp"

namespace gmlab {

namespace {

std::atomic<int> g_live_pinned{0};
std::atomic<int> g_live_registered{0};
std::atomic<int> g_fail_after{-1};

}  // namespace

std::size_t host_available_bytes() {
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    unsigned long long kib = 0;
    std::string unit;
    while (meminfo >> key >> kib) {
        std::getline(meminfo, unit);
        if (key == "MemAvailable:") return static_cast<std::size_t>(kib) * 1024;
    }
    struct sysinfo si {};
    if (sysinfo(&si) != 0) return 0;
    return static_cast<std::size_t>((static_cast<unsigned long long>(si.freeram) + si.bufferram) * si.mem_unit);
}

void require_host_memory(std::size_t bytes, double fraction, const std::string &what) {
    const std::size_t available = host_available_bytes();
    const std::size_t budget = static_cast<std::size_t>(fraction * static_cast<double>(available));
    if (bytes > budget)
        fail(GM_ERROR_OUT_OF_MEMORY, what + " needs " + std::to_string(bytes) + " bytes (" + mib_text(static_cast<double>(bytes)) +
                                         ") of host memory, more than its budget of " + std::to_string(budget) +
                                         " bytes (memory_fraction " + std::to_string(fraction) + " of " +
                                         std::to_string(available) + " bytes available); ask for less");
}

PinnedHostBuffer::PinnedHostBuffer(std::size_t bytes, unsigned flags, const std::string &what) : bytes_(bytes) {
    if (bytes == 0) fail(GM_ERROR_INTERNAL, "PinnedHostBuffer of 0 bytes for " + what);
    int left = g_fail_after.load();
    while (left >= 0 && !g_fail_after.compare_exchange_weak(left, left - 1)) {
    }
    if (left == 0)
        fail(GM_ERROR_OUT_OF_MEMORY, "cannot allocate " + std::to_string(bytes) + " bytes of page-locked host memory for " +
                                         what + " (failure injected by a test)");
    cudaError_t err = cudaHostAlloc(&ptr_, bytes, flags);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        ptr_ = nullptr;
        fail(GM_ERROR_OUT_OF_MEMORY, "cannot allocate " + std::to_string(bytes) + " bytes (" + mib_text(static_cast<double>(bytes)) +
                                         ") of page-locked host memory for " + what + " (" + cudaGetErrorName(err) +
                                         ": " + cudaGetErrorString(err) + "); pinned memory is not replaced by pageable");
    }
    ++g_live_pinned;
}

PinnedHostBuffer::~PinnedHostBuffer() {
    if (ptr_) {
        cudaFreeHost(ptr_);
        --g_live_pinned;
    }
}

PinnedHostBuffer::PinnedHostBuffer(PinnedHostBuffer &&other) noexcept : ptr_(other.ptr_), bytes_(other.bytes_) {
    other.ptr_ = nullptr;
    other.bytes_ = 0;
}

int PinnedHostBuffer::live_count() { return g_live_pinned.load(); }

void PinnedHostBuffer::fail_after_for_testing(int n) { g_fail_after.store(n < 0 ? -1 : n); }

PageableHostBuffer::PageableHostBuffer(std::size_t bytes, const std::string &what) : bytes_(bytes) {
    if (bytes == 0) fail(GM_ERROR_INTERNAL, "PageableHostBuffer of 0 bytes for " + what);
    ptr_ = std::malloc(bytes);
    if (!ptr_)
        fail(GM_ERROR_OUT_OF_MEMORY, "cannot allocate " + std::to_string(bytes) + " bytes (" + mib_text(static_cast<double>(bytes)) +
                                         ") of host memory for " + what);
    std::memset(ptr_, 0, bytes);
}

PageableHostBuffer::~PageableHostBuffer() { std::free(ptr_); }

HostRegistration::HostRegistration(void *ptr, std::size_t bytes, unsigned flags, const std::string &what) {
    cudaError_t err = cudaHostRegister(ptr, bytes, flags);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        fail(err == cudaErrorNotSupported ? GM_ERROR_NOT_SUPPORTED : GM_ERROR_OUT_OF_MEMORY,
             "cannot page-lock " + std::to_string(bytes) + " bytes (" + mib_text(static_cast<double>(bytes)) + ") of host memory for " + what +
                 " with cudaHostRegister (" + cudaGetErrorName(err) + ": " + cudaGetErrorString(err) + ")");
    }
    ptr_ = ptr;
    ++g_live_registered;
}

HostRegistration::~HostRegistration() {
    if (ptr_) {
        cudaHostUnregister(ptr_);
        --g_live_registered;
    }
}

int HostRegistration::live_count() { return g_live_registered.load(); }

StagingBuffer::StagingBuffer(std::size_t bytes, const std::string &what) : bytes_(bytes) {
    if (bytes == 0) fail(GM_ERROR_INTERNAL, "StagingBuffer of 0 bytes for " + what);
    // Pinned only while it leaves the host plenty: a quarter of what is available.
    if (bytes <= host_available_bytes() / 4 && cudaHostAlloc(&ptr_, bytes, cudaHostAllocDefault) == cudaSuccess) {
        pinned_ = true;
        return;
    }
    (void)cudaGetLastError();  // a refused pinned allocation is not an error here
    ptr_ = std::malloc(bytes);
    if (!ptr_)
        fail(GM_ERROR_OUT_OF_MEMORY, "cannot allocate " + std::to_string(bytes) + " bytes (" + mib_text(static_cast<double>(bytes)) +
                                         ") of host memory for " + what);
}

StagingBuffer::~StagingBuffer() {
    if (pinned_)
        cudaFreeHost(ptr_);
    else
        std::free(ptr_);
}

}  // namespace gmlab
