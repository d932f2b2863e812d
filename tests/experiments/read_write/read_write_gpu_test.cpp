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

// The read's shape: each number of loads in flight and the L2::256B hint
// verified by its sum (an array that no shape divides evenly: the last block
// reads fewer vectors), and published in the read series; other loads refused.
TEST_F(GpuTest, ReadWriteReadShapesAllVerify) {
    for (const char *shape : {R"("loads": 4)", R"("loads": 16, "block_size": 1024)", R"("loads": 8, "load_hint": "l2_256b")"}) {
        json doc = run("read_write", std::string(R"({"array_bytes": 17825808, )") + shape + "}");
        ASSERT_FALSE(doc.is_null()) << shape;
        EXPECT_TRUE(doc["verification"]["passed"].get<bool>()) << shape;
        const json *read = series_named(doc, "read");
        ASSERT_NE(read, nullptr) << shape;
        const json params = json::parse(std::string("{") + shape + "}");
        EXPECT_EQ((*read)["attributes"]["loads"], params["loads"]) << shape;
        EXPECT_EQ((*read)["attributes"]["load_hint"], params.contains("load_hint") ? "ld.global.nc.L2::256B" : "ld.global");
        EXPECT_EQ((*read)["points"][0]["bytes"].get<double>(), 17825808.0) << shape;
    }
    gm_result *r = nullptr;
    EXPECT_EQ(gm_run(&r, ctx, "read_write", R"({"array_bytes": "1MiB", "loads": 5})"), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gm_context_last_error(ctx)).find("loads"), std::string::npos) << gm_context_last_error(ctx);
}
