// Copies global -> shared -> global four ways: the Tensor Memory Accelerator's
// 1D bulk copies (cp.async.bulk) and 2D tiles through a tensor map
// (cp.async.bulk.tensor.2d), each with a ring of shared buffers and one
// mbarrier per stage; cp.async (the async_copy family's path) with the same
// ring; and plain loads and stores through registers. Every kernel can run a
// persistent grid: block b copies chunks b, b + grid, b + 2 grid, ...; the
// TMA kernels also one pass (per_block > 0): block b copies the per_block
// consecutive chunks from b x per_block, once, and the grid covers the array.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace gmlab::kernels {

// Which kernel: the host's CopyPath (tma_plan.hpp) in the same order.
enum class TmaKernel { Bulk = 0, Tensor = 1, CpAsync = 2, Registers = 3 };

constexpr int kTmaBlock = 32;          // bulk and tensor: one warp, lane 0 issues every copy
constexpr int kThreadCopyBlock = 128;  // cp.async and registers: every lane copies 16-byte vectors

// The 128-byte CUtensorMap of the driver API, held opaquely so that this
// header needs the runtime API only; encode_tensor_maps fills it.
struct alignas(64) TensorMapBytes {
    unsigned char bytes[128];
};

// One stage ring of the kernels: `stages` (1..4) buffers of `chunk` bytes,
// each at a 128-byte boundary, and an 8-byte mbarrier per stage after them.
// launch_*: `blocks` blocks with shared_bytes of dynamic shared memory, as
// ring_shared_bytes (tma_plan.hpp) computes it; per_block (bulk, tensor) 0 for
// a persistent grid, else 1..stages chunks per block in one pass.

// 1D bulk copies of `bytes` (a multiple of 16) from in to out in chunks of
// `chunk` bytes (a multiple of 16; the last chunk may be shorter).
cudaError_t launch_bulk_copy(const void *in, void *out, std::size_t bytes, std::size_t chunk, int stages, int blocks,
                             int per_block, std::size_t shared_bytes, cudaStream_t stream);

// Whether this process can encode tensor maps: the driver entry point
// cuTensorMapEncodeTiled, asked for through cudaGetDriverEntryPoint(ByVersion).
// cudaErrorNotSupported, with *why saying what was missing, when not.
cudaError_t tensor_maps_available(const char **why);

// Tensor maps for in and out viewed as rows x cols 4-byte elements (row
// stride cols x 4 bytes), with a box of box_cols x box_rows elements. The
// driver's CUresult, if it refuses, in *driver_status (0 where it accepted).
cudaError_t encode_tensor_maps(const void *in, void *out, std::uint64_t rows, std::uint64_t cols, std::uint32_t box_cols,
                               std::uint32_t box_rows, TensorMapBytes *in_map, TensorMapBytes *out_map, int *driver_status);

// 2D tiles through the two tensor maps: tiles_x x tiles_y tiles of box_cols x
// box_rows elements, row by row.
cudaError_t launch_tensor_copy(const TensorMapBytes &in_map, const TensorMapBytes &out_map, std::uint32_t tiles_x,
                               std::uint32_t tiles_y, std::uint32_t box_cols, std::uint32_t box_rows, int stages,
                               int blocks, int per_block, std::size_t shared_bytes, cudaStream_t stream);

// cp.async (async = true: 16 bytes a lane, the ring of `stages`) or registers
// (async = false: one buffer, stages must be 1), then every lane stores its
// vectors from shared memory to out. bytes and chunk multiples of 16.
cudaError_t launch_thread_copy(bool async, const void *in, void *out, std::size_t bytes, std::size_t chunk, int stages,
                               int blocks, std::size_t shared_bytes, cudaStream_t stream);

// Lets every kernel use up to `bytes` of dynamic shared memory per block.
cudaError_t allow_tma_shared(std::size_t bytes);

// Blocks of the kernel (path, stages) that one multiprocessor holds at once
// with `shared_bytes` of dynamic shared memory.
cudaError_t tma_resident_blocks(TmaKernel path, int stages, std::size_t shared_bytes, int *blocks_per_sm);

// Resources of the kernel (path, stages).
cudaError_t tma_kernel_attributes(TmaKernel path, int stages, cudaFuncAttributes *out);

// Verification on the device: counts the words of p[0..n_words) that differ
// from pattern_word(i, seed) into result[0] and the smallest such i into
// result[1] (atomicMin), which the caller sets to 0 and ~0 first.
cudaError_t launch_count_mismatches(const std::uint32_t *p, std::size_t n_words, std::uint32_t seed,
                                    unsigned long long *result, cudaStream_t stream);

}  // namespace gmlab::kernels
