#include "experiments/cache_hints/hint_models.hpp"

#include <algorithm>
#include <vector>

#include "core/measurement/verify.hpp"
#include "shared_kernels/pattern.hpp"

namespace gmlab {

std::uint64_t fetch_unit(std::uint64_t bytes) { return std::max(kSectorBytes, bytes); }

std::uint64_t fetched_bytes(std::uint64_t n_reads, std::uint64_t stride_bytes, std::uint64_t unit_bytes) {
    if (n_reads == 0 || unit_bytes == 0) return 0;
    // Units at least one stride apart each hold one word; closer ones every
    // unit from the first word's to the last word's.
    if (stride_bytes >= unit_bytes) return n_reads * unit_bytes;
    return ((n_reads - 1) * stride_bytes / unit_bytes + 1) * unit_bytes;
}

ReuseModel reuse_model(std::uint64_t n_stream, std::uint64_t n_reused) {
    ReuseModel m;
    if (n_reused == 0) return m;
    const std::uint64_t stream_bytes = 16 * n_stream, reused_bytes = 16 * n_reused;
    m.reused_reads = static_cast<double>(n_stream) / static_cast<double>(n_reused);
    m.reused_read_bytes = 16 * n_stream;  // one reused vector per stream vector
    m.dram_protected = stream_bytes + std::min(reused_bytes, m.reused_read_bytes);
    m.dram_unprotected = stream_bytes + m.reused_read_bytes;
    m.reused_hit_share_protected =
        m.reused_read_bytes ? 1.0 - static_cast<double>(std::min(reused_bytes, m.reused_read_bytes)) / static_cast<double>(m.reused_read_bytes)
                            : 0.0;
    return m;
}

std::uint64_t pattern_sum(std::uint64_t first, std::uint64_t n, std::uint32_t seed) {
    return parallel_sum(n, [&](std::uint64_t k) { return static_cast<std::uint64_t>(pattern_word(first + k, seed)); });
}

ReuseSums reuse_sums(std::uint64_t n_stream, std::uint64_t n_reused, std::uint32_t stream_seed, std::uint32_t reused_seed) {
    ReuseSums s;
    s.stream = pattern_sum(0, 4 * n_stream, stream_seed);
    if (n_reused == 0) return s;
    // Whole passes over the reused set, then the first n_stream mod n_reused vectors once more.
    const std::uint64_t passes = n_stream / n_reused, rest = n_stream % n_reused;
    s.reused = passes * pattern_sum(0, 4 * n_reused, reused_seed) + pattern_sum(0, 4 * rest, reused_seed);
    return s;
}

std::uint64_t strided_sum(std::uint64_t n_reads, std::uint64_t stride_words, std::uint32_t seed) {
    return parallel_sum(n_reads, [&](std::uint64_t i) { return static_cast<std::uint64_t>(pattern_word(i * stride_words, seed)); });
}

}  // namespace gmlab
