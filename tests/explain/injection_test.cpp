// The injection library's loading and refusal paths, without a GPU: loaded
// outside gmlab explain it does nothing; loaded by explain it writes its
// process record, and where CUPTI cannot trace it says why in a record
// instead of failing the program.
#include <gtest/gtest.h>
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <string>

#include "temp_folder.hpp"
#include "explain/program/crash_stack.hpp"
#include "explain/trace_records.hpp"
#include "inject/record_sink.hpp"

namespace {

// Loads the library in a child process (CUPTI's state stays there) and calls
// InitializeInjection; returns its result, or -1.
int initialize_in_child(const std::string &out, const std::string &cupti) {
    const pid_t pid = fork();
    if (pid == 0) {
        if (out.empty()) unsetenv("GMLAB_EXPLAIN_OUT");
        else setenv("GMLAB_EXPLAIN_OUT", out.c_str(), 1);
        setenv("GMLAB_EXPLAIN_PASS", "trace", 1);
        if (!cupti.empty()) setenv("GM_CUPTI_LIBRARY", cupti.c_str(), 1);
        void *h = dlopen(GMX_INJECTION, RTLD_NOW | RTLD_LOCAL);
        if (!h) _exit(100);
        auto init = reinterpret_cast<int (*)()>(dlsym(h, "InitializeInjection"));
        if (!init) _exit(101);
        const int ok = init() == 1;
        std::exit(ok ? 0 : 102);  // exit(), not _exit(): the library's exit record is written by atexit
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// As initialize_in_child, then the program crashes with `sig` (raised twice:
// while the sink's lock would be free, as in a real crash); the signal that
// ended the child, or -1.
int crash_in_child(const std::string &out, int sig) {
    const pid_t pid = fork();
    if (pid == 0) {
        setenv("GMLAB_EXPLAIN_OUT", out.c_str(), 1);
        setenv("GMLAB_EXPLAIN_PASS", "trace", 1);
        setenv("GM_CUPTI_LIBRARY", "libm.so.6", 1);  // no CUPTI: only the sink and the handler work
        void *h = dlopen(GMX_INJECTION, RTLD_NOW | RTLD_LOCAL);
        if (!h) _exit(100);
        auto init = reinterpret_cast<int (*)()>(dlsym(h, "InitializeInjection"));
        if (!init || init() != 1) _exit(101);
        raise(sig);
        _exit(102);  // not reached: the handler lets the signal end the process
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFSIGNALED(status) ? WTERMSIG(status) : -1;
}

std::string injection_folder() { return gmexplain_test::temp_folder("gmx-inject"); }

}  // namespace

TEST(ExplainInjection, ExportsOnlyTheEntryPointTheDriverCalls) {
    void *h = dlopen(GMX_INJECTION, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(h, nullptr) << dlerror();
    EXPECT_NE(dlsym(h, "InitializeInjection"), nullptr);
    EXPECT_EQ(dlsym(h, "cuptiSubscribe"), nullptr);  // CUPTI is not linked: loaded at run time
}

TEST(ExplainInjection, OutsideExplainItStaysOutOfTheWay) {
    EXPECT_EQ(initialize_in_child("", ""), 0);
}

TEST(ExplainInjection, WritesItsProcessAndExitRecords) {
    const std::string dir = injection_folder();
    // Without a GPU, CUPTI may refuse or accept and deliver nothing: either way
    // the program goes on and the records say which process ran and that it exited.
    EXPECT_EQ(initialize_in_child(dir, ""), 0);
    const auto r = gmexplain::read_pass(dir, "trace");
    ASSERT_EQ(r.pids.size(), 1u);
    EXPECT_EQ(r.exits, 1);
}

TEST(ExplainInjection, ALibraryThatIsNotCuptiIsRefusedWithAReason) {
    const std::string dir = injection_folder();
    EXPECT_EQ(initialize_in_child(dir, "libm.so.6"), 0);
    const auto r = gmexplain::read_pass(dir, "trace");
    ASSERT_EQ(r.pids.size(), 1u);
    EXPECT_NE(r.trace_unavailable.find("libm.so.6 has no cupti"), std::string::npos) << r.trace_unavailable;
}

// A crash is recorded from the handler with write(2) alone, and the program
// still ends by its signal, as it would have without explain.
TEST(ExplainInjection, ACrashIsRecordedAndTheSignalStillEndsTheProgram) {
    for (int sig : {SIGSEGV, SIGABRT}) {
        const std::string dir = injection_folder();
        EXPECT_EQ(crash_in_child(dir, sig), sig);
        const auto r = gmexplain::read_pass(dir, "trace");
        ASSERT_EQ(r.pids.size(), 1u);
        ASSERT_EQ(r.signals.size(), 1u);
        EXPECT_EQ(r.signals[0], sig);
        EXPECT_EQ(r.exits, 0);
        // ... with the crashing thread's stack: the handler's own frames left
        // out, the frame that raised the signal (this test's child) in it.
        EXPECT_NE(r.crash_stack.find("gm_explain_tests"), std::string::npos) << r.crash_stack;
        EXPECT_EQ(r.crash_stack.find("libgmlab_explain_inject"), std::string::npos) << r.crash_stack;
    }
}

// The stack told in one line: innermost first, one library's frames folded,
// names demangled, the injection library's handler left out.
TEST(ExplainInjection, TheCrashStackIsToldInOneLine) {
    const std::vector<std::string> frames = {
        "/opt/gmlab/lib/libgmlab_explain_inject.so(+0x1a2b)[0x7f0000001a2b]",
        "/opt/gmlab/lib/libgmlab_explain_inject.so(+0x1c00)[0x7f0000001c00]",
        "/lib/x86_64-linux-gnu/libc.so.6(+0x45330)[0x7f0000045330]",
        "/usr/local/cuda/lib64/libcupti.so.13(+0x3e1f0)[0x7f000003e1f0]",
        "/usr/local/cuda/lib64/libcupti.so.13(cuptiActivityFlushAll+0x52)[0x7f000003e2f0]",
        "/usr/lib/libtorch_cuda.so(_ZN3c104cuda9CUDAGraph5resetEv+0x10)[0x7f0000100000]",
        "[0x7f0000200000]",
    };
    EXPECT_EQ(gmexplain::crash_stack_summary(frames),
              "libc.so.6 < libcupti.so.13 (x2) (cuptiActivityFlushAll) < libtorch_cuda.so (c10::cuda::CUDAGraph::reset()) < ?");
    EXPECT_EQ(gmexplain::crash_stack_summary(frames, 2), "libc.so.6 < libcupti.so.13 (x2) (cuptiActivityFlushAll)");
    EXPECT_EQ(gmexplain::crash_stack_summary({}), "");
}

TEST(ExplainInjection, TheSignalRecordIsWrittenWithoutAllocating) {
    char buf[64];
    const std::size_t n = gmexplain::signal_record(buf, sizeof buf, 11);
    EXPECT_EQ(std::string(buf, n), "{\"type\":\"signal\",\"signal\":11}\n");
    EXPECT_EQ(gmexplain::signal_record(buf, 10, 11), 0u);  // too small: nothing half-written
    EXPECT_EQ(std::string(buf, gmexplain::signal_record(buf, sizeof buf, 6)), "{\"type\":\"signal\",\"signal\":6}\n");
}
