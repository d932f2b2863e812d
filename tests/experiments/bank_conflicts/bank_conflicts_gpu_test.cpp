// bank_conflicts against the bank model.
#include "gpu_fixture.hpp"

using nlohmann::json;

TEST_F(GpuTest, BankConflictsFollowTheModel) {
    json doc = run("bank_conflicts", R"({"strides": "0..2,32", "iterations": 256, "blocks_per_sm": 1})");
    ASSERT_FALSE(doc.is_null());
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    ASSERT_EQ(doc["series"].size(), 4u);  // read/write x 4/8-byte words
    const json &read4 = doc["series"][0];
    EXPECT_EQ(read4["name"], "read, 4-byte words");
    ASSERT_EQ(read4["points"].size(), 4u);
    EXPECT_EQ(read4["points"][3]["predicted"]["n_way"].get<int>(), 32);
    // A 32-way conflict is slower than a conflict-free access.
    EXPECT_GT(read4["points"][3]["values"]["ns_per_warp_access"].get<double>(),
              2 * read4["points"][1]["values"]["ns_per_warp_access"].get<double>());
    EXPECT_EQ(doc["series"][1]["points"].size(), 3u);  // writes skip stride 0
}
