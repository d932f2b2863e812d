#include "experiments/transfers/transfers.cuh"

#include "shared_kernels/kernel_catalogue.cuh"

namespace gmlab::kernels {

namespace {

__global__ void affine_loop_kernel(const std::uint32_t *__restrict__ in, std::uint32_t *__restrict__ out, std::size_t n,
                                   unsigned iterations) {
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        std::uint32_t x = in[i];
        // Not unrolled: unrolled steps could be folded into one multiply-add
        // with combined constants, and the loop would no longer cost k steps.
#pragma unroll 1
        for (unsigned k = 0; k < iterations; ++k) x = x * kAffineA + kAffineB;
        out[i] = x;
    }
}

__global__ void scale_permuted_kernel(const std::uint32_t *in, std::uint32_t *out, std::size_t n, std::size_t stride) {
    const std::size_t rows = n / stride;  // threads that share one position within a stride
    const std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (t >= n) return;
    const std::size_t j = (t % rows) * stride + t / rows;
    out[j] = 3u * in[j] + 1u;
}

__global__ void copy_words_kernel(const uint4 *__restrict__ src, uint4 *__restrict__ dst, std::size_t n) {
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        dst[i] = src[i];
}

unsigned grid_for(std::size_t n, int block, int multiprocessors) {
    const std::size_t need = (n + block - 1) / block;
    const std::size_t cap = static_cast<std::size_t>(multiprocessors > 0 ? multiprocessors : 64) * 8;
    return static_cast<unsigned>(need < cap ? (need ? need : 1) : cap);
}

GM_KERNEL("copy_overlap", "affine_loop_kernel", affine_loop_kernel);
GM_KERNEL("zero_copy", "scale_permuted_kernel", scale_permuted_kernel);
GM_KERNEL("peer", "copy_words_kernel (kernel_read)", copy_words_kernel);

}  // namespace

cudaError_t launch_affine_loop(const std::uint32_t *in, std::uint32_t *out, std::size_t n, unsigned iterations,
                               int multiprocessors, cudaStream_t stream) {
    if (n == 0) return cudaSuccess;
    affine_loop_kernel<<<grid_for(n, 256, multiprocessors), 256, 0, stream>>>(in, out, n, iterations);
    return cudaGetLastError();
}

cudaError_t launch_scale_permuted(const std::uint32_t *in, std::uint32_t *out, std::size_t n, std::size_t stride,
                                  cudaStream_t stream) {
    if (n == 0 || stride == 0 || n % stride != 0) return cudaErrorInvalidValue;
    const std::size_t blocks = (n + 255) / 256;
    if (blocks > 0x7fffffffu) return cudaErrorInvalidValue;
    scale_permuted_kernel<<<static_cast<unsigned>(blocks), 256, 0, stream>>>(in, out, n, stride);
    return cudaGetLastError();
}

cudaError_t launch_copy_words(const void *src, void *dst, std::size_t n16, int multiprocessors, cudaStream_t stream) {
    if (n16 == 0) return cudaSuccess;
    copy_words_kernel<<<grid_for(n16, 256, multiprocessors), 256, 0, stream>>>(static_cast<const uint4 *>(src),
                                                                              static_cast<uint4 *>(dst), n16);
    return cudaGetLastError();
}

}  // namespace gmlab::kernels
