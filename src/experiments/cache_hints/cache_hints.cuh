// Kernels of the cache_hints experiment: a reused working set read while a
// stream passes once, with a cache hint on either; and strided reads with the
// L2 prefetch instruction and the prefetch-size qualifiers.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace gmlab::kernels {

// How a load is issued.
enum class LoadHint {
    Default,       // ld.global
    Streaming,     // ld.global.cs (__ldcs): evict first, in L1 and L2
    L1NoAllocate,  // ld.global.L1::no_allocate: not kept in L1
    EvictFirst,    // ld.global.L2::cache_hint, policy createpolicy.fractional.L2::evict_first (CC >= 8.0)
    EvictLast,     // ld.global.L2::cache_hint, policy createpolicy.fractional.L2::evict_last (CC >= 8.0)
};

inline constexpr unsigned kReuseStreamThreads = 512;

// A grid-stride loop over the stream's 16-byte vectors: iteration i reads
// stream vector i with `stream_hint` and reused vector i mod n_reused with
// `reused_hint`. Block b writes the sums of the 32-bit words it read:
// partials[2b] of the stream's, partials[2b + 1] of the reused set's. Both
// arrays 16-byte aligned; 1 <= n_reused, n_stream < 2^31 vectors. EvictFirst
// and EvictLast need compute capability 8.0 (below it they load as Default).
cudaError_t launch_reuse_stream(LoadHint stream_hint, LoadHint reused_hint, const std::uint32_t *stream,
                                std::uint32_t n_stream, const std::uint32_t *reused, std::uint32_t n_reused, unsigned blocks,
                                unsigned long long *partials, cudaStream_t st);

// How a strided read asks L2 to fetch more than the sector it needs.
enum class Prefetch {
    None,         // ld.global
    Instruction,  // prefetch.global.L2 of the address the thread reads next, then ld.global
    Size64,       // ld.global.L2::64B
    Size128,      // ld.global.L2::128B
    Size256,      // ld.global.L2::256B (CC >= 8.0; below it a plain load)
};

inline constexpr unsigned kStridedThreads = 256;

// Reads the words i x stride_words of `data` for i < n_reads < 2^31 (a
// grid-stride loop); block b writes the sum of the words it read to partials[b].
cudaError_t launch_strided_read(Prefetch prefetch, const std::uint32_t *data, std::uint32_t n_reads,
                                std::uint32_t stride_words, unsigned blocks, unsigned long long *partials, cudaStream_t st);

}  // namespace gmlab::kernels
