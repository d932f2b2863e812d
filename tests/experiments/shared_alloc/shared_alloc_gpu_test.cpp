// shared_alloc on small inputs, with its kernels' resources.
#include "gpu_fixture.hpp"

using nlohmann::json;

TEST_F(GpuTest, SharedAllocReportsResources) {
    json doc = run("shared_alloc", R"({"elements": 1048576})");
    ASSERT_FALSE(doc.is_null());
    ASSERT_EQ(doc["series"].size(), 2u);
    const json &st = doc["series"][0]["points"][0]["values"];
    const json &dy = doc["series"][1]["points"][0]["values"];
    EXPECT_EQ(st["static_shared_bytes"].get<double>(), 1024);
    EXPECT_EQ(st["dynamic_shared_bytes"].get<double>(), 0);
    EXPECT_EQ(dy["static_shared_bytes"].get<double>(), 0);
    EXPECT_EQ(dy["dynamic_shared_bytes"].get<double>(), 1024);
    EXPECT_GT(st["registers"].get<double>(), 0);
}
