// The device's L2 fetch granularity limit (cudaLimitMaxL2FetchGranularity): a
// hint of how many bytes L2 fetches from DRAM around a missed sector. It is
// device-wide, so whoever changes it puts it back.
#pragma once

#include <cstddef>

#include "core/device/context.hpp"

namespace gmlab {

// Reads the limit at construction and sets it back when it goes out of scope,
// on every path (never throws). Where CUDA does not offer the limit on this
// device, supported() is false and nothing is changed.
class FetchGranularityRestore {
public:
    explicit FetchGranularityRestore(ContextState &ctx);
    ~FetchGranularityRestore();
    FetchGranularityRestore(const FetchGranularityRestore &) = delete;
    FetchGranularityRestore &operator=(const FetchGranularityRestore &) = delete;

    bool supported() const { return supported_; }
    std::size_t found() const { return saved_; }
    // Asks for `bytes`; returns false where CUDA refuses it (nothing changed),
    // else true with the limit in force afterwards in *in_force.
    bool set(std::size_t bytes, std::size_t *in_force);
    // Puts the limit found back now (throws Error when CUDA fails).
    void restore();

private:
    ContextState &ctx_;
    std::size_t saved_ = 0;
    bool supported_ = false;
};

}  // namespace gmlab
