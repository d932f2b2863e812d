// What the managed-memory measurements share: managed memory that frees
// itself, the unified-memory counters of one more repetition (or why there
// are none), and the host side of the test data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "core/device/context.hpp"
#include "core/experiment/result.hpp"
#include "core/measurement/harness.hpp"

namespace gmlab {

// cudaMallocManaged memory (attached globally), counted against the
// context's peak like device memory (it lives there once migrated), freed on
// every path; the advice given to it dies with it.
class ManagedBuffer {
public:
    ManagedBuffer(ContextState &ctx, std::size_t bytes, const std::string &what);
    ~ManagedBuffer();
    ManagedBuffer(const ManagedBuffer &) = delete;
    ManagedBuffer &operator=(const ManagedBuffer &) = delete;

    void *get() const { return ptr_; }
    template <class T> T *as() const { return static_cast<T *>(ptr_); }
    std::size_t bytes() const { return bytes_; }

    void advise(cudaMemoryAdvise advice, cudaMemLocation where) const;
    // Enqueues the migration of every page to `where` on `stream`.
    cudaError_t prefetch(cudaMemLocation where, cudaStream_t stream) const;

private:
    ContextState *ctx_;
    void *ptr_ = nullptr;
    std::size_t bytes_ = 0;
};

cudaMemLocation host_location();
cudaMemLocation device_location(int device);

// Whether this run reads the unified-memory counters, and if not why. They
// are read with counters = auto and on; where they are not available the run
// goes on without them (with counters = on the reason is also listed among
// the result's counter errors: the range profiler's counters, which `on`
// requires, are checked before the run).
struct UnifiedMemoryCounting {
    bool on = false;
    std::string reason;
};
UnifiedMemoryCounting unified_memory_counting(ContextState &ctx);

// One more repetition, outside the timed ones and after `prepare`, counted:
// the point's counters get the migrated bytes and the faults (um_*), and
// um_bytes_per_fault_group where the GPU faulted. A count that fails is noted
// in the result's counter errors; the experiment goes on.
void count_unified_memory_point(ContextState &ctx, const UnifiedMemoryCounting &counting, const Prepare &prepare,
                                const std::function<void()> &work, Point &p, Result &out);

// The array sizes of the sweep: min_size, then steps of 2^(1/per_octave) up
// to and including max_size, each a whole number of 4096-byte pages. Sizes
// that are not whole pages, or min_size above max_size, are refused naming
// the parameter.
std::vector<std::size_t> managed_sweep(std::size_t min_size, std::size_t max_size, double per_octave);

// Reads one word of every 4 KiB page of p (so that the host touches every page).
void host_read_pages(const void *p, std::size_t bytes);

}  // namespace gmlab
