// cluster_shared on a short sweep: the chases end where the host's walk does,
// the exchange delivers every word, the occupancy per cluster size is
// reported; not applicable below compute capability 9.0.
#include <string>

#include "gpu_fixture.hpp"

using nlohmann::json;

namespace {

bool hopper_or_newer(gm_context *ctx) { return compute_capability_major(ctx) >= 9; }

}  // namespace

TEST_F(GpuTest, ClusterSharedChasesAndExchanges) {
    json doc = run("cluster_shared", R"({"cluster_sizes": [1, 2, 4], "hops": 256, "rounds": 8, "slice_bytes": 2048})");
    ASSERT_FALSE(doc.is_null());
    if (!hopper_or_newer(ctx)) {
        EXPECT_EQ(doc["applicable"], false);
        EXPECT_NE(doc["notes"][0].get<std::string>().find("compute capability 9.0"), std::string::npos);
        return;
    }
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    const json *remote = series_named(doc, "distributed shared memory (the cluster's last block, ld.shared::cluster)");
    ASSERT_NE(remote, nullptr);
    ASSERT_EQ((*remote)["points"].size(), 2u);  // cluster sizes 2 and 4
    const json &sum = doc["summary"];
    for (const char *k : {"local_cycles", "remote_cycles", "l2_cycles", "remote_over_local", "max_active_clusters_c1",
                          "max_active_clusters_c2", "max_active_clusters_c4", "dsm_gbs_c2", "global_gbs_c4", "dsm_over_global_best"})
        EXPECT_TRUE(sum.contains(k)) << k << " " << sum.dump();
    // Robust on any cluster-capable GPU: another block's shared memory is
    // further than one's own, and a cluster of 4 is no easier to place than one of 2.
    EXPECT_GT(sum["remote_cycles"].get<double>(), sum["local_cycles"].get<double>());
    EXPECT_GE(sum["max_active_clusters_c2"].get<double>(), sum["max_active_clusters_c4"].get<double>());
    // The same ring through generic loads: no faster than ld.shared, and far
    // below an L2 hit (it is still shared memory).
    ASSERT_TRUE(sum.contains("local_generic_cycles")) << sum.dump();
    EXPECT_GE(sum["local_generic_cycles"].get<double>(), 0.95 * sum["local_cycles"].get<double>());
    EXPECT_LT(sum["local_generic_cycles"].get<double>(), sum["l2_cycles"].get<double>() / 2);
    EXPECT_GT(sum["max_active_clusters_c4"].get<double>(), 0);
    for (const char *v : {"dsm", "global"}) {
        bool found = false;
        for (const json &s : doc["series"])
            if (s["variant"] == v) {
                found = true;
                ASSERT_EQ(s["points"].size(), 2u);
                for (const json &p : s["points"]) EXPECT_GT(p["bandwidth_gbs"].get<double>(), 0);
            }
        EXPECT_TRUE(found) << v;
    }
}

TEST_F(GpuTest, ClusterSharedRefusesSizesTheDeviceDoesNot) {
    gm_result *r = nullptr;
    EXPECT_EQ(gm_run(&r, ctx, "cluster_shared", R"({"cluster_sizes": [3]})"), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gm_context_last_error(ctx)).find("cluster_sizes must be one of 1, 2, 4, 8, 16"), std::string::npos)
        << gm_context_last_error(ctx);
    if (!hopper_or_newer(ctx)) return;
    EXPECT_EQ(gm_run(&r, ctx, "cluster_shared", R"({"cluster_sizes": [8], "slice_bytes": 65536})"), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gm_context_last_error(ctx)).find("slice_bytes must be in 16.."), std::string::npos)
        << gm_context_last_error(ctx);
}
