// The C contract through the shared library; none of these needs a device.
#include <cmath>
#include <cstring>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gmlab.h"

using nlohmann::json;

namespace {

bool have_device() {
    int n = 0;
    return gm_device_count(&n) == GM_OK && n > 0;
}

std::string take(char *s) {
    std::string out = s ? s : "";
    gm_free_string(s);
    return out;
}

}  // namespace

TEST(Version, MatchesTheHeader) {
    const std::string v = std::to_string(GM_VERSION_MAJOR) + "." + std::to_string(GM_VERSION_MINOR) + "." +
                          std::to_string(GM_VERSION_PATCH);
    EXPECT_EQ(v, gm_version());
    EXPECT_EQ(gm_abi_version(), GM_ABI_VERSION);
}

TEST(Status, EveryCodeHasItsOwnText) {
    const gm_status all[] = {GM_OK, GM_ERROR_INVALID_ARGUMENT, GM_ERROR_NO_DEVICE, GM_ERROR_NOT_SUPPORTED,
                             GM_ERROR_OUT_OF_MEMORY, GM_ERROR_CUDA, GM_ERROR_VERIFICATION_FAILED,
                             GM_ERROR_UNKNOWN_EXPERIMENT, GM_ERROR_INTERNAL};
    std::set<std::string> texts;
    for (gm_status s : all) texts.insert(gm_status_string(s));
    EXPECT_EQ(texts.size(), std::size(all));
    EXPECT_STREQ(gm_status_string(static_cast<gm_status>(-1000)), "unknown status");
    // The numbers are part of the ABI.
    EXPECT_EQ(GM_ERROR_UNKNOWN_EXPERIMENT, -7);
    EXPECT_EQ(GM_ERROR_INTERNAL, -8);
}

TEST(Nulls, DestroyAcceptsNull) {
    gm_context_destroy(nullptr);
    gm_buffer_destroy(nullptr);
    gm_result_destroy(nullptr);
    gm_free_string(nullptr);
    EXPECT_EQ(gm_buffer_size(nullptr), 0u);
    EXPECT_EQ(gm_result_experiment(nullptr), nullptr);
    EXPECT_EQ(gm_result_series_count(nullptr), 0u);
    EXPECT_EQ(gm_result_series_name(nullptr, 0), nullptr);
    EXPECT_EQ(gm_result_point_count(nullptr, 0), 0u);
}

