// Host models of the cache_hints experiment, no device needed: the bytes L2
// fetches from DRAM for strided reads (the sector model against a larger fetch
// unit), what a reused set read beside a stream costs in DRAM bytes with and
// without protection, and the sums the kernels must produce.
#pragma once

#include <cstdint>

namespace gmlab {

inline constexpr std::uint64_t kSectorBytes = 32;

// The unit L2 fetches from DRAM for a fetch-granularity limit or a prefetch
// size of `bytes`: never less than the 32-byte sector (0: no limit asked, the
// sector).
std::uint64_t fetch_unit(std::uint64_t bytes);

// n_reads 4-byte words stride_bytes apart from a base aligned to the unit:
// the bytes of every aligned unit_bytes unit that holds one of them (each
// unit fetched whole, once). At unit = 32 this is the guide's sector model.
std::uint64_t fetched_bytes(std::uint64_t n_reads, std::uint64_t stride_bytes, std::uint64_t unit_bytes);

// A stream of n_stream 16-byte vectors read once beside a reused set of
// n_reused vectors read at vector i mod n_reused for every stream vector i
// (n_stream >= n_reused >= 1), L2 flushed before:
struct ReuseModel {
    double reused_reads = 0;        // times the reused set is read per launch (n_stream / n_reused)
    std::uint64_t reused_read_bytes = 0;  // bytes the reused loads ask for
    std::uint64_t dram_protected = 0;     // DRAM bytes when the reused set stays in L2: stream + reused once
    std::uint64_t dram_unprotected = 0;   // when every reused read misses: stream + every reused read
    double reused_hit_share_protected = 0;  // reused sectors that hit when it stays: all but the first read
};
ReuseModel reuse_model(std::uint64_t n_stream, std::uint64_t n_reused);

// The sum (modulo 2^64) of pattern_word(k, seed) for k in [first, first + n).
std::uint64_t pattern_sum(std::uint64_t first, std::uint64_t n, std::uint32_t seed);

// What the reuse kernel's blocks must add up to: every stream word once, and
// the reused words of vector i mod n_reused for every stream vector i
// (patterns with the given seeds, 4 words per vector).
struct ReuseSums {
    std::uint64_t stream = 0, reused = 0;
};
ReuseSums reuse_sums(std::uint64_t n_stream, std::uint64_t n_reused, std::uint32_t stream_seed, std::uint32_t reused_seed);

// The sum of pattern_word(i x stride_words, seed) for i < n_reads.
std::uint64_t strided_sum(std::uint64_t n_reads, std::uint64_t stride_words, std::uint32_t seed);

}  // namespace gmlab
