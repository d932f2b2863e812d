// read_write on a small array: each direction verified and timed, the bytes
// of one direction counted, and a bad size refused with the argument named.
#include "gpu_fixture.hpp"

using nlohmann::json;

TEST_F(GpuTest, ReadWriteMeasuresEachDirectionOnItsOwn) {
    json doc = run("read_write", R"({"array_bytes": "16MiB"})");
    ASSERT_FALSE(doc.is_null());
    expect_sane_points(doc);
    ASSERT_EQ(doc["series"].size(), 3u);  // read, write, memset
    for (const char *name : {"read", "write", "memset"}) {
        const json *s = series_named(doc, name);
        ASSERT_NE(s, nullptr) << name;
        // One direction: the array's bytes, not read plus written.
        EXPECT_EQ((*s)["points"][0]["bytes"].get<double>(), 16.0 * 1024 * 1024) << name;
        EXPECT_GT(doc["summary"][std::string(name) + "_gbs"].get<double>(), 0) << name;
    }
    EXPECT_GT(doc["summary"]["write_over_read"].get<double>(), 0);
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
}

TEST_F(GpuTest, ReadWriteRefusesAnArrayTooSmallForOneVector) {
    gm_result *r = nullptr;
    EXPECT_EQ(gm_run(&r, ctx, "read_write", R"({"array_bytes": 8})"), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(r, nullptr);
    EXPECT_NE(std::string(gm_context_last_error(ctx)).find("array_bytes"), std::string::npos) << gm_context_last_error(ctx);
    // The context stays usable.
    EXPECT_FALSE(run("read_write", R"({"array_bytes": "1MiB"})").is_null());
}
