// Kernels of the compressible-memory experiment: the write it times (the
// data of one kind, 16-byte stores), and the check of what was written. Its
// read is the shared read_sum.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "experiments/compressible/compressible_data.hpp"

namespace gmlab::kernels {

// Word i of p (i < n16 x 4) = data_word(kind, i, seed); a grid of at most
// `multiprocessors` x 8 blocks of 256 threads, grid-stride.
cudaError_t launch_write_data(void *p, std::size_t n16, DataKind kind, std::uint32_t seed, int multiprocessors,
                              cudaStream_t stream);

// *bad += the words of p (n16 x 4) that differ from data_word(kind, i, seed).
cudaError_t launch_count_bad_words(const void *p, std::size_t n16, DataKind kind, std::uint32_t seed,
                                   unsigned long long *bad, int multiprocessors, cudaStream_t stream);

}  // namespace gmlab::kernels
