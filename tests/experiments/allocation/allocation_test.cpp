// Host-side parts of the allocation experiment: its parameters, the
// per-GiB fit of page-locking, the flat cost of a pool, and the pool's
// release threshold.
#include <gtest/gtest.h>

#include "core/experiment/registry.hpp"
#include "experiments/allocation/allocation_model.hpp"
#include "unit_checks.hpp"

using namespace gmlab;
using nlohmann::json;

TEST(AllocationParams, DefaultsSpan256BytesTo1GiB) {
    const Experiment &e = find_experiment("allocation");
    EXPECT_TRUE(e.default_suite);
    json r = resolve_params(e.params, json::object(), e.name);
    EXPECT_EQ(r["min_size"], 256);
    EXPECT_EQ(r["max_size"], 1 << 30);
    EXPECT_EQ(r["pool_release_threshold"], 0);
    EXPECT_EQ(r["series"], json({"malloc", "pool_default", "pool_threshold", "memset", "malloc_host", "host_register", "first_touch"}));
}

TEST(AllocationParams, BadInputIsRefusedWithTheRange) {
    EXPECT_TRUE(contains(param_error("allocation", {{"min_size", 0}}), "min_size must be in 1..")) << param_error("allocation", {{"min_size", 0}});
    EXPECT_TRUE(contains(param_error("allocation", {{"pool_release_threshold", "2048GiB"}}), "pool_release_threshold must be in 0.."));
    EXPECT_TRUE(contains(param_error("allocation", {{"pool_release_threshold", -1}}), "pool_release_threshold must be in 0.."));
    EXPECT_TRUE(contains(param_error("allocation", {{"series", "calloc"}}), "series must be one of malloc"));
}

TEST(AllocationModel, PageCostIsFixedPlusPerGiB) {
    // 0.05 ms plus 300 ms per GiB.
    const std::vector<double> bytes = {262144, 4194304, 16777216};
    std::vector<double> ms;
    for (double b : bytes) ms.push_back(0.05 + 300 * b / (1 << 30));
    const PageCost c = fit_page_cost(bytes, ms);
    ASSERT_TRUE(c.fitted);
    EXPECT_NEAR(c.fixed_ms, 0.05, 1e-9);
    EXPECT_NEAR(c.ms_per_gib, 300, 1e-6);
    EXPECT_NEAR(c.predict_ms(1 << 30), 300.05, 1e-6);
    EXPECT_FALSE(fit_page_cost({4096}, {1}).fitted);  // one size: no slope
}

TEST(AllocationModel, FlatCostIsTheMedianAndItsSpread) {
    const FlatCost f = flat_cost({3, 2, 2.5, 4});
    EXPECT_DOUBLE_EQ(f.us, 2.75);
    EXPECT_DOUBLE_EQ(f.max_over_min, 2.0);
    EXPECT_DOUBLE_EQ(flat_cost({5}).us, 5);
}

TEST(AllocationModel, PoolThresholdDefaultsToMaxSizeAndIsBoundedByTheDevice) {
    EXPECT_EQ(pool_release_threshold(0, 1 << 30, 80ULL << 30), 1u << 30);
    EXPECT_EQ(pool_release_threshold(4096, 1 << 30, 80ULL << 30), 4096u);
    EXPECT_EQ(argument_error([] { pool_release_threshold(100ULL << 30, 1 << 30, 80ULL << 30); }),
              "pool_release_threshold must be in 0..85899345920 (0: max_size; at most the device's memory), got 107374182400");
}
