// cluster_shared without a device: the cluster sizes a device allows, with
// each refusal naming the allowed values; the exchange's shared memory and
// bytes; and the word each block sends.
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/experiment/registry.hpp"
#include "experiments/cluster_shared/cluster_plan.hpp"
#include "unit_checks.hpp"

using namespace gmlab;

namespace {

std::string size_error(long long size, int max_cluster, bool nonportable, const std::string &why = "") {
    return argument_error([&] { check_cluster_size(size, max_cluster, nonportable, why); });
}

}  // namespace

TEST(ClusterPlan, AllowedSizesFollowTheOccupancyLimitAndThePortableOne) {
    EXPECT_EQ(allowed_cluster_sizes(16, true), (std::vector<long long>{1, 2, 4, 8, 16}));
    EXPECT_EQ(allowed_cluster_sizes(16, false), (std::vector<long long>{1, 2, 4, 8}));
    EXPECT_EQ(allowed_cluster_sizes(8, true), (std::vector<long long>{1, 2, 4, 8}));
    EXPECT_EQ(allowed_cluster_sizes(6, true), (std::vector<long long>{1, 2, 4}));
}

TEST(ClusterPlan, RefusedSizesNameTheAllowedValues) {
    EXPECT_EQ(size_error(16, 16, true), "");
    EXPECT_EQ(size_error(8, 8, false), "");
    const std::string odd = size_error(3, 16, true);
    EXPECT_TRUE(contains(odd, "cluster_sizes must be powers of two in 1..16 (1, 2, 4, 8, 16), got 3")) << odd;
    const std::string portable = size_error(16, 16, false);
    EXPECT_TRUE(contains(portable, "above the portable limit of 8")) << portable;
    EXPECT_TRUE(contains(portable, "cluster_sizes must be one of 1, 2, 4, 8 on this device")) << portable;
    const std::string occupancy = size_error(16, 8, true, "cudaOccupancyMaxPotentialClusterSize");
    EXPECT_TRUE(contains(occupancy, "16 is more than this device allows (cudaOccupancyMaxPotentialClusterSize: 8)")) << occupancy;
    EXPECT_TRUE(contains(occupancy, "one of 1, 2, 4, 8 on this device")) << occupancy;
}

TEST(ClusterPlan, TheExchangeFitsSharedMemoryAndCountsItsBytes) {
    EXPECT_EQ(exchange_shared_bytes(16, 4096), 65536u);
    EXPECT_EQ(argument_error([] { check_slice(4096, 16, 232448); }), "");
    const std::string big = argument_error([] { check_slice(65536, 8, 232448); });
    EXPECT_TRUE(contains(big, "slice_bytes: 8 slots of 65536 bytes need 524288 bytes")) << big;
    EXPECT_TRUE(contains(big, "at cluster size 8 slice_bytes must be in 16..29056")) << big;
    EXPECT_TRUE(contains(argument_error([] { check_slice(100, 2, 232448); }), "slice_bytes must be a multiple of 16"));
    // 2 clusters of 4 blocks, each sending 1 KiB to 3 others, 10 rounds.
    EXPECT_DOUBLE_EQ(exchanged_bytes(4, 1024, 10, 2), 2.0 * 4 * 3 * 1024 * 10);
    EXPECT_DOUBLE_EQ(exchanged_bytes(1, 1024, 10, 2), 0.0);
}

TEST(ClusterPlan, EachSenderReceiverAndRoundSendsDistinctWords) {
    std::set<std::uint32_t> first_words;
    for (std::uint32_t r = 0; r < 4; ++r)
        for (std::uint32_t src = 0; src < 8; ++src)
            for (std::uint32_t dst = 0; dst < 8; ++dst)
                if (src != dst) first_words.insert(exchange_word(r, 3, src, dst, 0));
    EXPECT_EQ(first_words.size(), 4u * 8u * 7u);  // a slot written by the wrong sender, or a stale round, is seen
    EXPECT_EQ(exchange_word(1, 2, 3, 4, 5), exchange_word(1, 2, 3, 4, 0) + 5);
}

TEST(ClusterSharedParams, BadInputNamesTheAllowedValues) {
    EXPECT_EQ(param_error("cluster_shared", {{"cluster_sizes", {1, 2, 8}}, {"hops", 256}, {"rounds", 16}}), "");
    EXPECT_TRUE(contains(param_error("cluster_shared", {{"cluster_sizes", {3}}}), "cluster_sizes must be one of 1, 2, 4, 8, 16, got 3"));
    EXPECT_TRUE(contains(param_error("cluster_shared", {{"cluster_sizes", {32}}}), "cluster_sizes must be one of 1, 2, 4, 8, 16, got 32"));
    EXPECT_TRUE(contains(param_error("cluster_shared", {{"slice_bytes", 100}}), "slice_bytes must be a multiple of 16, got 100"));
    EXPECT_TRUE(contains(param_error("cluster_shared", {{"rounds", 0}}), "rounds must be in 1..65536, got 0"));
}

// Where a key could be an instance of more than one declared figure (a plain
// name and a pattern with axes, or two patterns), it resolves to its own
// declaration; and the experiment declares its chart.
TEST(ClusterSharedFigures, EachSummaryKeyResolvesToItsOwnFigure) {
    const Experiment &e = find_experiment("cluster_shared");
    const std::pair<std::string, std::string> key_and_figure[] = {
        {"max_active_clusters_c8", "max_active_clusters_c{size}"},
        {"resident_blocks_c16", "resident_blocks_c{size}"},
        {"remote_cycles_c2", "{chase}_cycles_c{size}"},
        {"local_cycles_c1", "{chase}_cycles_c{size}"},
        {"local_cycles", "local_cycles"},
        {"local_generic_cycles", "local_generic_cycles"},
        {"dsm_gbs_c4", "{memory}_gbs_c{size}"},
        {"dsm_over_global_c2", "dsm_over_global_c{size}"},
        {"dsm_over_global_best", "dsm_over_global_best"},
    };
    for (const auto &[key, name] : key_and_figure) {
        const Figure *f = declared_figure(e, key);
        ASSERT_NE(f, nullptr) << key;
        EXPECT_EQ(f->name, name) << key;
    }
    ASSERT_TRUE(e.chart.has_value());
    EXPECT_EQ(e.chart->leave_out, (std::vector<std::string>{"dsm", "global"}));
}
