// One kernel with its shared memory declared two ways: a fixed-size static
// array, and an extern array sized at launch.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace gmlab::kernels {

constexpr int kReverseBlock = 256;

// Reverses every run of kReverseBlock ints of d in place (n a multiple of it).
cudaError_t launch_reverse(bool dynamic, int *d, std::size_t n, cudaStream_t stream);

// What the compiler gave each version (registers, static shared bytes, ...).
cudaError_t reverse_attributes(bool dynamic, cudaFuncAttributes *out);

}  // namespace gmlab::kernels
