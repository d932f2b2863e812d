// Pointer-chase latency and the memory-spaces table on small sweeps.
#include <string>

#include "gpu_fixture.hpp"

using nlohmann::json;

namespace {

double latency_at(const json &series, std::size_t i) { return series["points"][i]["values"]["latency_cycles"].get<double>(); }

}  // namespace

TEST_F(GpuTest, LatencyChaseStepsUpFromL1ToDram) {
    // 4 KiB .. 16 MiB with the L1 bypassed and not, plus the cold chase.
    json doc = run("latency", R"({"min_bytes": "4KiB", "max_bytes": "16MiB", "points_per_octave": 1, "hops": 512})");
    ASSERT_FALSE(doc.is_null());
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    ASSERT_EQ(doc["series"].size(), 3u);
    const json &ca = doc["series"][0], &cg = doc["series"][1], &dram = doc["series"][2];
    EXPECT_EQ(ca["variant"], "ca");
    EXPECT_EQ(cg["variant"], "cg");
    EXPECT_EQ(dram["variant"], "dram");
    ASSERT_EQ(ca["points"].size(), 13u);  // 4 KiB, 8 KiB, ..., 16 MiB
    ASSERT_EQ(dram["points"].size(), 1u);
    for (const json &s : {ca, cg, dram})
        for (const json &p : s["points"]) {
            EXPECT_GT(p["values"]["latency_cycles"].get<double>(), 1.0);
            EXPECT_GT(p["values"]["latency_ns"].get<double>(), 0.0);
        }
    // Robust on any GPU of CC >= 7.0: a 4 KiB ring read through L1 is faster
    // than the same ring read from L2, and a cold chase is slower than an L2 hit.
    EXPECT_LT(latency_at(ca, 0), latency_at(cg, 0));
    EXPECT_GT(latency_at(dram, 0), latency_at(cg, 0));
    const json &sum = doc["summary"];
    EXPECT_TRUE(sum.contains("l1_cycles")) << sum.dump();
    EXPECT_TRUE(sum.contains("l2_near_cycles")) << sum.dump();
    EXPECT_TRUE(sum.contains("dram_cycles")) << sum.dump();
    const double mhz = sum["sm_clock_mhz_measured"].get<double>();
    EXPECT_GT(mhz, 200.0);
    EXPECT_LT(mhz, 1.5 * sum["sm_clock_mhz_reported"].get<double>());
    EXPECT_TRUE(doc.contains("published"));
}

TEST_F(GpuTest, LatencyRejectsBadSweeps) {
    gm_result *r = nullptr;
    EXPECT_EQ(gm_run(&r, ctx, "latency", R"({"min_bytes": "1MiB", "max_bytes": "64KiB"})"), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gm_context_last_error(ctx)).find("max_bytes must be larger than min_bytes"), std::string::npos)
        << gm_context_last_error(ctx);
    EXPECT_EQ(gm_run(&r, ctx, "latency", R"({"stride": 100})"), GM_ERROR_INVALID_ARGUMENT);
    // The context is still usable.
    json doc = run("latency", R"({"min_bytes": "4KiB", "max_bytes": "64KiB", "points_per_octave": 1, "hops": 64})");
    EXPECT_FALSE(doc.is_null());
}

TEST_F(GpuTest, MemorySpacesMeasureEverySpaceInTheGuidesOrder) {
    json doc = run("memory_spaces", R"({"hops": 256})");
    ASSERT_FALSE(doc.is_null());
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    const char *order[] = {"registers", "shared", "constant", "l1", "l2", "dram", "local", "texture"};
    ASSERT_EQ(doc["series"].size(), 8u);
    for (std::size_t i = 0; i < 8; ++i) {
        EXPECT_EQ(doc["series"][i]["variant"], order[i]);
        EXPECT_GT(latency_at(doc["series"][i], 0), 0.5) << order[i];
    }
    const json &s = doc["summary"];
    // Orderings that hold on every GPU since Volta: on-chip before off-chip.
    EXPECT_LT(s["registers_cycles"].get<double>(), s["shared_cycles"].get<double>());
    EXPECT_LT(s["shared_cycles"].get<double>(), s["l2_cycles"].get<double>());
    EXPECT_LT(s["l1_cycles"].get<double>(), s["l2_cycles"].get<double>());
    EXPECT_LT(s["l2_cycles"].get<double>(), s["dram_cycles"].get<double>());
    EXPECT_LT(s["local_cycles"].get<double>(), s["dram_cycles"].get<double>());  // a small local array stays in L1
    EXPECT_GT(doc["series"][6]["points"][0]["values"]["local_bytes_per_thread"].get<double>(), 0.0);
    EXPECT_TRUE(s.contains("guide_order_holds"));
}
