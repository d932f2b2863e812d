// The STREAM kernels (copy, scale, add, triad) on double arrays, written to
// saturate DRAM: 16-byte accesses, several independent loads per thread.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace gmlab::kernels {

enum class StreamOp { Copy, Scale, Add, Triad };

// copy: out = x; scale: out = s * x; add: out = x + y; triad: out = x + s * y.
// n doubles (even), pointers 16-byte aligned; unroll is 1, 2, 4 or 8 vectors per
// thread. streaming: loads and stores carry the evict-first hint (ld/st.global.cs),
// since nothing is read twice.
// persistent_blocks > 0: a grid of that many blocks loops over the array
// (grid-stride) instead of one block per chunk.
cudaError_t launch_stream(StreamOp op, int unroll, bool streaming, int block, int persistent_blocks, const double *x,
                          const double *y, double *out, double s, std::size_t n, cudaStream_t stream);

// Blocks of `block` threads that fit on the device at once for the kernel
// launch_stream would use (occupancy x multiprocessors).
cudaError_t stream_resident_blocks(StreamOp op, int unroll, bool streaming, int block, int multiprocessors, int *out);

// p[i] = pattern_double(i, seed) for i < n.
cudaError_t launch_fill_doubles(double *p, std::size_t n, std::uint32_t seed, cudaStream_t stream);

}  // namespace gmlab::kernels
