#include "explain/program/program_launch.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

namespace gmexplain {

namespace {

std::string find_on_path(const std::string &program) {
    const char *path = std::getenv("PATH");
    std::stringstream s(path ? path : "/usr/bin:/bin");
    for (std::string dir; std::getline(s, dir, ':');) {
        const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
        struct stat st {};
        if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return candidate;
    }
    return "";
}

// The program being waited for, and a stopping signal that arrived meanwhile.
volatile sig_atomic_t g_child = 0;
volatile sig_atomic_t g_pending = 0;
constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

// A signal that would stop gmlab explain goes to the program first (kill is
// async-signal-safe): killed alone, gmlab would leave the program running,
// holding the GPU's counters from every later profiler.
extern "C" void forward_to_program(int sig) {
    g_pending = sig;
    if (g_child > 0) kill(static_cast<pid_t>(g_child), sig);
}

// While the program runs, stopping signals are forwarded to it; once it has
// ended, the caller's dispositions are back and a signal that came is raised
// again under them (by default it ends this process, as it would have).
class ForwardSignals {
public:
    ForwardSignals() {
        struct sigaction sa {};
        sa.sa_handler = forward_to_program;
        sa.sa_flags = SA_RESTART;  // the read of the exec report goes on after a forwarded signal
        sigemptyset(&sa.sa_mask);
        for (std::size_t i = 0; i < std::size(kForwarded); ++i) sigaction(kForwarded[i], &sa, &old_[i]);
    }
    void child(pid_t pid) {
        g_child = pid;
        if (g_pending) kill(pid, g_pending);  // it came between fork and here
    }
    ~ForwardSignals() {
        g_child = 0;
        for (std::size_t i = 0; i < std::size(kForwarded); ++i) sigaction(kForwarded[i], &old_[i], nullptr);
        if (const int sig = g_pending) {
            g_pending = 0;
            raise(sig);
        }
    }

private:
    struct sigaction old_[std::size(kForwarded)] {};
};

}  // namespace

LaunchProblem check_program(const std::string &program, std::string *resolved) {
    LaunchProblem p;
    if (program.empty()) {
        p.kind = LaunchProblem::kNotFound;
        p.message = "no program given: gmlab explain [options] -- PROGRAM [ARGS...]";
        return p;
    }
    *resolved = program.find('/') == std::string::npos ? find_on_path(program) : program;
    struct stat st {};
    if (resolved->empty() || stat(resolved->c_str(), &st) != 0) {
        p.kind = LaunchProblem::kNotFound;
        p.message = "program not found: " + program +
                    (program.find('/') == std::string::npos ? " (searched PATH)" : "");
        return p;
    }
    if (!S_ISREG(st.st_mode) || access(resolved->c_str(), X_OK) != 0) {
        p.kind = LaunchProblem::kNotExecutable;
        p.message = program + " is not an executable file" +
                    std::string(S_ISREG(st.st_mode) ? " (chmod +x it, or run it through its interpreter)" : "");
        // A script that is not executable: say which interpreter would run it.
        return p;
    }
    std::ifstream in(*resolved, std::ios::binary);
    char head[256] = {};
    in.read(head, sizeof head - 1);
    if (std::memcmp(head, "\x7f" "ELF", 4) == 0) return p;
    if (head[0] == '#' && head[1] == '!') {
        std::string line(head + 2);
        line = line.substr(0, line.find('\n'));
        std::stringstream words(line);
        std::string interpreter;
        words >> interpreter;
        if (interpreter == "/usr/bin/env") words >> interpreter;
        const std::string found = interpreter.find('/') == std::string::npos ? find_on_path(interpreter) : interpreter;
        if (found.empty() || access(found.c_str(), X_OK) != 0) {
            p.kind = LaunchProblem::kNoInterpreter;
            p.message = program + " is a script whose interpreter " + interpreter + " is not installed or not on PATH";
        }
        return p;
    }
    p.kind = LaunchProblem::kNoInterpreter;
    p.message = program + " is neither a binary nor a script with a #! line: run it through its interpreter "
                          "(gmlab explain -- python3 " + program + ")";
    return p;
}

ProgramExit run_program(const std::string &resolved, const std::vector<std::string> &argv,
                        const std::vector<std::pair<std::string, std::string>> &env) {
    ProgramExit out;
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) {
        out.error = std::string("pipe failed: ") + std::strerror(errno);
        return out;
    }
    const auto t0 = std::chrono::steady_clock::now();
    ForwardSignals forward;  // the child's exec resets the handlers to their defaults
    const pid_t pid = fork();
    if (pid < 0) {
        out.error = std::string("fork failed: ") + std::strerror(errno);
        close(report[0]);
        close(report[1]);
        return out;
    }
    if (pid == 0) {
        for (const int sig : kForwarded) signal(sig, SIG_DFL);  // the program's own, from its first instruction
        close(report[0]);
        for (const auto &[k, v] : env) setenv(k.c_str(), v.c_str(), 1);
        std::vector<char *> args;
        for (const auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
        args.push_back(nullptr);
        execv(resolved.c_str(), args.data());
        const int err = errno;  // exec failed: tell the parent why, through the pipe
        if (write(report[1], &err, sizeof err) < 0) {
        }
        _exit(127);
    }
    forward.child(pid);
    close(report[1]);
    int err = 0;
    const bool exec_failed = read(report[0], &err, sizeof err) == static_cast<ssize_t>(sizeof err);
    close(report[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (exec_failed) {
        out.error = "could not start " + resolved + ": " + std::strerror(err);
        out.status = 127;
        return out;
    }
    if (WIFEXITED(status)) out.status = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) {
        out.signal = WTERMSIG(status);
        out.status = 128 + out.signal;
    }
    return out;
}

namespace {

// The argument quoted for the shell.
std::string shell_quoted(const std::string &s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

}  // namespace

HostLine host_source_line(const std::string &executable, std::uint64_t address) {
    static std::map<std::pair<std::string, std::uint64_t>, HostLine> known;
    auto it = known.find({executable, address});
    if (it != known.end()) return it->second;
    HostLine out;
    char hex[32];
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(address));
    const std::string command = "addr2line -C -f -e " + shell_quoted(executable) + " " + hex + " 2>/dev/null";
    if (FILE *p = popen(command.c_str(), "r")) {
        char function[4096] = "", where[4096] = "";
        if (std::fgets(function, sizeof function, p) && std::fgets(where, sizeof where, p)) {
            out.function = function;
            out.function.erase(out.function.find_last_not_of("\r\n") + 1);
            if (out.function == "??") out.function.clear();
            std::string w = where;
            w.erase(w.find_last_not_of("\r\n") + 1);
            const auto colon = w.rfind(':');
            if (colon != std::string::npos && w.compare(0, 2, "??") != 0) {
                out.file = w.substr(0, colon);
                out.line = std::atoi(w.c_str() + colon + 1);
            }
        }
        pclose(p);
    }
    return known[{executable, address}] = out;
}

}  // namespace gmexplain
