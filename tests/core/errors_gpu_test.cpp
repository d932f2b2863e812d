// After each kind of error the context still runs an experiment.
#include "gpu_fixture.hpp"

namespace {

const char *kSmallRun = R"({"elements": 65536, "offsets": [0, 1], "variants": ["guide"]})";

}  // namespace

class ErrorRecovery : public GpuTest {
protected:
    void expect_still_works() {
        nlohmann::json doc = run("offset_copy", kSmallRun);
        ASSERT_FALSE(doc.is_null());
        EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    }
    void expect_error(gm_status want, const char *name, const char *params, const std::string &message_part) {
        gm_result *r = reinterpret_cast<gm_result *>(0x1);
        EXPECT_EQ(gm_run(&r, ctx, name, params), want) << gm_context_last_error(ctx);
        EXPECT_EQ(r, nullptr);
        EXPECT_NE(std::string(gm_context_last_error(ctx)).find(message_part), std::string::npos)
            << gm_context_last_error(ctx);
        expect_still_works();
    }
};

TEST_F(ErrorRecovery, OutOfRangeParameter) {
    expect_error(GM_ERROR_INVALID_ARGUMENT, "stride_copy", R"({"strides": [0]})", "strides must be in 1..32, got 0");
}

TEST_F(ErrorRecovery, UnknownParameter) {
    expect_error(GM_ERROR_INVALID_ARGUMENT, "stride_copy", R"({"stride": 2})", "unknown parameter 'stride'");
}

TEST_F(ErrorRecovery, MalformedParamsJson) {
    expect_error(GM_ERROR_INVALID_ARGUMENT, "stride_copy", R"({"strides": )", "not valid JSON");
}

TEST_F(ErrorRecovery, UnknownExperiment) {
    expect_error(GM_ERROR_UNKNOWN_EXPERIMENT, "no_such_thing", "{}", "unknown experiment 'no_such_thing'");
}

TEST_F(ErrorRecovery, SizeBeyondFreeMemory) {
    expect_error(GM_ERROR_OUT_OF_MEMORY, "stream", R"({"array_bytes": "64GiB", "kernels": "copy"})", "needs");
    expect_error(GM_ERROR_OUT_OF_MEMORY, "stride_copy", R"({"elements": 68719476736, "word_sizes": [16]})", "needs");
}

TEST_F(ErrorRecovery, NullArguments) {
    gm_result *r = nullptr;
    EXPECT_EQ(gm_run(nullptr, ctx, "stream", "{}"), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(gm_run(&r, ctx, nullptr, "{}"), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(gm_run_stride_copy(&r, ctx, nullptr), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(gm_device_info_json(nullptr, ctx), GM_ERROR_INVALID_ARGUMENT);
    expect_still_works();
}

TEST_F(ErrorRecovery, BudgetIsASetting) {
    // A run that fits the free memory but not a tiny budget is refused with both numbers.
    ASSERT_EQ(gm_context_set(ctx, GM_SETTING_MEMORY_FRACTION, 0.01), GM_OK);
    gm_result *r = nullptr;
    std::string big = R"({"array_bytes": ")" + std::to_string(1) + R"(GiB", "kernels": "copy", "include_memcpy": false})";
    const gm_status s = gm_run(&r, ctx, "stream", big.c_str());
    EXPECT_EQ(s, GM_ERROR_OUT_OF_MEMORY);
    EXPECT_NE(std::string(gm_context_last_error(ctx)).find("raise memory_fraction"), std::string::npos)
        << gm_context_last_error(ctx);
    ASSERT_EQ(gm_context_set(ctx, GM_SETTING_MEMORY_FRACTION, 0.5), GM_OK);
    expect_still_works();
}
