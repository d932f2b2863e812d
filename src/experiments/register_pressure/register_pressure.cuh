// One compute kernel with many live values, compiled under several register
// caps through __launch_bounds__(kPressureBlock, min_blocks).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <cuda_runtime_api.h>

namespace gmlab::kernels {

constexpr int kPressureBlock = 256;
constexpr int kPressureLive = 64;  // 32-bit values each thread keeps live across iterations

// A compiled instance: the register cap ptxas derives from min_blocks resident
// blocks of kPressureBlock threads (65536 registers per SM, allocated in units
// of 8 per thread), and the min_blocks it was built with.
struct PressureCap {
    int cap;
    int min_blocks;
};
const std::vector<PressureCap> &pressure_caps();

// Thread t keeps v[k] = in[k * threads + t] (k < 64) live and runs
// `iterations` times: for k in 0..63: v[k] = v[k] * (v[(k + 1) % 64] | 1) + k * 0x9E3779B1
// (32-bit wrap-around); out[t] = the sum of v. `cap` must be one of pressure_caps().
cudaError_t launch_pressure(int cap, const std::uint32_t *in, std::uint32_t *out, std::size_t threads, int iterations,
                            cudaStream_t stream);
cudaError_t pressure_attributes(int cap, cudaFuncAttributes *out);
// Resident blocks of kPressureBlock threads per multiprocessor for that instance.
cudaError_t pressure_occupancy(int cap, int *blocks_per_sm);

}  // namespace gmlab::kernels
