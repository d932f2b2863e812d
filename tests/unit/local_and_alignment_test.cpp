// Without a device: the kernel catalogue covers every experiment, the load
// table of the alignment kernels is consistent, and the bad-input checks of
// local_memory, register_pressure, alignment and pitch_2d name their limits.
#include <cstdint>
#include <limits>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "alignment.cuh"
#include "error.hpp"
#include "kernel_catalogue.cuh"
#include "kernel_resources.hpp"
#include "pitch_2d.hpp"
#include "register_pressure.cuh"
#include "registry.hpp"

using namespace gmlab;
using nlohmann::json;

namespace {

// The message of the Error that resolving `params` for `experiment` throws ("" if none).
std::string param_error(const std::string &experiment, const json &params) {
    try {
        resolve_params(find_experiment(experiment).params, params, experiment);
    } catch (const Error &e) {
        EXPECT_EQ(e.status(), GM_ERROR_INVALID_ARGUMENT);
        return e.what();
    }
    return "";
}

std::string pitch_error(std::size_t w, std::size_t h, std::size_t max_pitch) {
    try {
        pitch_2d_bytes(w, h, 4, max_pitch);
    } catch (const Error &e) {
        EXPECT_EQ(e.status(), GM_ERROR_INVALID_ARGUMENT);
        return e.what();
    }
    return "";
}

}  // namespace

TEST(KernelCatalogue, EveryExperimentHasItsKernels) {
    std::set<std::string> experiments;
    for (const auto &e : registry()) experiments.insert(e.name);
    std::set<std::string> covered, names;
    for (const auto &k : kernels::kernel_catalogue()) {
        EXPECT_NE(k.func, nullptr) << k.name;
        EXPECT_FALSE(k.name.empty());
        EXPECT_TRUE(experiments.count(k.experiment) || k.experiment == kSupportKernels)
            << k.name << " is registered for an unknown experiment '" << k.experiment << "'";
        EXPECT_TRUE(names.insert(k.experiment + "/" + k.name).second) << "registered twice: " << k.name;
        covered.insert(k.experiment);
    }
    // transfer and transfer_batching only copy: they have no kernel of their own.
    const std::set<std::string> copies_only = {"transfer", "transfer_batching"};
    for (const auto &e : experiments)
        EXPECT_EQ(covered.count(e) == 1, copies_only.count(e) == 0) << e << (covered.count(e) ? " registers kernels" : " registers no kernel");
    EXPECT_TRUE(covered.count(kSupportKernels));
}

TEST(KernelCatalogue, DescribeListsTheKernelNamesWithoutADevice) {
    const json d = describe(find_experiment("register_pressure"));
    ASSERT_TRUE(d.contains("kernels"));
    EXPECT_EQ(d["kernels"].size(), kernels::pressure_caps().size());
    EXPECT_EQ(kernel_names("local_memory").size(), 3u);
    EXPECT_EQ(kernel_names("alignment").size(), static_cast<std::size_t>(kernels::kAlignmentKernelCount));
    EXPECT_EQ(kernel_names("").size(), kernels::kernel_catalogue().size());
    EXPECT_FALSE(kernel_names(kSupportKernels).empty());
    try {
        kernel_names("nope");
        FAIL() << "an unknown experiment must be refused";
    } catch (const Error &e) {
        EXPECT_EQ(e.status(), GM_ERROR_UNKNOWN_EXPERIMENT);
        EXPECT_NE(std::string(e.what()).find("pitch_2d"), std::string::npos) << e.what();
    }
}

