// The host<->device experiments on small inputs: every output verified, the
// figures they promise present, bad input refused, the context usable after.
#include <string>
#include <vector>

#include "gpu_fixture.hpp"

using nlohmann::json;

namespace {

bool contains(const std::string &s, const std::string &part) { return s.find(part) != std::string::npos; }

const json *series_of(const json &doc, const std::string &variant) {
    for (const json &s : doc["series"])
        if (s["variant"] == variant) return &s;
    return nullptr;
}

}  // namespace

class Transfers : public GpuTest {
protected:
    void expect_error(gm_status want, const char *name, const char *params, const std::string &part) {
        gm_result *r = reinterpret_cast<gm_result *>(0x1);
        EXPECT_EQ(gm_run(&r, ctx, name, params), want) << gm_context_last_error(ctx);
        EXPECT_EQ(r, nullptr);
        EXPECT_TRUE(contains(gm_context_last_error(ctx), part)) << gm_context_last_error(ctx);
        // The context still works.
        json doc = run("transfer", R"({"min_size": 4096, "max_size": 8192})");
        ASSERT_FALSE(doc.is_null());
        EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    }
};

TEST_F(Transfers, TransferSweepsAndVerifies) {
    json doc = run("transfer", R"({"min_size": 4096, "max_size": "1MiB"})");
    ASSERT_FALSE(doc.is_null());
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    ASSERT_EQ(doc["series"].size(), 4u);
    for (const char *v : {"pinned_h2d", "pinned_d2h", "pageable_h2d", "pageable_d2h"}) {
        const json *s = series_of(doc, v);
        ASSERT_NE(s, nullptr) << v;
        ASSERT_EQ((*s)["points"].size(), 9u) << v;  // 4 KiB .. 1 MiB, powers of two
        EXPECT_EQ((*s)["points"][0]["x"], 4096);
        EXPECT_EQ((*s)["points"][8]["x"], 1 << 20);
        for (const json &p : (*s)["points"]) EXPECT_GT(p["bandwidth_gbs"].get<double>(), 0) << v;
    }
    EXPECT_TRUE(doc["summary"].contains("pinned_over_pageable_h2d"));
    EXPECT_TRUE(doc["summary"].contains("pinned_over_pageable_d2h"));
}

TEST_F(Transfers, OddSizesRoundTripByteForByte) {
    json doc = run("transfer", R"({"min_size": 1000, "max_size": 5000, "points_per_octave": 2, "directions": "h2d"})");
    ASSERT_FALSE(doc.is_null());
    const json *s = series_of(doc, "pinned_h2d");
    ASSERT_NE(s, nullptr);
    EXPECT_EQ((*s)["points"].size(), 6u);  // 1000, 1414, 2000, 2828, 4000, 5000
    EXPECT_EQ((*s)["points"].back()["x"], 5000);
}

TEST_F(Transfers, TransferRefusesBadSizes) {
    expect_error(GM_ERROR_INVALID_ARGUMENT, "transfer", R"({"min_size": 0})", "min_size must be in 1..");
    expect_error(GM_ERROR_INVALID_ARGUMENT, "transfer", R"({"min_size": "2MiB", "max_size": "1MiB"})",
                 "min_size (2097152) must not exceed max_size (1048576)");
    expect_error(GM_ERROR_OUT_OF_MEMORY, "transfer", R"({"max_size": "1024GiB"})", "needs");
}

TEST_F(Transfers, BatchingFitsAnOverhead) {
    json doc = run("transfer_batching", R"({"counts": [1, 4, 16], "chunk_sizes": [4096]})");
    ASSERT_FALSE(doc.is_null());
    EXPECT_EQ(doc["series"].size(), 4u);  // many / one for each direction
    const json &s = doc["summary"];
    ASSERT_TRUE(s.contains("h2d_overhead_us"));
    ASSERT_TRUE(s.contains("d2h_overhead_us"));
    // 16 separate 4 KiB copies cannot beat one 64 KiB copy.
    ASSERT_TRUE(s.contains("h2d_penalty_16x4096"));
    EXPECT_GT(s["h2d_penalty_16x4096"].get<double>(), 1.0);
    EXPECT_GT(s["d2h_penalty_16x4096"].get<double>(), 1.0);
}

TEST_F(Transfers, ZeroCopyReportsIntegratedAndVerifies) {
    json doc = run("zero_copy", R"({"bytes": "1MiB", "stride": 32})");
    ASSERT_FALSE(doc.is_null());
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    EXPECT_EQ(doc["series"].size(), 4u);
    for (const char *v : {"mapped_coalesced", "explicit_coalesced", "mapped_strided", "explicit_strided"})
        EXPECT_NE(series_of(doc, v), nullptr) << v;
    EXPECT_EQ(doc["summary"]["integrated"].get<double>() != 0, doc["device"]["integrated"].get<bool>());
    bool advice = false;
    for (const json &n : doc["notes"]) advice |= contains(n.get<std::string>(), "integrated = ");
    EXPECT_TRUE(advice);
}

