// read_write on a small array: each direction verified and timed, the bytes
// of one direction counted, and a bad size refused with the argument named.
#include <algorithm>
#include <string>

#include "gpu_fixture.hpp"

using nlohmann::json;

TEST_F(GpuTest, ReadWriteMeasuresEachDirectionOnItsOwn) {
    json doc = run("read_write", R"({"array_bytes": "16MiB"})");
    ASSERT_FALSE(doc.is_null());
    expect_sane_points(doc);
    // read (8 loads in flight), write, memset, and the read with 4 and 16 loads in flight.
    ASSERT_EQ(doc["series"].size(), 5u);
    for (const char *name : {"read", "write", "memset", "read_loads4", "read_loads16"}) {
        const json *s = series_named(doc, name);
        ASSERT_NE(s, nullptr) << name;
        // One direction: the array's bytes, not read plus written.
        EXPECT_EQ((*s)["points"][0]["bytes"].get<double>(), 16.0 * 1024 * 1024) << name;
        EXPECT_GT(doc["summary"][std::string(name) + "_gbs"].get<double>(), 0) << name;
    }
    EXPECT_GT(doc["summary"]["write_over_read"].get<double>(), 0);
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    // A read more than 5 % below the writes is explained in a note starting "DRAM ordering:", naming each read shape.
    const double read = doc["summary"]["read_gbs"].get<double>();
    const double write = std::max(doc["summary"]["write_gbs"].get<double>(), doc["summary"]["memset_gbs"].get<double>());
    bool explained = false;
    for (const json &n : doc["notes"]) {
        const std::string note = n.get<std::string>();
        if (note.rfind("DRAM ordering:", 0) != 0) continue;
        explained = true;
        for (const char *part : {"4: ", "8: ", "16: "}) EXPECT_NE(note.find(part), std::string::npos) << note;
    }
    EXPECT_EQ(explained, read < 0.95 * write) << read << " " << write;
    // Without the sweep: the three directions alone.
    json alone = run("read_write", R"({"array_bytes": "16MiB", "read_loads_sweep": false})");
    ASSERT_FALSE(alone.is_null());
    EXPECT_EQ(alone["series"].size(), 3u);
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
    for (const char *shape : {R"("loads": 4)", R"("loads": 16, "block_size": 512)", R"("loads": 8, "load_hint": "l2_256b")"}) {
        json doc = run("read_write", std::string(R"({"array_bytes": 17825808, )") + shape + "}");
        ASSERT_FALSE(doc.is_null()) << shape;
        EXPECT_TRUE(doc["verification"]["passed"].get<bool>()) << shape;
        const json *read = series_named(doc, "read");
        ASSERT_NE(read, nullptr) << shape;
        const json params = json::parse(std::string("{") + shape + "}");
        EXPECT_EQ((*read)["attributes"]["loads"], params["loads"]) << shape;
        EXPECT_EQ((*read)["attributes"]["load_hint"], params.contains("load_hint") ? "ld.global.nc.L2::256B" : "ld.global");
        EXPECT_EQ((*read)["points"][0]["bytes"].get<double>(), 17825808.0) << shape;
        // The sweep times the other two numbers of loads, each verified the same way.
        int swept = 0;
        for (int loads : {4, 8, 16})
            if (loads != params["loads"].get<int>())
                swept += series_named(doc, "read_loads" + std::to_string(loads)) != nullptr;
        EXPECT_EQ(swept, 2) << shape;
    }
    gm_result *r = nullptr;
    EXPECT_EQ(gm_run(&r, ctx, "read_write", R"({"array_bytes": "1MiB", "loads": 5})"), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gm_context_last_error(ctx)).find("loads"), std::string::npos) << gm_context_last_error(ctx);
}

// Blocks of 1024 threads: 16 loads in flight hold more registers than such a
// block may have on some GPUs; asked for, it is refused with both parameters
// named, and in the sweep it is left out with a note, never a failed launch.
TEST_F(GpuTest, ReadWriteRefusesOrSkipsAReadShapeThatDoesNotFit) {
    gm_result *r = nullptr;
    const gm_status st = gm_run(&r, ctx, "read_write", R"({"array_bytes": "4MiB", "loads": 16, "block_size": 1024})");
    if (st == GM_OK) {
        gm_result_destroy(r);
    } else {
        EXPECT_EQ(st, GM_ERROR_INVALID_ARGUMENT);
        const std::string e = gm_context_last_error(ctx);
        EXPECT_NE(e.find("block_size 1024 with loads 16"), std::string::npos) << e;
    }
    json doc = run("read_write", R"({"array_bytes": "4MiB", "block_size": 1024})");
    ASSERT_FALSE(doc.is_null());
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    bool noted = false;
    for (const json &n : doc["notes"]) noted |= n.get<std::string>().rfind("read_loads16 left out", 0) == 0;
    EXPECT_NE(series_named(doc, "read_loads16") != nullptr, noted);
}
