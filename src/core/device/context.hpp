// The state behind a gm_context. Buffers share ownership of it, so that a
// buffer destroyed after its context (a garbage collector's order) is still safe.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include <cuda_runtime_api.h>

#include "core/counters/counters.hpp"
#include "core/device/device_info.hpp"
#include "core/device/settings.hpp"

namespace gmlab {

class ContextState {
public:
    explicit ContextState(int device);
    ~ContextState();
    ContextState(const ContextState &) = delete;
    ContextState &operator=(const ContextState &) = delete;

    // Makes the device current on this thread and refuses to go on after a
    // sticky error. Every entry point calls it first.
    void activate();
    // Records a sticky error; later calls fail with its message.
    void mark_broken(const std::string &why) { broken_ = why; }

    int device() const { return info_.ordinal; }
    cudaStream_t stream() const { return stream_; }
    const DeviceInfo &info() const { return info_; }
    // The info with the free memory read now.
    DeviceInfo fresh_info();
    Settings settings;
    std::string last_error;

    // Bytes an experiment may allocate: memory_fraction of the free memory now.
    std::size_t memory_budget();

    // Device bytes allocated through DeviceArray, and the peak since reset_peak().
    void note_alloc(std::size_t bytes);
    void note_free(std::size_t bytes);
    void reset_peak() { peak_bytes_ = live_bytes_; }
    std::size_t peak_bytes() const { return peak_bytes_; }

    // Evicts L2: writes and reads a buffer twice the L2 size (allocated once).
    void flush_l2();
    // flush_l2, then a read of the same buffer that writes its dirty lines
    // back: before a counted launch, so that its DRAM writes are its own.
    void flush_and_clean_l2();
    // A short busy kernel ahead of a timed launch, so that the launch is queued
    // behind it and the host's enqueue time stays out of the event interval.
    void hold_stream();

    // cudaMemcpy device-to-device bandwidth (GB/s) once memcpy_peak_gbs
    // (measurement/harness.hpp) has measured it on this context; 0 before.
    double memcpy_gbs = 0.0;

    // Hardware counters (counters.hpp): whether they can be read on this
    // context, checked once with a short counted launch; never throws.
    const CounterAvailability &counter_availability();
    // The session to count with, or nullptr when the setting is off or
    // counters are not available.
    CounterSession *counter_session();

private:
    std::unique_ptr<CounterSession> counters_;
    DeviceInfo info_;
    cudaStream_t stream_ = nullptr;
    void *flush_buffer_ = nullptr;
    std::size_t flush_bytes_ = 0;
    std::size_t live_bytes_ = 0;
    std::size_t peak_bytes_ = 0;
    std::string broken_;
};

// cudaMalloc that reports exhaustion as GM_ERROR_OUT_OF_MEMORY with the sizes.
void *device_malloc(std::size_t bytes);

// Device memory owned by C++ code inside the library, counted against the
// context's peak. Frees itself on every path, errors included.
class DeviceArray {
public:
    DeviceArray(ContextState &ctx, std::size_t bytes);
    ~DeviceArray();
    DeviceArray(const DeviceArray &) = delete;
    DeviceArray &operator=(const DeviceArray &) = delete;
    DeviceArray(DeviceArray &&other) noexcept;

    void *get() const { return ptr_; }
    template <class T> T *as() const { return static_cast<T *>(ptr_); }
    std::size_t bytes() const { return bytes_; }

private:
    ContextState *ctx_;
    void *ptr_ = nullptr;
    std::size_t bytes_ = 0;
};

}  // namespace gmlab
