#include "experiments/cache_hints/fetch_limit.hpp"

#include <cuda_runtime_api.h>

#include "core/error.hpp"

namespace gmlab {

FetchGranularityRestore::FetchGranularityRestore(ContextState &ctx) : ctx_(ctx) {
    ctx.activate();
    supported_ = cudaDeviceGetLimit(&saved_, cudaLimitMaxL2FetchGranularity) == cudaSuccess;
    (void)cudaGetLastError();
}

FetchGranularityRestore::~FetchGranularityRestore() {
    if (!supported_) return;
    cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, saved_);
    (void)cudaGetLastError();
}

bool FetchGranularityRestore::set(std::size_t bytes, std::size_t *in_force) {
    if (!supported_) return false;
    ctx_.activate();
    // A refused value is a property of the device, not a failure: the caller says so.
    if (cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    GM_CUDA(cudaDeviceGetLimit(in_force, cudaLimitMaxL2FetchGranularity));
    return true;
}

void FetchGranularityRestore::restore() {
    if (!supported_) return;
    ctx_.activate();
    GM_CUDA(cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, saved_));
}

}  // namespace gmlab
