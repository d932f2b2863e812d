// texture on small inputs: each capability against its model.
#include <string>

#include "gpu_fixture.hpp"

using nlohmann::json;

TEST_F(GpuTest, TextureCapabilitiesMatchTheirModels) {
    json doc = run("texture", R"({"width": 300, "height": 200})");
    ASSERT_FALSE(doc.is_null());
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    EXPECT_EQ(doc["summary"]["capabilities_passed"].get<int>(), 10);
    EXPECT_TRUE(doc["summary"].contains("texture_over_global_time"));
    gm_result *r = nullptr;
    EXPECT_EQ(gm_run(&r, ctx, "texture", R"({"width": 1048576, "height": 4})"), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gm_context_last_error(ctx)).find("largest 2D texture"), std::string::npos) << gm_context_last_error(ctx);
}
