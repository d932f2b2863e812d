#include "upload/known_models.hpp"

namespace gmserver {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// From the vendors' data sheets, in the units CUDA reports them (L2 in bytes,
// the memory clock as half the data rate). The H100 80GB HBM3 and H200 rows
// are the device blocks of the committed runs (results/) exactly; the others'
// SM counts, L2 sizes and bus widths are the data sheets', their clocks the
// boost and memory clocks CUDA reports for the reference boards, whose
// bandwidth (2 x memory clock x bus width / 8) is the data sheet's.
const std::vector<KnownModel> kModels = {
    // name                       cc     SMs  L2           bus   mem MHz  SM MHz  GiB
    {"NVIDIA H100 80GB HBM3",     "9.0", 132, 50 * kMiB,  5120, 2619,   1980,  79.2},   // 3352 GB/s
    {"NVIDIA H100 PCIe",          "9.0", 114, 50 * kMiB,  5120, 1593,   1755,  79.2},   // 2039 GB/s
    {"NVIDIA H200",               "9.0", 132, 60 * kMiB,  6016, 3201,   1980,  139.8},  // 4814 GB/s
    {"NVIDIA A100-SXM4-40GB",     "8.0", 108, 40 * kMiB,  5120, 1215,   1410,  39.6},   // 1555 GB/s
    {"NVIDIA A100-SXM4-80GB",     "8.0", 108, 40 * kMiB,  5120, 1593,   1410,  79.3},   // 2039 GB/s
    {"NVIDIA A100-PCIE-40GB",     "8.0", 108, 40 * kMiB,  5120, 1215,   1410,  39.6},   // 1555 GB/s
    {"NVIDIA A100 80GB PCIe",     "8.0", 108, 40 * kMiB,  5120, 1512,   1410,  79.3},   // 1935 GB/s
    {"NVIDIA L40S",               "8.9", 142, 96 * kMiB,  384,  9001,   2520,  44.5},   // 864 GB/s
    {"NVIDIA GeForce RTX 4090",   "8.9", 128, 72 * kMiB,  384,  10501,  2520,  23.6},   // 1008 GB/s
    {"Tesla V100-SXM2-16GB",      "7.0", 80,  6 * kMiB,   4096, 877,    1530,  15.8},   // 898 GB/s
    {"Tesla V100-SXM2-32GB",      "7.0", 80,  6 * kMiB,   4096, 877,    1530,  31.7},   // 898 GB/s
    {"Tesla V100-PCIE-16GB",      "7.0", 80,  6 * kMiB,   4096, 877,    1380,  15.8},   // 898 GB/s
    {"Tesla V100-PCIE-32GB",      "7.0", 80,  6 * kMiB,   4096, 877,    1380,  31.7},   // 898 GB/s
};

}  // namespace

const KnownModel *find_known_model(std::string_view name) {
    for (const KnownModel &m : kModels)
        if (m.name == name) return &m;
    return nullptr;
}

const std::vector<KnownModel> &known_models() { return kModels; }

}  // namespace gmserver
