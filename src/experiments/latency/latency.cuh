// Pointer chasing: one thread following a random single-cycle ring of
// dependent loads, timed inside the kernel with clock64 (SM cycles) and
// %globaltimer (nanoseconds). Global memory through L1 (ld.global.ca) or
// around it (ld.global.cg), and the other memory spaces: registers, shared,
// constant, texture and local memory.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "shared_kernels/chase_sample.hpp"

namespace gmlab::kernels {

enum class LoadPath { Cached, Bypass };  // ld.global.ca / ld.global.cg

// Writes the ring: the word at line i (stride_words 8-byte words apart) holds
// the device address of line next[i]'s word.
cudaError_t launch_build_ring(unsigned long long *ring, std::size_t stride_words, const std::uint32_t *next,
                              std::size_t lines, cudaStream_t stream);

// One block: with warm, all its threads first read every line of the ring
// through `path` (so that what fits is cached, on this multiprocessor too);
// then thread 0 follows the ring from line `start` for `prewalk` untimed and
// then `hops` timed dependent loads, and writes *out (last = the line it ended on).
cudaError_t launch_chase(LoadPath path, const unsigned long long *ring, std::size_t stride_words, std::size_t lines,
                         std::size_t start, unsigned prewalk, unsigned hops, bool warm, ChaseSample *out, cudaStream_t stream);

// Asks for the largest L1 (smallest shared-memory carve-out) for the chase kernels.
cudaError_t prefer_l1_for_chase();

// The other memory spaces, each a chase of dependent accesses by one thread.
enum class Space { Registers, Shared, Constant, Texture, Local };

constexpr int kSharedNodes = 2048;    // 4-byte nodes: 8 KiB of shared memory
constexpr int kConstantNodes = 16;    // one per 64 bytes: 1 KiB of constant memory
constexpr int kConstantStrideWords = 16;
constexpr int kTextureNodes = 256;    // one per 128 bytes: 32 KiB read through the texture path
constexpr int kTextureStrideWords = 32;
constexpr int kLocalNodes = 256;      // 4-byte nodes: a 1 KiB per-thread array

// Copies the constant ring (kConstantNodes x kConstantStrideWords words).
cudaError_t set_constant_ring(const std::uint32_t *words, cudaStream_t stream);

// Registers: x = x * a + c, `hops` times from `start` (last = x), the latency
// of a dependent integer multiply-add. Shared and Local: next_offsets holds
// kSharedNodes / kLocalNodes byte offsets of the next node, copied in first.
// Constant: the ring set by set_constant_ring (byte offsets). Texture: tex is a
// 1D texture of 32-bit words over a ring of word indices (tex1Dfetch). Every
// ring is walked once untimed, then `hops` times timed from node `start`; last
// is the node index it ended on.
cudaError_t launch_space_chase(Space space, const std::uint32_t *next_offsets, cudaTextureObject_t tex,
                               std::uint32_t start, unsigned hops, ChaseSample *out, cudaStream_t stream);

// The kernel's resources (local_bytes shows the local array is in local memory).
cudaError_t space_chase_attributes(Space space, cudaFuncAttributes *out);

// The register chain's step, for the host's check.
__host__ __device__ inline std::uint32_t register_step(std::uint32_t x) { return x * 2654435761u + 12345u; }

}  // namespace gmlab::kernels
