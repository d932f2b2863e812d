// The compressible-memory experiment on a small array: where the device
// grants generic compression, every data kind and operation verified on both
// kinds of memory, plain memory's DRAM reads equal to the array; elsewhere
// not applicable with the reason.
#include <string>

#include "gpu_fixture.hpp"

using nlohmann::json;

namespace {

bool any_note(const json &doc, const std::string &part) {
    for (const json &n : doc["notes"])
        if (n.get<std::string>().find(part) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST_F(GpuTest, CompressibleMeasuresOrSaysWhyNot) {
    json doc = run("compressible", R"({"bytes": "8MiB"})");
    ASSERT_FALSE(doc.is_null());
    ASSERT_TRUE(doc["summary"].contains("generic_compression_supported"));
    if (!doc.value("applicable", true)) {
        EXPECT_TRUE(doc["series"].empty());
        EXPECT_TRUE(any_note(doc, "GENERIC_COMPRESSION_SUPPORTED = 0") || any_note(doc, "did not grant") ||
                    any_note(doc, "VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 0"));
        return;
    }
    expect_sane_points(doc);
    EXPECT_EQ(doc["summary"]["compression_granted"].get<double>(), 1);
    const double bytes = doc["summary"]["bytes"].get<double>();
    EXPECT_GE(bytes, 8 << 20);  // rounded up to whole granules
    const auto series = by_variant(doc);
    EXPECT_EQ(series.size(), 12u);
    for (const char *m : {"compressible", "plain"})
        for (const char *d : {"zeros", "repeated", "random"})
            for (const char *op : {"read", "write"}) {
                const std::string v = std::string(m) + "_" + d + "_" + op;
                ASSERT_TRUE(series.count(v)) << v;
                EXPECT_EQ(series.at(v)["points"][0]["x"].get<double>(), bytes) << v;
                EXPECT_EQ(series.at(v)["attributes"]["compression_granted"], std::string(m) == "compressible") << v;
            }
    for (const char *d : {"zeros", "repeated", "random"})
        for (const char *op : {"read", "write"})
            EXPECT_TRUE(doc["summary"].contains(std::string(d) + "_" + op + "_compressible_over_plain")) << d << op;
    // Where the counters were read, plain memory's read moved the array once from DRAM.
    for (const char *d : {"zeros", "repeated", "random"}) {
        const json &p = series.at(std::string("plain_") + d + "_read")["points"][0];
        if (!p.contains("counters")) continue;
        EXPECT_NEAR(p["counters"]["dram__bytes_read.sum"].get<double>(), bytes, 0.05 * bytes) << d;
    }
}

TEST_F(GpuTest, CompressibleRefusesWhatTheDeviceCannotHold) {
    gm_result *r = reinterpret_cast<gm_result *>(0x1);
    const gm_status s = gm_run(&r, ctx, "compressible", R"({"bytes": "1024GiB"})");
    if (s == GM_OK) {  // not applicable on this device: nothing was allocated
        nlohmann::json doc = to_doc(r);
        gm_result_destroy(r);
        EXPECT_EQ(doc["applicable"], false);
        return;
    }
    EXPECT_EQ(s, GM_ERROR_OUT_OF_MEMORY) << gm_context_last_error(ctx);
    EXPECT_EQ(r, nullptr);
    EXPECT_NE(std::string(gm_context_last_error(ctx)).find("of device memory"), std::string::npos) << gm_context_last_error(ctx);
    json doc = run("compressible", R"({"bytes": "4MiB", "data": "zeros", "operations": "read"})");
    ASSERT_FALSE(doc.is_null());
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
}
