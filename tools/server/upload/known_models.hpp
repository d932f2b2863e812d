// The device facts of GPU models the server knows from their vendors' data
// sheets: what an upload naming one of them must agree with, and what its
// figures are bounded by whatever its device block claims (plausibility.hpp).
#pragma once

#include <string_view>
#include <vector>

namespace gmserver {

struct KnownModel {
    std::string_view name;  // exactly as CUDA's device properties name it
    std::string_view compute_capability;
    int multiprocessors;
    double l2_bytes;           // cudaDevAttrL2CacheSize
    int bus_width_bits;        // cudaDevAttrGlobalMemoryBusWidth
    double memory_clock_mhz;   // cudaDevAttrMemoryClockRate / 1000 (the data rate's half)
    double sm_clock_mhz;       // cudaDevAttrClockRate / 1000 (the boost clock)
    double memory_gib;         // the board's memory, as the data sheet states it
    // The DRAM bandwidth the library computes from the two above:
    // 2 x memory clock x bus width / 8.
    double theoretical_gbs() const { return 2.0 * memory_clock_mhz * 1e6 * bus_width_bits / 8 / 1e9; }
};

// The model of that exact name, or null.
const KnownModel *find_known_model(std::string_view name);
// Every known model (tests, documentation).
const std::vector<KnownModel> &known_models();

}  // namespace gmserver
