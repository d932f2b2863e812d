#include "experiments/shared_alloc/shared_alloc.cuh"

#include "shared_kernels/kernel_catalogue.cuh"

namespace gmlab::kernels {

namespace {

__global__ void static_reverse(int *d) {
    __shared__ int s[kReverseBlock];
    const int t = threadIdx.x;
    const std::size_t base = blockIdx.x * static_cast<std::size_t>(kReverseBlock);
    s[t] = d[base + t];
    __syncthreads();
    d[base + t] = s[kReverseBlock - 1 - t];
}

__global__ void dynamic_reverse(int *d) {
    extern __shared__ int s[];
    const int t = threadIdx.x, n = blockDim.x;
    const std::size_t base = blockIdx.x * static_cast<std::size_t>(n);
    s[t] = d[base + t];
    __syncthreads();
    d[base + t] = s[n - 1 - t];
}

GM_KERNEL("shared_alloc", "static_reverse (__shared__ int s[256])", static_reverse);
GM_KERNEL("shared_alloc", "dynamic_reverse (extern __shared__ int s[])", dynamic_reverse);

}  // namespace

cudaError_t launch_reverse(bool dynamic, int *d, std::size_t n, cudaStream_t stream) {
    if (n == 0 || n % kReverseBlock != 0) return cudaErrorInvalidValue;
    const unsigned blocks = static_cast<unsigned>(n / kReverseBlock);
    if (dynamic)
        dynamic_reverse<<<blocks, kReverseBlock, kReverseBlock * sizeof(int), stream>>>(d);
    else
        static_reverse<<<blocks, kReverseBlock, 0, stream>>>(d);
    return cudaGetLastError();
}

cudaError_t reverse_attributes(bool dynamic, cudaFuncAttributes *out) {
    return dynamic ? cudaFuncGetAttributes(out, dynamic_reverse) : cudaFuncGetAttributes(out, static_reverse);
}

}  // namespace gmlab::kernels
