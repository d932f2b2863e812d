#include "core/device/context.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/units.hpp"
#include "shared_kernels/harness_kernels.cuh"

namespace gmlab {

ContextState::ContextState(int device) {
    int count = 0;
    GM_CUDA(cudaGetDeviceCount(&count));
    if (count == 0) fail(GM_ERROR_NO_DEVICE, "no CUDA device");
    if (device < 0 || device >= count)
        invalid("device must be in 0.." + std::to_string(count - 1) + ", got " +
                std::to_string(device));
    GM_CUDA(cudaSetDevice(device));
    info_ = query_device(device);
    GM_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    std::size_t free_b = 0, total_b = 0;
    GM_CUDA(cudaMemGetInfo(&free_b, &total_b));
    info_.free_bytes_at_start = free_b;
}

ContextState::~ContextState() {
    // Destructors must not throw: errors here are ignored on purpose (the
    // process may be tearing down the CUDA runtime already).
    cudaSetDevice(info_.ordinal);
    counters_.reset();  // disables the range profiler while the context is whole
    if (flush_buffer_) cudaFree(flush_buffer_);
    if (stream_) cudaStreamDestroy(stream_);
}

void ContextState::activate() {
    if (!broken_.empty()) fail(GM_ERROR_CUDA, broken_);
    GM_CUDA(cudaSetDevice(info_.ordinal));
}

DeviceInfo ContextState::fresh_info() {
    DeviceInfo d = info_;
    std::size_t total_b = 0;
    GM_CUDA(cudaMemGetInfo(&d.free_bytes_at_start, &total_b));
    return d;
}

std::size_t ContextState::memory_budget() {
    std::size_t free_b = 0, total_b = 0;
    GM_CUDA(cudaMemGetInfo(&free_b, &total_b));
    return static_cast<std::size_t>(settings.memory_fraction * static_cast<double>(free_b));
}

void ContextState::note_alloc(std::size_t bytes) {
    live_bytes_ += bytes;
    peak_bytes_ = std::max(peak_bytes_, live_bytes_);
}

void ContextState::note_free(std::size_t bytes) { live_bytes_ -= std::min(bytes, live_bytes_); }

void ContextState::flush_l2() {
    if (!flush_buffer_) {
        // Twice the L2 size (at least 4 MiB) evicts it even where the
        // replacement policy keeps part of what it held.
        flush_bytes_ = std::max<std::size_t>(2 * info_.l2_bytes, 4 * kMiB);
        flush_bytes_ = (flush_bytes_ + 15) / 16 * 16;
        flush_buffer_ = device_malloc(flush_bytes_);
        GM_CUDA(cudaMemsetAsync(flush_buffer_, 0, flush_bytes_, stream_));
    }
    GM_CUDA(kernels::launch_l2_flush(flush_buffer_, flush_bytes_, info_.multiprocessors, stream_));
}

void ContextState::flush_and_clean_l2() {
    flush_l2();
    GM_CUDA(kernels::launch_l2_clean(flush_buffer_, flush_bytes_, info_.multiprocessors, stream_));
}

void ContextState::hold_stream() {
    // About 20 microseconds: longer than the host needs to enqueue an event,
    // a launch and another event.
    const long long cycles = static_cast<long long>(info_.clock_khz) * 20 / 1000;
    GM_CUDA(kernels::launch_spin(std::max(cycles, 20000LL), stream_));
}

const CounterAvailability &ContextState::counter_availability() {
    if (!counters_) {
        // The CUcontext the runtime made current for this device, through the
        // driver's entry point (libgmlab does not link the driver library).
        void *cu_context = nullptr;
        void *fn = nullptr;
        cudaDriverEntryPointQueryResult found{};
        if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &found) == cudaSuccess &&
            found == cudaDriverEntryPointSuccess && fn) {
            using GetCurrent = int (*)(void **);
            if (reinterpret_cast<GetCurrent>(fn)(&cu_context) != 0) cu_context = nullptr;
        }
        (void)cudaGetLastError();
        counters_ = std::make_unique<CounterSession>(cu_context, info_.ordinal);
    }
    return counters_->availability([this]() -> int {
        if (cudaError_t err = kernels::launch_spin(20000, stream_); err != cudaSuccess) return static_cast<int>(err);
        return static_cast<int>(cudaStreamSynchronize(stream_));
    });
}

CounterSession *ContextState::counter_session() {
    if (settings.counters == CounterMode::Off) return nullptr;
    return counter_availability().available ? counters_.get() : nullptr;
}

void *device_malloc(std::size_t bytes) {
    void *ptr = nullptr;
    cudaError_t err = cudaMalloc(&ptr, bytes);
    if (err == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        std::size_t free_b = 0, total_b = 0;
        cudaMemGetInfo(&free_b, &total_b);
        fail(GM_ERROR_OUT_OF_MEMORY, "cannot allocate " + std::to_string(bytes) +
                                         " bytes of device memory (" + std::to_string(free_b) +
                                         " bytes free of " + std::to_string(total_b) + ")");
    }
    GM_CUDA(err);
    return ptr;
}

DeviceArray::DeviceArray(ContextState &ctx, std::size_t bytes) : ctx_(&ctx), bytes_(bytes) {
    if (bytes == 0) fail(GM_ERROR_INTERNAL, "DeviceArray of 0 bytes");
    ptr_ = device_malloc(bytes);
    ctx.note_alloc(bytes);
}

DeviceArray::~DeviceArray() {
    if (ptr_) {
        cudaFree(ptr_);
        ctx_->note_free(bytes_);
    }
}

DeviceArray::DeviceArray(DeviceArray &&other) noexcept
    : ctx_(other.ctx_), ptr_(other.ptr_), bytes_(other.bytes_) {
    other.ptr_ = nullptr;
    other.bytes_ = 0;
}

}  // namespace gmlab
