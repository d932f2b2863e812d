// The managed-memory experiment on small arrays: every variant verified, the
// device attributes reported, the unified-memory counters consistent with
// what each variant must migrate, the model fitted where they were read, bad
// input refused before anything is allocated, the context usable after.
#include <string>

#include "gpu_fixture.hpp"

using nlohmann::json;

namespace {

bool contains(const std::string &s, const std::string &part) { return s.find(part) != std::string::npos; }

bool any_note(const json &doc, const std::string &part) {
    for (const json &n : doc["notes"])
        if (contains(n.get<std::string>(), part)) return true;
    return false;
}

constexpr const char *kManagedSmall = R"({"min_size": "64KiB", "max_size": "1MiB", "points_per_octave": 0.5, "pingpong_pages": [1, 4]})";

}  // namespace

class ManagedMemory : public GpuTest {
protected:
    // Not applicable where the GPU cannot fault on managed pages; true when measured.
    bool applicable(const json &doc) {
        if (doc.value("applicable", true)) return true;
        EXPECT_TRUE(doc["series"].empty());
        EXPECT_EQ(doc["summary"]["concurrent_managed_access"].get<double>() == 0 ||
                      doc["summary"]["managed_memory"].get<double>() == 0,
                  true);
        EXPECT_TRUE(any_note(doc, "Not applicable"));
        return false;
    }

    void expect_error(gm_status want, const char *params, const std::string &part) {
        gm_result *r = reinterpret_cast<gm_result *>(0x1);
        EXPECT_EQ(gm_run(&r, ctx, "managed_memory", params), want) << gm_context_last_error(ctx);
        EXPECT_EQ(r, nullptr);
        EXPECT_TRUE(contains(gm_context_last_error(ctx), part)) << gm_context_last_error(ctx);
        // The context still works.
        json doc = run("managed_memory", R"({"max_size": "64KiB", "variants": ["on_demand_read"]})");
        ASSERT_FALSE(doc.is_null());
        EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    }
};

TEST_F(ManagedMemory, EveryVariantVerifiesAndReportsTheAttributes) {
    json doc = run("managed_memory", kManagedSmall);
    ASSERT_FALSE(doc.is_null());
    for (const char *a : {"concurrent_managed_access", "pageable_memory_access", "direct_managed_mem_access_from_host",
                          "pageable_memory_access_uses_host_page_tables"})
        EXPECT_TRUE(doc["summary"].contains(a)) << a;
    EXPECT_TRUE(any_note(doc, "concurrentManagedAccess = "));
    if (!applicable(doc)) return;
    expect_sane_points(doc);
    const auto series = by_variant(doc);
    for (const char *v : {"on_demand_read", "on_demand_write", "prefetch_read", "read_mostly_read", "accessed_by_read",
                          "explicit_copy_read", "mapped_read"}) {
        ASSERT_TRUE(series.count(v)) << v;
        const json &pts = series.at(v)["points"];
        ASSERT_EQ(pts.size(), 3u) << v;  // 64 KiB, 256 KiB, 1 MiB
        EXPECT_EQ(pts[0]["x"], 65536);
        EXPECT_EQ(pts[2]["x"], 1 << 20);
        EXPECT_TRUE(doc["summary"].contains(std::string(v) + "_gbs")) << v;
    }
    ASSERT_TRUE(series.count("ping_pong"));
    const json &pp = series.at("ping_pong")["points"];
    ASSERT_EQ(pp.size(), 2u);
    for (const json &p : pp) EXPECT_GT(p["values"]["us_per_round_trip"].get<double>(), 0);
    EXPECT_TRUE(doc["summary"].contains("pingpong_us_16KiB"));
    EXPECT_TRUE(doc["summary"].contains("on_demand_over_prefetch_time"));
    EXPECT_TRUE(any_note(doc, "pinned_h2d_peak_gbs"));  // which figure the fitted link compares with
}