TEST_F(Transfers, CopyOverlapVerifiesEveryStreamCount) {
    json doc = run("copy_overlap", R"({"bytes": "16MiB", "streams": [2, 4], "iterations": 64})");
    ASSERT_FALSE(doc.is_null());
    ASSERT_EQ(doc["series"].size(), 1u);
    const json &pts = doc["series"][0]["points"];
    ASSERT_EQ(pts.size(), 3u);  // the one-stream baseline is always measured
    EXPECT_EQ(pts[0]["x"], 1);
    EXPECT_DOUBLE_EQ(pts[0]["values"]["speedup_over_serial"].get<double>(), 1.0);
    EXPECT_EQ(doc["summary"]["iterations"], 64);
    // Iterations chosen by the experiment: still verified.
    json autok = run("copy_overlap", R"({"bytes": "8MiB", "streams": [1, 2]})");
    ASSERT_FALSE(autok.is_null());
    EXPECT_GE(autok["summary"]["iterations"].get<double>(), 1);
}

TEST_F(Transfers, PeerIsNotApplicableWithOneGpuAndRefusesBadPairs) {
    int count = 0;
    ASSERT_EQ(gm_device_count(&count), GM_OK);
    expect_error(GM_ERROR_INVALID_ARGUMENT, "peer", R"({"peers": [0]})", "must not include the context's own device 0");
    expect_error(GM_ERROR_INVALID_ARGUMENT, "peer", R"({"peers": [1000]})", "peers must be devices in 0..");
    expect_error(GM_ERROR_INVALID_ARGUMENT, "peer", R"({"peers": [-1, 1]})", "cannot be combined");
    json doc = run("peer", R"({"bytes": "4MiB"})");
    ASSERT_FALSE(doc.is_null());
    if (count < 2) {
        EXPECT_EQ(doc["applicable"], false);
        EXPECT_TRUE(doc["series"].empty());
        ASSERT_FALSE(doc["notes"].empty());
        EXPECT_TRUE(contains(doc["notes"][0].get<std::string>(), "not applicable"));
        return;
    }
    EXPECT_FALSE(doc.contains("applicable"));
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    const json *ce = series_of(doc, "copy");
    ASSERT_NE(ce, nullptr);
    EXPECT_EQ((*ce)["points"].size(), static_cast<size_t>(count * (count - 1)));  // every ordered pair
    EXPECT_NE(series_of(doc, "latency"), nullptr);
    EXPECT_NE(series_of(doc, "bidirectional"), nullptr);
}

// nvbandwidth's all_to_one and one_to_all: for every device, every other one
// copying to it at once, and it copying to every other one at once.
TEST_F(Transfers, PeerMeasuresEveryDeviceReceivingAndSendingAtOnce) {
    int count = 0;
    ASSERT_EQ(gm_device_count(&count), GM_OK);
    if (count < 2) GTEST_SKIP() << "all_to_one and one_to_all need two or more GPUs; this machine has " << count;
    const double bytes = 4 << 20;
    json doc = run("peer", R"({"bytes": "4MiB", "latency_copies": 4})");
    ASSERT_FALSE(doc.is_null());
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    const json *ce = series_of(doc, "copy");
    ASSERT_NE(ce, nullptr);
    for (const char *v : {"all_to_one", "one_to_all"}) {
        const json *s = series_of(doc, v);
        ASSERT_NE(s, nullptr) << v;
        EXPECT_EQ((*s)["x"]["name"], "device") << v;
        if (ce->contains("quantity")) EXPECT_EQ((*s)["quantity"], (*ce)["quantity"]) << v;
        ASSERT_EQ((*s)["points"].size(), static_cast<size_t>(count)) << v;  // one point per device
        std::vector<bool> seen(static_cast<size_t>(count), false);
        for (const json &p : (*s)["points"]) {
            const int d = p["x"].get<int>();
            ASSERT_GE(d, 0);
            ASSERT_LT(d, count);
            EXPECT_FALSE(seen[static_cast<size_t>(d)]) << v << " measures device " << d << " twice";
            seen[static_cast<size_t>(d)] = true;
            EXPECT_EQ(p["values"]["peers"].get<double>(), count - 1) << v;
            EXPECT_EQ(p["bytes"].get<double>(), (count - 1) * bytes) << v;  // every copy's bytes, counted once
            EXPECT_GT(p["bandwidth_gbs"].get<double>(), 0) << v;
        }
        const std::string key = std::string(v) + "_gbs_";
        ASSERT_TRUE(doc["summary"].contains(key + "min")) << v;
        ASSERT_TRUE(doc["summary"].contains(key + "max")) << v;
        EXPECT_GT(doc["summary"][key + "min"].get<double>(), 0) << v;
        EXPECT_LE(doc["summary"][key + "min"].get<double>(), doc["summary"][key + "max"].get<double>()) << v;
    }
    bool two_device_note = false;
    for (const json &n : doc["notes"]) two_device_note |= contains(n.get<std::string>(), "the pair's single copy");
    EXPECT_EQ(two_device_note, count == 2);
}
