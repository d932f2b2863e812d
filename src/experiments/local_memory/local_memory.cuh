// A per-thread array indexed at run time (the compiler places it in local
// memory) against the same work with compile-time indices (registers).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace gmlab::kernels {

constexpr int kLocalWords = 64;   // words of each thread's array
constexpr int kLocalBlock = 256;

enum class LocalVariant {
    Registers,       // every index known at compile time: the array lives in registers
    LocalUniform,    // run-time index, the same in every lane of a warp (coalesced local access)
    LocalDivergent   // run-time index that differs per lane (each lane its own local-memory row)
};

// Thread t loads a[k] = in[k * threads + t] (k < kLocalWords), then for each of
// `rounds` rounds visits every word once: acc += a[i]; a[i] = a[i] * 3 + 1.
// out[t] = acc + sum of the final a. The order of visits within a round is the
// variant's (registers: 0..63; uniform: (j + base) mod 64; divergent:
// (j + lane + base) mod 64); the result does not depend on it. base must be 0;
// it is an argument only so that the compiler cannot resolve the index.
cudaError_t launch_local_array(LocalVariant v, const std::uint32_t *in, std::uint32_t *out, std::size_t threads,
                               int rounds, int base, cudaStream_t stream);

cudaError_t local_array_attributes(LocalVariant v, cudaFuncAttributes *out);

}  // namespace gmlab::kernels