TEST(Nulls, NullHandlesAndOutputsAreArgumentErrors) {
    EXPECT_EQ(gm_context_create(nullptr, 0), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(gm_last_error(), "out must not be NULL");
    EXPECT_EQ(gm_device_count(nullptr), GM_ERROR_INVALID_ARGUMENT);
    char *text = nullptr;
    EXPECT_EQ(gm_device_info_json(&text, nullptr), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(gm_last_error(), "ctx must not be NULL");
    gm_buffer *buf = nullptr;
    EXPECT_EQ(gm_buffer_create(&buf, nullptr, 16), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(gm_buffer_upload(nullptr, 0, "x", 1), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(gm_buffer_download(nullptr, 0, &text, 1), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(gm_buffer_fill(nullptr, 0), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(gm_copy_strided(nullptr, nullptr, 0, 1, nullptr, 0, 1, 1, 4), GM_ERROR_INVALID_ARGUMENT);
    gm_result *r = nullptr;
    EXPECT_EQ(gm_run(&r, nullptr, "stream", "{}"), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(gm_run_stream(&r, nullptr, nullptr), GM_ERROR_INVALID_ARGUMENT);
    gm_stream_params sp;
    gm_stream_params_init(&sp);
    EXPECT_EQ(gm_run_stream(&r, nullptr, &sp), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(gm_context_set(nullptr, GM_SETTING_WARMUP, 1), GM_ERROR_INVALID_ARGUMENT);
    double v = 0;
    EXPECT_EQ(gm_context_get(&v, nullptr, GM_SETTING_WARMUP), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(gm_context_synchronize(nullptr), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(gm_result_to_json(&text, nullptr), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(gm_result_from_json(&r, nullptr), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(gm_result_point_value(&v, nullptr, 0, 0, "x"), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(gm_context_last_error(nullptr), "ctx is NULL");
    gm_stream_params_init(nullptr);  // harmless
}

TEST(NoDevice, EveryDeviceCallSaysSo) {
    if (have_device()) GTEST_SKIP() << "a device is present; the GPU tests cover this path";
    int n = 7;
    EXPECT_EQ(gm_device_count(&n), GM_ERROR_NO_DEVICE);
    EXPECT_EQ(n, 0);
    gm_context *ctx = reinterpret_cast<gm_context *>(0x1);
    EXPECT_EQ(gm_context_create(&ctx, 0), GM_ERROR_NO_DEVICE);
    EXPECT_EQ(ctx, nullptr);
    EXPECT_NE(std::string(gm_last_error()).find("no CUDA device"), std::string::npos) << gm_last_error();
}

// The message says which of the two causes the runtime folds into one error
// holds here: no driver at all (libcuda absent), or a driver too old.
TEST(NoDevice, SaysWhetherTheDriverIsMissingOrOld) {
    if (have_device()) GTEST_SKIP() << "a device is present";
    int n = 0;
    ASSERT_EQ(gm_device_count(&n), GM_ERROR_NO_DEVICE);
    const std::string message = gm_last_error();
    const bool driver_loaded = std::ifstream("/proc/driver/nvidia/version").good();
    if (!driver_loaded) {
        EXPECT_NE(message.find("no NVIDIA driver is loaded"), std::string::npos) << message;
    } else {
        EXPECT_EQ(message.find("no NVIDIA driver is loaded"), std::string::npos) << message;
    }
    EXPECT_EQ(message.find("version is insufficient"), std::string::npos) << "the runtime blames the version: " << message;
}

TEST(Registry, ListsTheGlobalMemoryExperiments) {
    ASSERT_GE(gm_experiment_count(), 3u);
    std::set<std::string> names;
    for (size_t i = 0; i < gm_experiment_count(); ++i) names.insert(gm_experiment_name(i));
    for (const char *n : {"stream", "offset_copy", "stride_copy"}) EXPECT_TRUE(names.count(n)) << n;
    EXPECT_EQ(gm_experiment_name(gm_experiment_count()), nullptr);
}

TEST(Registry, DescribeGivesTypedParameters) {
    char *text = nullptr;
    ASSERT_EQ(gm_experiment_describe_json(&text, "stride_copy"), GM_OK);
    json d = json::parse(take(text));
    EXPECT_EQ(d["name"], "stride_copy");
    EXPECT_TRUE(d["default_suite"].get<bool>());
    EXPECT_FALSE(d["guide_section"].get<std::string>().empty());
    bool found = false;
    for (const json &p : d["parameters"]) {
        if (p["name"] == "strides") {
            found = true;
            EXPECT_EQ(p["type"], "int_list");
            EXPECT_EQ(p["min"], 1);
            EXPECT_EQ(p["max"], 32);
            EXPECT_EQ(p["default"].size(), 16u);  // 1..8, then every second to 16 and every fourth to 32
        }
    }
    EXPECT_TRUE(found);
    EXPECT_EQ(gm_experiment_describe_json(&text, "nope"), GM_ERROR_UNKNOWN_EXPERIMENT);
    EXPECT_EQ(text, nullptr);
    EXPECT_NE(std::string(gm_last_error()).find("known: stream, read_write, offset_copy, stride_copy"), std::string::npos);
    EXPECT_EQ(gm_experiment_describe_json(&text, nullptr), GM_ERROR_INVALID_ARGUMENT);
}

TEST(Registry, ResolveParamsChecksWithoutADevice) {
    char *text = nullptr;
    ASSERT_EQ(gm_experiment_resolve_params(&text, "stride_copy", R"({"strides": "1..4", "word_sizes": "8"})"), GM_OK);
    json r = json::parse(take(text));
    EXPECT_EQ(r["strides"], json({1, 2, 3, 4}));
    EXPECT_EQ(r["word_sizes"], json({8}));
    EXPECT_EQ(r["block_size"], 256);
    ASSERT_EQ(gm_experiment_resolve_params(&text, "stream", nullptr), GM_OK);
    gm_free_string(text);
    ASSERT_EQ(gm_experiment_resolve_params(&text, "stream", ""), GM_OK);
    gm_free_string(text);

    struct Case {
        const char *exp, *params;
        gm_status status;
        const char *message;
    } cases[] = {
        {"stride_copy", R"({"strides": [0]})", GM_ERROR_INVALID_ARGUMENT, "strides must be in 1..32, got 0"},
        {"stride_copy", R"({"strides": [33]})", GM_ERROR_INVALID_ARGUMENT, "strides must be in 1..32, got 33"},
        {"offset_copy", R"({"offsets": "0..40"})", GM_ERROR_INVALID_ARGUMENT, "offsets must be in 0..32, got 33"},
        {"stride_copy", R"({"word_sizes": [2]})", GM_ERROR_INVALID_ARGUMENT, "word_sizes must be one of 4, 8, 16, got 2"},
        {"stream", R"({"block_size": 33})", GM_ERROR_INVALID_ARGUMENT, "block_size must be a multiple of 32, got 33"},
        {"stream", R"({"unroll": 3})", GM_ERROR_INVALID_ARGUMENT, "unroll must be one of 1, 2, 4, 8, got 3"},
        {"stream", R"({"kernels": "copy,nope"})", GM_ERROR_INVALID_ARGUMENT, "kernels must be one of copy, scale, add, triad, got 'nope'"},
        {"stream", R"({"arraybytes": 5})", GM_ERROR_INVALID_ARGUMENT, "unknown parameter 'arraybytes' for experiment stream"},
        {"stream", R"({"array_bytes": )", GM_ERROR_INVALID_ARGUMENT, "not valid JSON"},
        {"stream", "[1, 2]", GM_ERROR_INVALID_ARGUMENT, "must be a JSON object"},
        {"nope", "{}", GM_ERROR_UNKNOWN_EXPERIMENT, "unknown experiment 'nope'"},
    };
    for (const Case &c : cases) {
        EXPECT_EQ(gm_experiment_resolve_params(&text, c.exp, c.params), c.status) << c.params;
        EXPECT_EQ(text, nullptr);
        EXPECT_NE(std::string(gm_last_error()).find(c.message), std::string::npos)
            << "wanted '" << c.message << "', got '" << gm_last_error() << "'";
    }
}

// What resolving gives can be resolved again to itself, for every experiment's
// defaults and its quick parameters: the CLI runs each experiment with the
// parameters it resolved and checked, and gm_run's own resolution of them
// must change nothing.
TEST(Registry, ResolvedParametersResolveToThemselves) {
    for (size_t i = 0; i < gm_experiment_count(); ++i) {
        const std::string name = gm_experiment_name(i);
        char *text = nullptr;
        ASSERT_EQ(gm_experiment_describe_json(&text, name.c_str()), GM_OK);
        const json described = json::parse(take(text));
        for (const json &given : {json::object(), described.value("quick_parameters", json::object())}) {
            ASSERT_EQ(gm_experiment_resolve_params(&text, name.c_str(), given.dump().c_str()), GM_OK) << name;
            const json once = json::parse(take(text));
            ASSERT_EQ(gm_experiment_resolve_params(&text, name.c_str(), once.dump().c_str()), GM_OK) << name << " " << once;
            EXPECT_EQ(json::parse(take(text)), once) << name;
        }
    }
}

TEST(Settings, NamesAndLookups) {
    EXPECT_STREQ(gm_setting_name(GM_SETTING_MEMORY_FRACTION), "memory_fraction");
    EXPECT_EQ(gm_setting_name(static_cast<gm_setting>(42)), nullptr);
    gm_setting s;
    ASSERT_EQ(gm_setting_from_name(&s, "flush_l2"), GM_OK);
    EXPECT_EQ(s, GM_SETTING_FLUSH_L2);
    EXPECT_EQ(gm_setting_from_name(&s, "flush"), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gm_last_error()).find("unknown setting 'flush'"), std::string::npos);
}

TEST(Settings, CountersIsASetting) {
    EXPECT_STREQ(gm_setting_name(GM_SETTING_COUNTERS), "counters");
    gm_setting s;
    ASSERT_EQ(gm_setting_from_name(&s, "counters"), GM_OK);
    EXPECT_EQ(s, GM_SETTING_COUNTERS);
}

// Without a context only the libraries are checked; either way the answer is
// an availability and, when there is none, a reason that says what to do.
TEST(Counters, AvailabilityWithoutAContext) {
    int available = -1;
    char *reason = nullptr;
    ASSERT_EQ(gm_counters_available(&available, &reason, nullptr), GM_OK) << gm_last_error();
    ASSERT_NE(reason, nullptr);
    EXPECT_TRUE(available == 0 || available == 1);
    if (available) EXPECT_STREQ(reason, "");
    else EXPECT_GT(std::string(reason).size(), 20u) << reason;
    gm_free_string(reason);
    // The reason is optional; the availability is not.
    EXPECT_EQ(gm_counters_available(&available, nullptr, nullptr), GM_OK);
    EXPECT_EQ(gm_counters_available(nullptr, &reason, nullptr), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(reason, nullptr);
    EXPECT_NE(std::string(gm_last_error()).find("available"), std::string::npos) << gm_last_error();
}
