// async_copy on small inputs.
#include <string>

#include "gpu_fixture.hpp"

using nlohmann::json;

TEST_F(GpuTest, AsyncCopyComparesBothWays) {
    json doc = run("async_copy", R"({"copy_counts": [1, 4, 5], "word_sizes": [4, 16]})");
    ASSERT_FALSE(doc.is_null());
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    ASSERT_EQ(doc["series"].size(), 4u);
    for (const json &s : doc["series"]) {
        EXPECT_GT(s["attributes"]["registers"].get<int>(), 0);
        for (const json &p : s["points"]) EXPECT_GT(p["values"]["cycles_per_element"].get<double>(), 0);
    }
    EXPECT_TRUE(doc["series"][1]["points"][0]["values"].contains("async_over_sync_cycles"));
    // Each async point's ratio is to the sync point of the same count.
    for (std::size_t w = 0; w < 4; w += 2) {
        const json &sync = doc["series"][w]["points"], &async = doc["series"][w + 1]["points"];
        ASSERT_EQ(sync.size(), async.size());
        for (std::size_t i = 0; i < sync.size(); ++i) {
            EXPECT_EQ(sync[i]["x"], async[i]["x"]);
            EXPECT_DOUBLE_EQ(async[i]["values"]["async_over_sync_cycles"].get<double>(),
                             async[i]["values"]["cycles_per_element"].get<double>() / sync[i]["values"]["cycles_per_element"].get<double>());
        }
    }
    gm_result *r = nullptr;
    EXPECT_EQ(gm_run(&r, ctx, "async_copy", R"({"copy_counts": [4096], "word_sizes": [16]})"), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gm_context_last_error(ctx)).find("this device allows"), std::string::npos) << gm_context_last_error(ctx);
}
