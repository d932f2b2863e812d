// gmlab explain waits for the user's program; a signal that stops gmlab
// explain (timeout's SIGTERM, a scheduler's, a hang-up) reaches the program
// first, so that nothing is left running on the GPU, holding its counters.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include "explain/program/program_launch.hpp"

using namespace gmexplain;

namespace {

// Waits up to ~10 s for the file to hold a pid.
pid_t pid_written_to(const std::string &path) {
    for (int i = 0; i < 1000; ++i) {
        std::ifstream in(path);
        pid_t pid = 0;
        if (in >> pid && pid > 0) return pid;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return 0;
}

bool gone(pid_t pid) {
    for (int i = 0; i < 500; ++i) {
        if (kill(pid, 0) != 0 && errno == ESRCH) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
}

}  // namespace

TEST(ExplainProgramLaunch, ATermSignalReachesTheProgramAndEndsTheWaiterAfterIt) {
    const std::string pidfile = testing::TempDir() + "gmx_launch_pid_" + std::to_string(getpid());
    std::remove(pidfile.c_str());
    const pid_t waiter = fork();
    ASSERT_GE(waiter, 0);
    if (waiter == 0) {  // stands for gmlab explain: runs a program that records its pid and sleeps
        run_program("/bin/sh", {"sh", "-c", "echo $$ > " + pidfile + "; exec sleep 30"}, {});
        _exit(0);  // reached only if the signal did not end this process
    }
    const pid_t program = pid_written_to(pidfile);
    ASSERT_GT(program, 0);
    ASSERT_EQ(kill(waiter, SIGTERM), 0);
    int status = 0;
    ASSERT_EQ(waitpid(waiter, &status, 0), waiter);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "status " << status;
    EXPECT_TRUE(gone(program)) << "the program " << program << " outlived the signal";
    if (!gone(program)) kill(program, SIGKILL);
    std::remove(pidfile.c_str());
}

TEST(ExplainProgramLaunch, WithoutASignalTheCallersHandlersAreBack) {
    struct sigaction before {}, after {};
    sigaction(SIGTERM, nullptr, &before);
    const ProgramExit e = run_program("/bin/true", {"true"}, {});
    EXPECT_EQ(e.status, 0);
    sigaction(SIGTERM, nullptr, &after);
    EXPECT_EQ(before.sa_handler, after.sa_handler);
}
