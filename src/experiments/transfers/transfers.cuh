// Kernels of the host<->device experiments (zero_copy, copy_overlap, peer).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace gmlab::kernels {

// The affine step of copy_overlap's kernel: x <- x * kAffineA + kAffineB (mod
// 2^32). Repeated k times it is still affine, so the host checks every output
// in O(1) per element (see affine_power) while the device does k dependent
// integer multiply-adds.
constexpr std::uint32_t kAffineA = 1664525u;
constexpr std::uint32_t kAffineB = 1013904223u;

// out[i] = the affine step applied `iterations` times to in[i], i < n.
cudaError_t launch_affine_loop(const std::uint32_t *in, std::uint32_t *out, std::size_t n, unsigned iterations,
                               int multiprocessors, cudaStream_t stream);

// zero_copy's kernel: out[j] = 3 * in[j] + 1 for every j < n, thread t
// handling j = (t mod (n / stride)) * stride + t / (n / stride): a permutation,
// so neighbouring threads are `stride` words apart (stride 1: coalesced).
// n must be a multiple of stride. in and out may be mapped host memory.
cudaError_t launch_scale_permuted(const std::uint32_t *in, std::uint32_t *out, std::size_t n, std::size_t stride,
                                  cudaStream_t stream);

// dst[i] = src[i] for i < n 16-byte words, grid-stride; src may live on a peer
// device (the kernel runs on dst's device, the current one).
cudaError_t launch_copy_words(const void *src, void *dst, std::size_t n16, int multiprocessors, cudaStream_t stream);

}  // namespace gmlab::kernels
