// local_memory on small inputs.
#include <string>

#include "gpu_fixture.hpp"

using nlohmann::json;

TEST_F(GpuTest, LocalArrayLandsInLocalMemoryOnlyWhenIndexedAtRunTime) {
    json doc = run("local_memory", R"({"threads": 65536, "rounds": 4})");
    ASSERT_FALSE(doc.is_null());
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    auto v = by_variant(doc);
    ASSERT_EQ(v.size(), 3u);
    EXPECT_EQ(v["registers"]["points"][0]["values"]["local_bytes_per_thread"].get<double>(), 0);
    EXPECT_GE(v["uniform"]["points"][0]["values"]["local_bytes_per_thread"].get<double>(), 256);
    EXPECT_GE(v["divergent"]["points"][0]["values"]["local_bytes_per_thread"].get<double>(), 256);
    EXPECT_GT(v["registers"]["points"][0]["values"]["registers"].get<double>(), 64);
    EXPECT_TRUE(doc["summary"].contains("uniform_time_over_registers"));
    EXPECT_TRUE(doc["summary"].contains("divergent_time_over_uniform"));
}
