// include/gmlab_explain.h under gmlab.h's rules: a status with the output
// first, a handle that says why, options that carry their size, and the
// previous release's names still answering as before.
#include <gtest/gtest.h>

#include <string>

#include "gmlab_explain.h"

namespace {

gm_explain_options options_for(const char *const *argv, int argc) {
    gm_explain_options o;
    gm_explain_options_init(&o);
    o.argv = argv;
    o.argc = argc;
    return o;
}

}  // namespace

TEST(ExplainCApi, OptionsCarryTheirSize) {
    gm_explain_options o;
    gm_explain_options_init(&o);
    EXPECT_EQ(o.struct_size, sizeof(gm_explain_options));
    EXPECT_EQ(o.kernels, 5);
}

TEST(ExplainCApi, OptionsNotFilledByInitAreRefusedWithTheirSize) {
    const char *argv[] = {"/bin/true"};
    gm_explain_options o = options_for(argv, 1);
    o.struct_size = 8;
    gm_explain *e = nullptr;
    EXPECT_EQ(gm_explain_program(&e, &o), GM_ERROR_INVALID_ARGUMENT);
    ASSERT_NE(e, nullptr);
    EXPECT_NE(std::string(gm_explain_message(e)).find("struct_size is 8"), std::string::npos) << gm_explain_message(e);
    EXPECT_EQ(gm_explain_exit_code(e), 2);
    gm_explain_destroy(e);
    EXPECT_EQ(gm_explain_program(nullptr, &o), GM_ERROR_INVALID_ARGUMENT);
}

TEST(ExplainCApi, AProgramThatIsNotThereIsABadArgumentWithItsExitCode) {
    const char *argv[] = {"/nonexistent/program"};
    const gm_explain_options o = options_for(argv, 1);
    gm_explain *e = nullptr;
    EXPECT_EQ(gm_explain_program(&e, &o), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(gm_explain_exit_code(e), 20);
    EXPECT_NE(std::string(gm_explain_message(e)).find("/nonexistent/program"), std::string::npos);
    gm_explain_destroy(e);
}

TEST(ExplainCApi, AReadableExplanationOpensAndABadPathSaysWhy) {
    gm_explain *e = nullptr;
    EXPECT_EQ(gm_explain_open(&e, "/nonexistent/explanation.json"), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gm_explain_message(e)).find("cannot be read"), std::string::npos);
    gm_explain_destroy(e);
}

// The previous release's names answer as before: the exit code, output last.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
TEST(ExplainCApi, ThePreviousNamesStillAnswer) {
    const char *argv[] = {"/nonexistent/program"};
    const gm_explain_options o = options_for(argv, 1);
    gm_explain *e = nullptr;
    EXPECT_EQ(gm_explain_run(&o, &e), 20);
    gm_explain_free(e);
    EXPECT_EQ(gm_explain_load("/nonexistent/explanation.json", &e), 27);
    gm_explain_free(e);
}
#pragma GCC diagnostic pop
