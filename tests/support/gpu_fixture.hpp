// A context on device 0 with quick settings, and helpers for JSON results
// and device buffers.
#pragma once

#include <map>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gmlab.h"

class GpuTest : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_EQ(gm_context_create(&ctx, 0), GM_OK) << gm_last_error();
        // Few repetitions keep the suite short; the harness logic is the same.
        ASSERT_EQ(gm_context_set(ctx, GM_SETTING_MIN_REPETITIONS, 3), GM_OK);
        ASSERT_EQ(gm_context_set(ctx, GM_SETTING_MIN_TIME_MS, 0), GM_OK);
        ASSERT_EQ(gm_context_set(ctx, GM_SETTING_WARMUP, 1), GM_OK);
    }
    void TearDown() override { gm_context_destroy(ctx); }

    // Runs an experiment and returns its document (fails the test on error).
    nlohmann::json run(const std::string &name, const std::string &params) {
        gm_result *r = nullptr;
        gm_status s = gm_run(&r, ctx, name.c_str(), params.c_str());
        EXPECT_EQ(s, GM_OK) << gm_context_last_error(ctx);
        if (s != GM_OK) return nlohmann::json();
        nlohmann::json doc = to_doc(r);
        gm_result_destroy(r);
        return doc;
    }

    // The full form, with every sample, so that tests can check them.
    static nlohmann::json to_doc(const gm_result *r) {
        char *text = nullptr;
        EXPECT_EQ(gm_result_to_json_samples(&text, r, GM_SAMPLES_ALL), GM_OK);
        nlohmann::json doc = nlohmann::json::parse(text);
        gm_free_string(text);
        return doc;
    }

    gm_context *ctx = nullptr;
};

// The statistics of every point are consistent, the output verified, and the
// memory within the budget.
inline void expect_sane_points(const nlohmann::json &doc) {
    ASSERT_TRUE(doc["verification"]["passed"].get<bool>());
    EXPECT_GT(doc["verification"]["elements_checked"].get<double>(), 0);
    EXPECT_GT(doc["memory"]["device_bytes_allocated"].get<double>(), 0);
    EXPECT_LE(doc["memory"]["device_bytes_allocated"].get<double>(), doc["memory"]["budget_bytes"].get<double>());
    EXPECT_GT(doc["reference"]["memcpy_d2d_gbs"].get<double>(), 0);
    for (const nlohmann::json &s : doc["series"]) {
        // 1.3: a bandwidth only where the series' quantity is one; a call's
        // cost or a latency carries its own figure, positive.
        ASSERT_TRUE(s.contains("quantity")) << s["name"];
        const std::string q = s["quantity"]["name"].get<std::string>();
        const bool bandwidth = q == "dram_bandwidth" || q == "l2_bandwidth" || q == "l1_shared_bandwidth" || q == "link_bandwidth";
        for (const nlohmann::json &p : s["points"]) {
            const nlohmann::json &t = p["time_ms"];
            EXPECT_GE(t["n"].get<int>(), 3);
            EXPECT_EQ(t["samples"].size(), t["n"].get<size_t>());
            // The deciles: nine, in order, between min and max.
            ASSERT_EQ(t["quantiles"].size(), 9u);
            for (std::size_t k = 0; k < 9; ++k) {
                EXPECT_GE(t["quantiles"][k].get<double>(), t["min"].get<double>() * (1 - 1e-5));
                EXPECT_LE(t["quantiles"][k].get<double>(), t["max"].get<double>() * (1 + 1e-5));
                if (k) {
                    EXPECT_LE(t["quantiles"][k - 1].get<double>(), t["quantiles"][k].get<double>());
                }
            }
            EXPECT_GT(t["min"].get<double>(), 0);
            EXPECT_LE(t["min"].get<double>(), t["median"].get<double>());
            EXPECT_LE(t["median"].get<double>(), t["max"].get<double>());
            if (bandwidth && p.contains("bytes")) {
                EXPECT_GT(p["bandwidth_gbs"].get<double>(), 0) << s["name"];
            } else if (!bandwidth) {
                EXPECT_FALSE(p.contains("bandwidth_gbs")) << s["name"] << ": a " << q << " series carries no bandwidth";
                EXPECT_FALSE(p.contains("fraction_of_memcpy")) << s["name"];
            }
            if (q == "latency" || q == "time_per_call") {
                const std::string field = s["y"]["field"].get<std::string>();
                ASSERT_TRUE(p["values"].contains(field)) << s["name"] << " " << field;
                EXPECT_GT(p["values"][field].get<double>(), 0) << s["name"] << " " << field;
            }
        }
    }
}

inline nlohmann::json to_doc_form(const gm_result *r, gm_samples form) {
    char *text = nullptr;
    EXPECT_EQ(gm_result_to_json_samples(&text, r, form), GM_OK);
    nlohmann::json doc = nlohmann::json::parse(text);
    gm_free_string(text);
    return doc;
}

inline const nlohmann::json *series_named(const nlohmann::json &doc, const std::string &name) {
    for (const nlohmann::json &s : doc["series"])
        if (s["name"] == name) return &s;
    return nullptr;
}

// The series of a result by their variant.
inline std::map<std::string, nlohmann::json> by_variant(const nlohmann::json &doc) {
    std::map<std::string, nlohmann::json> out;
    for (const nlohmann::json &s : doc["series"]) out[s["variant"].get<std::string>()] = s;
    return out;
}

// Device buffers of a test, destroyed on every path.
struct Buffers {
    gm_buffer *in = nullptr, *out = nullptr;
    ~Buffers() {
        gm_buffer_destroy(in);
        gm_buffer_destroy(out);
    }
};

// Counts every point from now on where counters can be read on the context;
// false, with the reason in *why, where they cannot.
inline bool count_every_point(gm_context *ctx, std::string *why) {
    int available = 0;
    char *reason = nullptr;
    if (gm_counters_available(&available, &reason, ctx) != GM_OK) {
        *why = gm_context_last_error(ctx);
        return false;
    }
    *why = reason ? reason : "";
    gm_free_string(reason);
    return available && gm_context_set(ctx, GM_SETTING_COUNTERS, GM_COUNTERS_ON) == GM_OK;
}

// The context's device as gm_device_info_json describes it.
inline nlohmann::json device_info(gm_context *ctx) {
    char *text = nullptr;
    EXPECT_EQ(gm_device_info_json(&text, ctx), GM_OK);
    nlohmann::json d = nlohmann::json::parse(text ? text : "{}");
    gm_free_string(text);
    return d;
}

// The major compute capability of the context's device.
inline int compute_capability_major(gm_context *ctx) {
    const std::string cc = device_info(ctx).value("compute_capability", "0.0");
    return std::stoi(cc.substr(0, cc.find('.')));
}

// The context's L2 persisting controls as gm_l2_state_json reports them.
inline nlohmann::json l2_state(gm_context *ctx) {
    char *text = nullptr;
    EXPECT_EQ(gm_l2_state_json(&text, ctx), GM_OK) << gm_context_last_error(ctx);
    nlohmann::json s = nlohmann::json::parse(text ? text : "null");
    gm_free_string(text);
    return s;
}
