// Constant memory: a warp reading k distinct __constant__ words at once, and
// the nine-point 1D stencil with its coefficients in constant memory or read
// from global memory through the read-only path (__ldg).
#pragma once

#include <cstddef>
#include <mutex>

#include <cuda_runtime_api.h>

namespace gmlab::kernels {

// __constant__ symbols belong to the process: whoever writes them (the
// stencil's coefficients, the broadcast's words; the experiment here and
// gm_stencil_constant) holds this until the kernels reading them have finished.
std::mutex &constant_memory_mutex();

constexpr int kConstTableWords = 96;  // 64 iteration offsets + up to 32 distinct lanes

// Fills the constant table the broadcast kernel reads.
cudaError_t set_constant_table(const float *values, cudaStream_t stream);

// Lane l of every warp adds c_table[(it % 64) + (l % k)] for it < iterations;
// out[thread] = the sum.
cudaError_t launch_constant_read(unsigned k, unsigned iterations, int blocks, int block, float *out, cudaStream_t stream);

constexpr int kStencilRadius = 4;

// out[i] = sum_{r=1..4} c[r-1] * (in[i+r] - in[i-r]), in taken as 0 outside [0, n).
// constant: coefficients from constant memory (set_stencil_coefficients first);
// otherwise read from coef_global (4 floats on the device) through __ldg.
cudaError_t set_stencil_coefficients(const float *coefficients, cudaStream_t stream);
cudaError_t launch_stencil(bool constant, const float *in, float *out, std::size_t n, const float *coef_global,
                           int block, int per_thread, cudaStream_t stream);

}  // namespace gmlab::kernels
