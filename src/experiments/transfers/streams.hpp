// RAII for the extra CUDA objects of the transfer experiments: streams and
// events on a chosen device, a guard that restores the current device, and the
// release of one device's object from a destructor.
#pragma once

#include <vector>

#include <cuda_runtime_api.h>

#include "core/error.hpp"

namespace gmlab {

// Restores the calling thread's current device when it leaves scope, so that
// work on a peer device never leaves the context's device switched.
class DeviceGuard {
public:
    DeviceGuard() { GM_CUDA(cudaGetDevice(&saved_)); }
    // Makes `device` current until the guard leaves scope.
    explicit DeviceGuard(int device) : DeviceGuard() { GM_CUDA(cudaSetDevice(device)); }
    ~DeviceGuard() { cudaSetDevice(saved_); }
    DeviceGuard(const DeviceGuard &) = delete;
    DeviceGuard &operator=(const DeviceGuard &) = delete;

private:
    int saved_ = 0;
};

// For destructors, which must not throw (so DeviceGuard will not do): runs
// `release` with `device` current, then makes the calling thread's device
// current again. Errors are ignored, as on every release path.
template <class Release> void release_on_device(int device, Release release) noexcept {
    int current = 0;
    cudaGetDevice(&current);
    cudaSetDevice(device);
    release();
    cudaSetDevice(current);
}

// A non-blocking stream on `device` (like the context's own stream).
class OwnedStream {
public:
    explicit OwnedStream(int device) : device_(device) {
        DeviceGuard on(device);
        GM_CUDA(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking));
    }
    ~OwnedStream() {
        if (s_) release_on_device(device_, [this] { cudaStreamDestroy(s_); });
    }
    OwnedStream(const OwnedStream &) = delete;
    OwnedStream &operator=(const OwnedStream &) = delete;
    OwnedStream(OwnedStream &&o) noexcept : s_(o.s_), device_(o.device_) { o.s_ = nullptr; }
    cudaStream_t get() const { return s_; }
    int device() const { return device_; }

private:
    cudaStream_t s_ = nullptr;
    int device_ = 0;
};

// An event without timing, for ordering streams (fork and join).
class SyncEvent {
public:
    explicit SyncEvent(int device) : device_(device) {
        DeviceGuard on(device);
        GM_CUDA(cudaEventCreateWithFlags(&e_, cudaEventDisableTiming));
    }
    ~SyncEvent() {
        if (e_) cudaEventDestroy(e_);
    }
    SyncEvent(const SyncEvent &) = delete;
    SyncEvent &operator=(const SyncEvent &) = delete;
    SyncEvent(SyncEvent &&o) noexcept : e_(o.e_), device_(o.device_) { o.e_ = nullptr; }
    cudaEvent_t get() const { return e_; }

private:
    cudaEvent_t e_ = nullptr;
    int device_ = 0;
};

// Makes `waiter` wait for everything enqueued on `from` so far; returns the
// first failing status (for use inside a harness launch).
inline cudaError_t order_after(cudaStream_t waiter, cudaStream_t from, cudaEvent_t via) {
    if (cudaError_t e = cudaEventRecord(via, from); e != cudaSuccess) return e;
    return cudaStreamWaitEvent(waiter, via, 0);
}

// A stream that work forked from the harness's stream runs on, and the event
// that joins it back.
struct Lane {
    cudaStream_t stream;
    cudaEvent_t join;
};

// For use inside a harness launch on `s`: every lane waits for what `s` holds
// so far (through `fork`), `body` enqueues the work on the lanes, and `s`
// waits for every lane, so that an interval timed on `s` runs from the first
// lane's start to the last lane's end. Returns the first failing status.
template <class Body>
cudaError_t fork_join(cudaStream_t s, cudaEvent_t fork, const std::vector<Lane> &lanes, Body body) {
    if (cudaError_t e = cudaEventRecord(fork, s); e != cudaSuccess) return e;
    for (const Lane &l : lanes)
        if (cudaError_t e = cudaStreamWaitEvent(l.stream, fork, 0); e != cudaSuccess) return e;
    if (cudaError_t e = body(); e != cudaSuccess) return e;
    for (const Lane &l : lanes)
        if (cudaError_t e = order_after(s, l.stream, l.join); e != cudaSuccess) return e;
    return cudaSuccess;
}

}  // namespace gmlab
