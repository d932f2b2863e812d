// local_memory, register_pressure, alignment and pitch_2d on small inputs, and
// the kernel resources of every experiment.
#include <map>
#include <string>

#include "gpu_fixture.hpp"

using nlohmann::json;

namespace {

std::map<std::string, json> by_variant(const json &doc) {
    std::map<std::string, json> out;
    for (const json &s : doc["series"]) out[s["variant"].get<std::string>()] = s;
    return out;
}

}  // namespace

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

TEST_F(GpuTest, AlignmentCopiesEveryRecordShape) {
    json doc = run("alignment", R"({"records": 100003, "offsets": [1, 2, 4, 8, 12]})");
    ASSERT_FALSE(doc.is_null());
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    EXPECT_EQ(doc["series"].size(), 9u + 2u);
    for (const char *k : {"aligned_over_packed_r8", "aligned_over_packed_r12", "aligned_over_packed_r16",
                          "misaligned16_o4_over_aligned", "misaligned8_o1_over_aligned"})
        EXPECT_TRUE(doc["summary"].contains(k)) << k;
    for (const json &s : doc["series"])
        for (const json &p : s["points"]) EXPECT_GE(p["values"]["loads_per_record"].get<double>(), 1);
}

TEST_F(GpuTest, PitchedAndPackedRowsGiveTheSameArray) {
    json doc = run("pitch_2d", R"({"widths": [1, 31, 33, 1025, 32769], "height": 37})");
    ASSERT_FALSE(doc.is_null());
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    auto v = by_variant(doc);
    ASSERT_EQ(v["pitched"]["points"].size(), 5u);
    for (const json &p : v["pitched"]["points"]) {
        EXPECT_EQ(static_cast<long long>(p["values"]["pitch_bytes"].get<double>()) % 128, 0);
        EXPECT_GE(p["values"]["pitch_bytes"].get<double>(), p["x"].get<double>() * 4);
        EXPECT_EQ(p["predicted"]["misaligned_row_fraction"].get<double>(), 0);
    }
    EXPECT_GT(v["packed"]["points"][4]["predicted"]["misaligned_row_fraction"].get<double>(), 0.5);
    EXPECT_TRUE(doc["summary"].contains("pitched_over_packed_w32769"));
    gm_result *r = nullptr;
    EXPECT_EQ(gm_run(&r, ctx, "pitch_2d", R"({"widths": [1073741824], "height": 1})"), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gm_context_last_error(ctx)).find("largest pitch"), std::string::npos) << gm_context_last_error(ctx);
    EXPECT_EQ(gm_run(&r, ctx, "pitch_2d", R"({"widths": [65536], "height": 2147483648})"), GM_ERROR_OUT_OF_MEMORY);
    // The context stays usable after the errors.
    json again = run("pitch_2d", R"({"widths": [33], "height": 5})");
    EXPECT_FALSE(again.is_null());
}

TEST_F(GpuTest, EveryExperimentReportsItsKernelResources) {
    for (size_t i = 0; i < gm_experiment_count(); ++i) {
        const std::string name = gm_experiment_name(i);
        char *out = nullptr;
        ASSERT_EQ(gm_kernel_resources_json(&out, ctx, name.c_str()), GM_OK) << name << ": " << gm_context_last_error(ctx);
        const json d = json::parse(out);
        gm_free_string(out);
        // transfer and transfer_batching only copy: no kernel of their own.
        if (name == "transfer" || name == "transfer_batching") {
            EXPECT_TRUE(d["kernels"].empty()) << name;
            continue;
        }
        ASSERT_FALSE(d["kernels"].empty()) << name;
        for (const json &k : d["kernels"]) {
            EXPECT_GT(k["registers"].get<int>(), 0) << name << " " << k["name"];
            EXPECT_GT(k["max_threads_per_block"].get<int>(), 0) << name << " " << k["name"];
        }
    }
    char *out = nullptr;
    ASSERT_EQ(gm_kernel_resources_json(&out, ctx, "shared_alloc"), GM_OK);
    const json d = json::parse(out);
    gm_free_string(out);
    EXPECT_EQ(d["kernels"][0]["shared_static_bytes"].get<int>(), 1024);  // static_reverse: __shared__ int s[256]
    EXPECT_EQ(d["kernels"][1]["shared_static_bytes"].get<int>(), 0);
    ASSERT_EQ(gm_kernel_resources_json(&out, ctx, nullptr), GM_OK);
    gm_free_string(out);
    EXPECT_EQ(gm_kernel_resources_json(&out, ctx, "nope"), GM_ERROR_UNKNOWN_EXPERIMENT);
    EXPECT_EQ(out, nullptr);
    EXPECT_EQ(gm_kernel_resources_json(nullptr, ctx, "stream"), GM_ERROR_INVALID_ARGUMENT);
}
