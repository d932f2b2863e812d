// The kernel catalogue, without a device: every experiment has its kernels, and
// describe lists their names.
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/experiment/kernel_resources.hpp"
#include "core/experiment/registry.hpp"
#include "experiments/alignment/alignment.cuh"
#include "experiments/register_pressure/register_pressure.cuh"
#include "shared_kernels/kernel_catalogue.cuh"

using namespace gmlab;
using nlohmann::json;

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
