// Child processes of gmlab run --parallel and gmlab check: their output
// passed on line by line with a prefix, their exit codes, the deadline, and
// the arguments a parallel run's children get.
#include <gtest/gtest.h>

#include <chrono>
#include <sstream>

#include "children.hpp"

using gmcli::ChildSpec;

TEST(Children, OutputPrefixedAndExitCodesKept) {
    std::ostringstream out;
    const auto r = gmcli::run_children({{0, {"-c", "echo one; echo two >&2; exit 3"}}, {5, {"-c", "printf 'no newline'"}}}, 0, out,
                                       "/bin/sh");
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].exit_code, 3);
    EXPECT_EQ(r[1].exit_code, 0);
    const std::string text = out.str();
    EXPECT_NE(text.find("[gpu 0] one\n"), std::string::npos) << text;
    EXPECT_NE(text.find("[gpu 0] two\n"), std::string::npos) << text;
    EXPECT_NE(text.find("[gpu 5] no newline\n"), std::string::npos) << text;
}

TEST(Children, RunAtTheSameTime) {
    std::ostringstream out;
    const auto start = std::chrono::steady_clock::now();
    const auto r = gmcli::run_children({{0, {"-c", "sleep 1"}}, {1, {"-c", "sleep 1"}}, {2, {"-c", "sleep 1"}}}, 0, out, "/bin/sh");
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(s, 2.5);  // one after the other would take 3 s
    for (const auto &o : r) EXPECT_EQ(o.exit_code, 0);
}

TEST(Children, DeadlineKillsAndSaysSo) {
    std::ostringstream out;
    const auto start = std::chrono::steady_clock::now();
    const auto r = gmcli::run_children({{0, {"-c", "exit 0"}}, {1, {"-c", "exec sleep 30"}}}, 0.5, out, "/bin/sh");
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
    EXPECT_FALSE(r[0].timed_out);
    EXPECT_EQ(r[0].exit_code, 0);
    EXPECT_TRUE(r[1].timed_out);
    EXPECT_EQ(r[1].exit_code, -1);
    EXPECT_NE(r[1].why.find("deadline"), std::string::npos) << r[1].why;
}

TEST(Children, MissingProgramIsAnExitCode) {
    std::ostringstream out;
    const auto r = gmcli::run_children({{0, {}}}, 0, out, "/nonexistent/gmlab");
    EXPECT_EQ(r[0].exit_code, 127);
    EXPECT_NE(out.str().find("cannot start"), std::string::npos);
}

TEST(Children, ParallelRunArguments) {
    using V = std::vector<std::string>;
    EXPECT_EQ(gmcli::child_run_arguments(V{"run", "stream", "--devices", "all", "--parallel", "--json", "r-{device}.json"}, 2),
              (V{"run", "stream", "--json", "r-{device}.json", "--device", "2"}));
    EXPECT_EQ(gmcli::child_run_arguments(V{"run", "--parallel", "--devices=0,1", "--quick"}, 1), (V{"run", "--quick", "--device", "1"}));
}
