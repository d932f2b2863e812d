// Kernels of the l2_partitions experiment: which SM ids exist, lines written
// whole from one block, and a pointer chase pinned to one SM that times every
// hop on its own, so that each line's latency is seen from each SM.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace gmlab::kernels {

inline constexpr unsigned kSmIdWords = 32;            // SM ids below 32 x 32 = 1024 are recorded
inline constexpr unsigned kMaxTimedHops = 8192;       // per-hop cycles kept in shared memory (32 KiB)
inline constexpr std::size_t kChaseLineBytes = 128;   // one pointer per L2 line
inline constexpr std::size_t kChasePageBytes = 2u << 20;  // address translation is warmed one load per 2 MiB page
inline constexpr unsigned kPinnedChaseThreads = 512;

// What one pinned chase leaves behind. The host zeroes it before the launch;
// claim stays 0 when no block of the launch ran on the target SM.
struct PinnedChaseHead {
    unsigned claim;             // 1: a block on the target SM took the launch
    unsigned smid;              // the SM the chase ran on
    unsigned long long last;    // byte offset of the line the chase stopped at
    unsigned long long sum;     // sum of the byte offsets the timed hops loaded (the host walks the same ring)
    unsigned long long cycles;  // clock64 cycles from the first timed hop to the end of the last
    unsigned long long ns;      // %globaltimer nanoseconds of the same interval
};

// seen[k] bit b is set when a block ran on SM 32 k + b; *nsmid = %nsmid (an
// upper bound of the SM ids). `blocks` blocks of one warp, each staying a few
// microseconds so that they spread over every SM. seen must be zeroed first.
cudaError_t launch_sm_census(unsigned *seen, unsigned *nsmid, unsigned blocks, cudaStream_t stream);

// Writes n whole 128-byte lines at base + offset(i), offset(i) = offsets[i]
// (or i x 128 where offsets is null): word 0 holds the address of line
// next[i], the other 15 words filler, so that L2 holds every sector of each
// line. With blocks = 1 every line is written from one SM, whose id goes to
// *writer_smid when it is not null.
cudaError_t launch_write_lines(char *base, const unsigned long long *offsets, const std::uint32_t *next, unsigned n,
                               unsigned blocks, unsigned *writer_smid, cudaStream_t stream);

// `blocks` blocks of kPinnedChaseThreads threads; only a block that runs on SM
// `target` and is the first to claim *head goes on. With block_warm_bytes, its
// threads first read the line starts of [base, base + block_warm_bytes) through
// ld.global.cg. Then thread 0 loads the start of each of `warm_pages` 2 MiB
// pages (untimed: address translation and the loop's instructions), and
// follows the ring from byte offset `start` for `hops` (1..kMaxTimedHops)
// dependent ld.global.cg loads, each timed on its own with clock64 (the cycles
// from issuing the load to a store that waits for its value). cycles[h] gets
// hop h's cycles where cycles is not null.
cudaError_t launch_pinned_chase(const char *base, unsigned target_smid, unsigned long long start, unsigned hops,
                                unsigned warm_pages, unsigned long long block_warm_bytes, unsigned blocks,
                                PinnedChaseHead *head, unsigned *cycles, cudaStream_t stream);

}  // namespace gmlab::kernels
