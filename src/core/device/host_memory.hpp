// Host memory for the transfer experiments: page-locked (pinned) buffers that
// count themselves, pageable buffers, and a check of the host's free memory
// before anything large is allocated.
#pragma once

#include <cstddef>
#include <string>

namespace gmlab {

// Bytes the host can still give without swapping: MemAvailable from
// /proc/meminfo, else sysinfo's free + buffer memory.
std::size_t host_available_bytes();

// Throws Error(GM_ERROR_OUT_OF_MEMORY) naming `what` when `bytes` is more than
// `fraction` of the host memory available now.
void require_host_memory(std::size_t bytes, double fraction, const std::string &what);

// Page-locked host memory from cudaHostAlloc, freed on every path. A failed
// allocation is an error (GM_ERROR_OUT_OF_MEMORY), never a silent fall-back to
// pageable memory: an experiment that measures pinned memory must have it.
class PinnedHostBuffer {
public:
    // flags: cudaHostAllocDefault, cudaHostAllocMapped, ... `what` names the
    // buffer in the error message.
    PinnedHostBuffer(std::size_t bytes, unsigned flags, const std::string &what);
    ~PinnedHostBuffer();
    PinnedHostBuffer(const PinnedHostBuffer &) = delete;
    PinnedHostBuffer &operator=(const PinnedHostBuffer &) = delete;
    PinnedHostBuffer(PinnedHostBuffer &&other) noexcept;

    void *get() const { return ptr_; }
    template <class T> T *as() const { return static_cast<T *>(ptr_); }
    std::size_t bytes() const { return bytes_; }

    // Pinned buffers alive now in this process (tests check it returns to 0
    // after an error).
    static int live_count();
    // Test hook: the allocation after `n` more successful ones fails as if
    // cudaHostAlloc had run out of page-locked memory; a negative n turns it off.
    static void fail_after_for_testing(int n);

private:
    void *ptr_ = nullptr;
    std::size_t bytes_ = 0;
};

// Ordinary (pageable) host memory, every page touched once at allocation so
// that first-touch faults never fall inside a timed copy.
class PageableHostBuffer {
public:
    PageableHostBuffer(std::size_t bytes, const std::string &what);
    ~PageableHostBuffer();
    PageableHostBuffer(const PageableHostBuffer &) = delete;
    PageableHostBuffer &operator=(const PageableHostBuffer &) = delete;

    void *get() const { return ptr_; }
    template <class T> T *as() const { return static_cast<T *>(ptr_); }
    std::size_t bytes() const { return bytes_; }

private:
    void *ptr_ = nullptr;
    std::size_t bytes_ = 0;
};

// Page-locks existing host memory (cudaHostRegister) and unlocks it
// (cudaHostUnregister) when it leaves scope, on every path. A refused
// registration is an error (GM_ERROR_OUT_OF_MEMORY, or GM_ERROR_NOT_SUPPORTED
// where the device cannot register host memory) naming `what`.
class HostRegistration {
public:
    HostRegistration(void *ptr, std::size_t bytes, unsigned flags, const std::string &what);
    ~HostRegistration();
    HostRegistration(const HostRegistration &) = delete;
    HostRegistration &operator=(const HostRegistration &) = delete;

    // Registrations alive now in this process (tests check it returns to 0).
    static int live_count();

private:
    void *ptr_ = nullptr;
};

// Host memory that verification downloads kernel output into: page-locked
// where the host gives it (the download runs at the link's speed, several
// times faster than into pageable memory), else ordinary memory. Nothing is
// measured through it, so the fall-back changes only how long a check takes.
class StagingBuffer {
public:
    StagingBuffer(std::size_t bytes, const std::string &what);
    ~StagingBuffer();
    StagingBuffer(const StagingBuffer &) = delete;
    StagingBuffer &operator=(const StagingBuffer &) = delete;

    template <class T> T *as() const { return static_cast<T *>(ptr_); }
    std::size_t bytes() const { return bytes_; }
    bool pinned() const { return pinned_; }

private:
    void *ptr_ = nullptr;
    std::size_t bytes_ = 0;
    bool pinned_ = false;
};

}  // namespace gmlab
