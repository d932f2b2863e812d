// register_pressure on small inputs.
#include <string>

#include "gpu_fixture.hpp"

using nlohmann::json;

TEST_F(GpuTest, LowRegisterCapsSpillAndRaiseOccupancy) {
    json doc = run("register_pressure", R"({"caps": [255, 64, 32], "threads": 65536, "iterations": 4})");
    ASSERT_FALSE(doc.is_null());
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    const json &pts = doc["series"][0]["points"];
    ASSERT_EQ(pts.size(), 3u);
    for (const json &p : pts) EXPECT_LE(p["values"]["registers"].get<double>(), p["x"].get<double>());
    EXPECT_EQ(pts[0]["values"]["local_bytes_per_thread"].get<double>(), 0);   // cap 255: no spill
    EXPECT_GT(pts[2]["values"]["local_bytes_per_thread"].get<double>(), 0);   // cap 32: spills
    EXPECT_GT(pts[2]["values"]["occupancy"].get<double>(), pts[0]["values"]["occupancy"].get<double>());
    EXPECT_TRUE(doc["summary"].contains("fastest_cap"));
    gm_result *r = nullptr;
    EXPECT_EQ(gm_run(&r, ctx, "register_pressure", R"({"caps": [100]})"), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gm_context_last_error(ctx)).find("255, 128, 80, 64, 48, 40, 32"), std::string::npos);
}
