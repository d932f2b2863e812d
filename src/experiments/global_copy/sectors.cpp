#include "experiments/global_copy/sectors.hpp"

#include <set>

namespace gmlab {

int sectors_per_request(std::size_t word_bytes, std::size_t stride_words, std::size_t offset_words,
                        int threads) {
    std::set<std::size_t> sectors;
    for (int t = 0; t < threads; ++t) {
        const std::size_t first = (offset_words + static_cast<std::size_t>(t) * stride_words) * word_bytes;
        const std::size_t last = first + word_bytes - 1;
        for (std::size_t s = first / 32; s <= last / 32; ++s) sectors.insert(s);
    }
    return static_cast<int>(sectors.size());
}

double sector_efficiency(std::size_t word_bytes, std::size_t stride_words, std::size_t offset_words,
                         int threads) {
    const int sectors = sectors_per_request(word_bytes, stride_words, offset_words, threads);
    return static_cast<double>(word_bytes) * threads / (32.0 * sectors);
}

}  // namespace gmlab