TEST_F(ManagedMemory, CountersSayWhatEachVariantMigrated) {
    json doc = run("managed_memory", kManagedSmall);
    ASSERT_FALSE(doc.is_null());
    if (!applicable(doc)) return;
    if (doc["summary"]["um_counters_available"].get<double>() == 0) {
        EXPECT_TRUE(any_note(doc, "They were not read for this run: "));
        GTEST_SKIP() << "unified-memory counters are not available here";
    }
    const auto series = by_variant(doc);
    for (const json &p : series.at("on_demand_read")["points"]) {
        ASSERT_TRUE(p.contains("counters"));
        const json &c = p["counters"];
        const double bytes = p["x"].get<double>();
        // Every page was on the host: at least the array crossed, and the GPU faulted for it.
        EXPECT_GE(c["um_bytes_htod"].get<double>(), bytes) << bytes;
        EXPECT_LE(c["um_bytes_htod"].get<double>(), bytes + (2 << 20)) << bytes;
        EXPECT_GT(c["um_gpu_fault_groups"].get<double>(), 0) << bytes;
        EXPECT_GT(c["um_bytes_per_fault_group"].get<double>(), 0) << bytes;
        EXPECT_TRUE(c.contains("um_dropped_records")) << bytes;
    }
    for (const json &p : series.at("on_demand_write")["points"])
        EXPECT_GT(p["counters"]["um_gpu_fault_groups"].get<double>(), 0);
    for (const json &p : series.at("prefetch_read")["points"]) {
        // The prefetch moves the array before the kernel runs: no page faults.
        EXPECT_GE(p["counters"]["um_bytes_htod"].get<double>(), p["x"].get<double>());
        EXPECT_EQ(p["counters"]["um_gpu_page_faults"].get<double>(), 0) << p["x"];
    }
    for (const json &p : series.at("accessed_by_read")["points"])
        // The pages stay on the host and are read over the link (the driver's
        // access counters could move a few).
        EXPECT_LT(p["counters"]["um_bytes_htod"].get<double>(), p["x"].get<double>() / 2) << p["x"];
    for (const json &p : series.at("read_mostly_read")["points"])
        // The device kept its read-only copy while the host read: (almost) nothing migrates.
        EXPECT_LT(p["counters"]["um_bytes_htod"].get<double>(), p["x"].get<double>() / 2) << p["x"];
    for (const char *v : {"explicit_copy_read", "mapped_read"})
        for (const json &p : series.at(v)["points"]) EXPECT_FALSE(p.contains("counters")) << v;
    for (const json &p : series.at("ping_pong")["points"]) {
        // By the counted round the driver may have pinned the bouncing pages on
        // one side (then nothing migrates): the counters are there, whatever
        // they say, and the first round trip was timed before it could.
        EXPECT_TRUE(p["counters"].contains("um_cpu_page_faults"));
        EXPECT_TRUE(p["counters"].contains("um_bytes_dtoh"));
        EXPECT_GT(p["values"]["first_round_trip_us"].get<double>(), 0);
    }
    // The model, where the points determine it, is beside every counted on-demand point.
    if (doc["summary"].contains("fit_link_gbs")) {
        EXPECT_GT(doc["summary"]["fit_link_gbs"].get<double>(), 0);
        EXPECT_GE(doc["summary"]["fit_us_per_fault_group"].get<double>(), 0);
        for (const json &p : series.at("on_demand_read")["points"]) EXPECT_TRUE(p["predicted"].contains("fault_model_ms"));
    } else {
        EXPECT_TRUE(any_note(doc, "No model fitted: "));
    }
}

TEST_F(ManagedMemory, CountersOffSaySo) {
    ASSERT_EQ(gm_context_set(ctx, GM_SETTING_COUNTERS, GM_COUNTERS_OFF), GM_OK);
    json doc = run("managed_memory", R"({"max_size": "64KiB", "variants": ["on_demand_read", "ping_pong"], "pingpong_pages": 1})");
    ASSERT_FALSE(doc.is_null());
    if (!applicable(doc)) return;
    EXPECT_EQ(doc["summary"]["um_counters_available"].get<double>(), 0);
    EXPECT_TRUE(any_note(doc, "switched off"));
    EXPECT_TRUE(any_note(doc, "No model fitted: it needs the counted faults"));
    for (const json &s : doc["series"])
        for (const json &p : s["points"]) EXPECT_FALSE(p.contains("counters"));
}

TEST_F(ManagedMemory, BadSizesAreRefusedBeforeAnythingIsAllocated) {
    json probe = run("managed_memory", R"({"max_size": "64KiB", "variants": ["on_demand_read"]})");
    ASSERT_FALSE(probe.is_null());
    if (!applicable(probe)) return;
    expect_error(GM_ERROR_INVALID_ARGUMENT, R"({"min_size": 65537})", "min_size must be a whole number of 4096-byte pages, got 65537");
    expect_error(GM_ERROR_INVALID_ARGUMENT, R"({"min_size": "2MiB", "max_size": "1MiB"})",
                 "min_size (2097152) must not exceed max_size (1048576)");
    // Larger than the device allows: said before allocating.
    expect_error(GM_ERROR_OUT_OF_MEMORY, R"({"min_size": "1024GiB", "max_size": "1024GiB"})", "of device memory");
    expect_error(GM_ERROR_INVALID_ARGUMENT, R"({"variants": "prefetch"})", "variants must be one of");
}

TEST_F(ManagedMemory, OneVariantAlone) {
    json doc = run("managed_memory", R"({"max_size": "128KiB", "points_per_octave": 1, "variants": "accessed_by_read"})");
    ASSERT_FALSE(doc.is_null());
    if (!applicable(doc)) return;
    ASSERT_EQ(doc["series"].size(), 1u);
    EXPECT_EQ(doc["series"][0]["variant"], "accessed_by_read");
    EXPECT_EQ(doc["series"][0]["points"].size(), 2u);  // 64 KiB, 128 KiB
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
}
