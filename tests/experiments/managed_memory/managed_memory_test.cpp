// Host-side parts of the managed-memory experiment: its parameters, the
// sweep of whole pages, and the fault + link model's fit.
#include <gtest/gtest.h>

#include "core/experiment/registry.hpp"
#include "experiments/managed_memory/fault_model.hpp"
#include "experiments/managed_memory/managed_common.hpp"
#include "unit_checks.hpp"

using namespace gmlab;
using nlohmann::json;

TEST(ManagedMemoryParams, DefaultsAreAShortSweepAndEveryVariant) {
    const Experiment &e = find_experiment("managed_memory");
    EXPECT_TRUE(e.default_suite);
    json r = resolve_params(e.params, json::object(), e.name);
    EXPECT_EQ(r["min_size"], 64 << 10);
    EXPECT_EQ(r["max_size"], 16 << 20);
    EXPECT_EQ(r["variants"], json({"on_demand_read", "on_demand_write", "prefetch_read", "read_mostly_read", "accessed_by_read",
                                   "explicit_copy_read", "mapped_read", "ping_pong"}));
    EXPECT_EQ(r["pingpong_pages"], json({1, 16, 256}));
    // Large arrays by parameter.
    EXPECT_EQ(resolve_params(e.params, {{"max_size", "8GiB"}}, e.name)["max_size"], 8LL << 30);
}

TEST(ManagedMemoryParams, BadInputIsRefusedWithTheRange) {
    EXPECT_TRUE(contains(param_error("managed_memory", {{"min_size", 4095}}), "min_size must be in 4096..")) << param_error("managed_memory", {{"min_size", 4095}});
    EXPECT_TRUE(contains(param_error("managed_memory", {{"max_size", "2048GiB"}}), "max_size must be in 4096.."));
    EXPECT_TRUE(contains(param_error("managed_memory", {{"variants", "resident"}}), "variants must be one of on_demand_read"));
    EXPECT_TRUE(contains(param_error("managed_memory", {{"pingpong_pages", "0"}}), "pingpong_pages must be in 1..1048576, got 0"));
    EXPECT_TRUE(contains(param_error("managed_memory", {{"points_per_octave", 0}}), "points_per_octave must be in 0.05..8"));
}

TEST(ManagedMemorySweep, WholePagesFromMinToMax) {
    EXPECT_EQ(managed_sweep(64 << 10, 16 << 20, 0.25), (std::vector<std::size_t>{64 << 10, 1 << 20, 16 << 20}));
    EXPECT_EQ(managed_sweep(64 << 10, 1 << 20, 0.5), (std::vector<std::size_t>{64 << 10, 256 << 10, 1 << 20}));
    EXPECT_EQ(managed_sweep(8192, 8192, 1), (std::vector<std::size_t>{8192}));
    // Steps that fall between pages are rounded down to whole pages.
    for (std::size_t s : managed_sweep(4096, 1 << 20, 3)) EXPECT_EQ(s % 4096, 0u) << s;
    EXPECT_EQ(managed_sweep(4096, 12288, 8).back(), 12288u);
}

TEST(ManagedMemorySweep, SizesThatAreNotPagesAreRefusedNamingTheParameter) {
    EXPECT_EQ(argument_error([] { managed_sweep(65537, 1 << 20, 1); }),
              "min_size must be a whole number of 4096-byte pages, got 65537");
    EXPECT_EQ(argument_error([] { managed_sweep(65536, 1000000, 1); }),
              "max_size must be a whole number of 4096-byte pages, got 1000000");
    EXPECT_EQ(argument_error([] { managed_sweep(1 << 20, 65536, 1); }), "min_size (1048576) must not exceed max_size (65536)");
}

TEST(FaultModel, RecoversTheCostOfAFaultGroupAndTheLink) {
    // 20 us per fault group, 25 GB/s (0.04 ms per MB); bytes per group grows with
    // size, as the driver's larger migrations make it.
    const double groups[] = {4, 40, 120, 300}, bytes[] = {262144, 4194304, 33554432, 134217728};
    std::vector<FaultModelPoint> pts;
    for (int i = 0; i < 4; ++i) pts.push_back({groups[i], bytes[i], groups[i] * 0.02 + bytes[i] / 1e6 * 0.04});
    const FaultModel m = fit_fault_model(pts);
    ASSERT_TRUE(m.fitted) << m.why_not;
    EXPECT_NEAR(m.us_per_fault_group(), 20, 1e-6);
    EXPECT_NEAR(m.link_gbs(), 25, 1e-6);
    EXPECT_EQ(m.points, 4u);
    EXPECT_NEAR(m.predict_ms(100, 1e8), 100 * 0.02 + 100 * 0.04, 1e-9);
}

TEST(FaultModel, SaysWhyItCannotFit) {
    // Points without faults do not count.
    EXPECT_FALSE(fit_fault_model({{0, 1e6, 1}, {5, 2e6, 2}}).fitted);
    EXPECT_TRUE(contains(fit_fault_model({{0, 1e6, 1}, {5, 2e6, 2}}).why_not, "at least two"));
    // Groups and bytes in one proportion: the two costs cannot be told apart.
    const FaultModel p = fit_fault_model({{1, 1e6, 1}, {2, 2e6, 2}, {4, 4e6, 4}});
    EXPECT_FALSE(p.fitted);
    EXPECT_TRUE(contains(p.why_not, "same proportion")) << p.why_not;
    // Times that fall as faults rise (time = 2 ms per MB - 0.5 ms per group) do not follow the model.
    const FaultModel n = fit_fault_model({{1, 1e6, 1.5}, {4, 2e6, 2}, {10, 5e6, 5}});
    EXPECT_FALSE(n.fitted);
    EXPECT_TRUE(contains(n.why_not, "negative")) << n.why_not;
}
