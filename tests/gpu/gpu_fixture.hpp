// A context on device 0 with quick settings, and helpers for JSON results.
#pragma once

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
