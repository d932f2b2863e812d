// The stream-ordered allocator's pools as the allocation experiment uses
// them: the device's default pool with its release threshold set to 0 for the
// measurement and restored on every path, and a pool of its own, destroyed on
// every path. Both leave the process's pools as they were found.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "core/error.hpp"

namespace gmlab {

// The default pool of `device` with release threshold 0 (what a program that
// never set it gets: freed memory goes back to the device at every
// synchronisation) until it leaves scope, when the threshold found is restored.
class DefaultPoolThreshold {
public:
    explicit DefaultPoolThreshold(int device) {
        GM_CUDA(cudaDeviceGetDefaultMemPool(&pool_, device));
        GM_CUDA(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &saved_));
        std::uint64_t zero = 0;
        GM_CUDA(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &zero));
    }
    ~DefaultPoolThreshold() { cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &saved_); }
    DefaultPoolThreshold(const DefaultPoolThreshold &) = delete;
    DefaultPoolThreshold &operator=(const DefaultPoolThreshold &) = delete;

    cudaMemPool_t get() const { return pool_; }
    std::uint64_t saved() const { return saved_; }

private:
    cudaMemPool_t pool_ = nullptr;
    std::uint64_t saved_ = 0;
};

// A pool of device memory on `device` that keeps up to `threshold` bytes of
// freed memory across synchronisations. Destroyed on every path; whatever it
// still holds goes back to the device then.
class OwnedPool {
public:
    OwnedPool(int device, std::uint64_t threshold) {
        cudaMemPoolProps props{};
        props.allocType = cudaMemAllocationTypePinned;
        props.handleTypes = cudaMemHandleTypeNone;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = device;
        GM_CUDA(cudaMemPoolCreate(&pool_, &props));
        if (cudaError_t err = cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &threshold); err != cudaSuccess) {
            cudaMemPoolDestroy(pool_);
            pool_ = nullptr;
            GM_CUDA(err);
        }
    }
    ~OwnedPool() {
        if (pool_) cudaMemPoolDestroy(pool_);
    }
    OwnedPool(const OwnedPool &) = delete;
    OwnedPool &operator=(const OwnedPool &) = delete;

    cudaMemPool_t get() const { return pool_; }

private:
    cudaMemPool_t pool_ = nullptr;
};

}  // namespace gmlab
