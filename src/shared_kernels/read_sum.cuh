// A read of a whole array that sums what it reads, so that every byte must
// arrive and the host can check the sum (parallel_sum in verify.hpp): the
// read read_write times as DRAM reads alone, and the read the managed-memory
// and compressible-memory experiments time.
//
// Each thread requests `loads` 16-byte vectors (a warp's loads contiguous,
// block-strided) before it adds any, so that enough bytes are in flight to
// reach DRAM's read limit; the grid is one block per `block` x `loads`
// vectors (one pass: blocks start and retire in address order). A block's
// sum leaves it as one 8-byte partial or one atomic, never one per warp on a
// single address: the reduction costs nothing on the DRAM path.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace gmlab::kernels {

// The load instruction: plain ld.global, or ld.global.nc.L1::no_allocate
// with the L2::256B fetch hint (a 256-byte L2 fetch per request where DRAM
// serves it; the data is not written while the kernel reads it).
enum class ReadHint { Plain, L2Fetch256 };

struct ReadShape {
    int block = 256;  // threads per block, a multiple of 32 up to 1024
    int loads = 8;    // 16-byte vectors in flight per thread: 4, 8 or 16
    ReadHint hint = ReadHint::Plain;
};

// Whether `loads` is one the kernel is built for.
inline bool read_loads_supported(int loads) { return loads == 4 || loads == 8 || loads == 16; }

// The most threads a block of the read with this many loads and this hint
// may have: 16 loads in flight hold 64 registers of data per thread, more
// than a block of 1024 threads may have on some GPUs.
cudaError_t read_shape_max_block(int loads, ReadHint hint, int *threads);

// Blocks of a one-pass read of n16 vectors with this shape: one partial each.
inline std::size_t read_sum_blocks(std::size_t n16, const ReadShape &shape) {
    const std::size_t per_block = static_cast<std::size_t>(shape.block) * static_cast<std::size_t>(shape.loads);
    return (n16 + per_block - 1) / per_block;
}

// partial[b] = the sum, as 64-bit integers, of the 32-bit words of block b's
// block x loads vectors of p, for read_sum_blocks(n16, shape) blocks.
cudaError_t launch_read_partials(const void *p, std::size_t n16, unsigned long long *partial, const ReadShape &shape,
                                 cudaStream_t stream);

// *sum += the sum of the n16 x 4 32-bit words of p, as 64-bit integers: the
// default shape, one atomic per block. p may be managed or mapped host memory.
cudaError_t launch_read_sum(const void *p, std::size_t n16, unsigned long long *sum, cudaStream_t stream);

}  // namespace gmlab::kernels
