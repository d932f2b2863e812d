#include "bank_model.hpp"

#include <algorithm>
#include <set>

namespace gmlab {

int shared_wavefronts(int word_bytes, unsigned stride) {
    const int lanes_per_pass = word_bytes == 8 ? 16 : 32;
    int passes = 0;
    for (int first = 0; first < 32; first += lanes_per_pass) {
        std::set<unsigned> words_in_bank[32];  // distinct 4-byte words per bank
        for (int lane = first; lane < first + lanes_per_pass; ++lane) {
            const unsigned byte = static_cast<unsigned>(lane) * stride * static_cast<unsigned>(word_bytes);
            for (unsigned b = byte; b < byte + static_cast<unsigned>(word_bytes); b += 4) words_in_bank[(b / 4) % 32].insert(b / 4);
        }
        std::size_t worst = 1;
        for (const auto &w : words_in_bank) worst = std::max(worst, w.size());
        passes += static_cast<int>(worst);
    }
    return passes;
}

int shared_conflict_ways(int word_bytes, unsigned stride) {
    return shared_wavefronts(word_bytes, stride) / shared_wavefronts(word_bytes, 1);
}

}  // namespace gmlab