TEST(AlignmentTable, EntriesAreConsistent) {
    for (const auto &k : kernels::kAlignmentKernels) {
        SCOPED_TRACE(k.kernel);
        EXPECT_GE(k.stride, k.data);
        EXPECT_EQ(k.stride % k.load_bytes, 0);
        // The loads cover the record's data and at most its padding.
        EXPECT_GE(k.loads_per_record * k.load_bytes, k.data);
        EXPECT_LE(k.loads_per_record * k.load_bytes, k.stride);
        EXPECT_GE(k.stores_per_record, 1);
    }
    for (int data : {8, 12, 16})
        for (const char *v : {"packed", "aligned", "vector"}) EXPECT_GE(kernels::alignment_kernel_index(v, data, 0), 0) << v << data;
    for (int data : {8, 16})
        for (int w : {1, 2, 4, 8}) EXPECT_GE(kernels::alignment_kernel_index("misaligned", data, w), 0) << data << " " << w;
    EXPECT_EQ(kernels::alignment_kernel_index("misaligned", 12, 4), -1);
    EXPECT_EQ(kernels::alignment_kernel_index("vector", 10, 0), -1);
}

TEST(RegisterPressure, CapsFollowFromMinBlocks) {
    for (const auto &c : kernels::pressure_caps()) {
        const int cap = std::min(255, 65536 / (256 * c.min_blocks) / 8 * 8);
        EXPECT_EQ(c.cap, cap) << "min_blocks " << c.min_blocks;
    }
}

TEST(LocalAndAlignmentParams, BadInputNamesTheAllowedValues) {
    EXPECT_EQ(param_error("register_pressure", {{"caps", {64, 50}}}), "caps must be one of 255, 128, 80, 64, 48, 40, 32, got 50");
    EXPECT_EQ(param_error("register_pressure", {{"caps", "32,64"}}), "");
    EXPECT_NE(param_error("register_pressure", {{"iterations", 0}}).find("iterations must be in 1..4096"), std::string::npos);
    EXPECT_NE(param_error("local_memory", {{"rounds", 0}}).find("rounds must be in 1..4096, got 0"), std::string::npos);
    EXPECT_NE(param_error("local_memory", {{"variants", "registers,spilled"}}).find("spilled"), std::string::npos);
    EXPECT_NE(param_error("local_memory", {{"threads", 1099511627776LL}}).find("threads must be in 0..268435456"), std::string::npos);
    EXPECT_EQ(param_error("alignment", {{"record_sizes", {10}}}), "record_sizes must be one of 8, 12, 16, got 10");
    EXPECT_NE(param_error("alignment", {{"offsets", {0}}}).find("offsets must be in 1..15, got 0"), std::string::npos);
    EXPECT_NE(param_error("alignment", {{"offsets", {16}}}).find("offsets must be in 1..15, got 16"), std::string::npos);
    EXPECT_NE(param_error("alignment", {{"misaligned_sizes", {12}}}).find("must be one of 8, 16"), std::string::npos);
    EXPECT_NE(param_error("pitch_2d", {{"widths", {0}}}).find("widths must be in 1..1073741824, got 0"), std::string::npos);
    EXPECT_NE(param_error("pitch_2d", {{"widths", {-5}}}).find("widths must be in"), std::string::npos);
    EXPECT_NE(param_error("pitch_2d", {{"height", "4294967296"}}).find("height must be"), std::string::npos);
    EXPECT_EQ(param_error("pitch_2d", {{"widths", {32769}}, {"height", 16}}), "");
}

TEST(Pitch2D, SizesAreCheckedAgainstZeroOverflowAndThePitchLimit) {
    const std::size_t max = std::numeric_limits<std::size_t>::max();
    EXPECT_EQ(pitch_2d_bytes(32769, 1000, 4, 1u << 31), 32769u * 1000u * 4u);
    EXPECT_EQ(pitch_error(0, 10, 1u << 31), "width must be at least 1, got 0");
    EXPECT_EQ(pitch_error(10, 0, 1u << 31), "height must be at least 1, got 0");
    EXPECT_NE(pitch_error(max / 2, 1, max).find("overflows"), std::string::npos);
    EXPECT_NE(pitch_error(1u << 20, max / 4, max).find("overflows"), std::string::npos);
    const std::string limit = pitch_error(1u << 30, 1, 2147483647);
    EXPECT_NE(limit.find("4294967296 bytes"), std::string::npos) << limit;
    EXPECT_NE(limit.find("largest pitch of 2147483647 bytes"), std::string::npos) << limit;
}
