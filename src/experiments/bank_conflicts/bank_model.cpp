#include "experiments/bank_conflicts/bank_model.hpp"

#include <algorithm>
#include <set>

namespace gmlab {

int shared_wavefronts(int word_bytes, unsigned stride) {
    // Distinct 4-byte words per bank over the whole warp, and the distinct bytes
    // the warp asks for: shared memory serves one word per bank, and at most
    // 128 bytes, per pass.
    std::set<unsigned> words_in_bank[32];
    std::set<unsigned> words;
    for (unsigned lane = 0; lane < 32; ++lane) {
        const unsigned byte = lane * stride * static_cast<unsigned>(word_bytes);
        for (unsigned b = byte; b < byte + static_cast<unsigned>(word_bytes); b += 4) {
            words_in_bank[(b / 4) % 32].insert(b / 4);
            words.insert(b / 4);
        }
    }
    std::size_t worst = 1;
    for (const auto &w : words_in_bank) worst = std::max(worst, w.size());
    const std::size_t by_bytes = (words.size() * 4 + 127) / 128;
    return static_cast<int>(std::max(worst, by_bytes));
}

double shared_conflict_ways(int word_bytes, unsigned stride) {
    return static_cast<double>(shared_wavefronts(word_bytes, stride)) / shared_wavefronts(word_bytes, 1);
}

}  // namespace gmlab
