#include "children.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace gmcli {

namespace {

struct Running {
    pid_t pid = -1;
    int fd = -1;          // read end of its stdout+stderr pipe; -1 when closed
    std::string pending;  // a line not yet ended
    std::string prefix;
    bool done = false;
};

pid_t spawn(const std::string &exe, const ChildSpec &spec, int *read_fd) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    const pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        std::vector<char *> argv;
        argv.push_back(const_cast<char *>(exe.c_str()));
        for (const std::string &a : spec.args) argv.push_back(const_cast<char *>(a.c_str()));
        argv.push_back(nullptr);
        execv(exe.c_str(), argv.data());
        const std::string msg = "gmlab: cannot start " + exe + ": " + std::strerror(errno) + "\n";
        (void)!write(STDERR_FILENO, msg.data(), msg.size());
        _exit(127);
    }
    close(fds[1]);
    *read_fd = fds[0];
    return pid;
}

void drain(Running &r, std::ostream &out, bool flush_partial) {
    char buf[4096];
    for (;;) {
        const ssize_t n = read(r.fd, buf, sizeof buf);
        if (n > 0) {
            r.pending.append(buf, static_cast<std::size_t>(n));
            continue;
        }
        if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
            close(r.fd);
            r.fd = -1;
            flush_partial = true;
        }
        break;
    }
    for (std::size_t nl; (nl = r.pending.find('\n')) != std::string::npos;) {
        out << r.prefix << r.pending.substr(0, nl + 1);
        r.pending.erase(0, nl + 1);
    }
    if (flush_partial && !r.pending.empty()) {
        out << r.prefix << r.pending << "\n";
        r.pending.clear();
    }
    out.flush();
}

}  // namespace

std::string self_executable() {
    char buf[4096];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string("gmlab");
}

std::vector<std::string> child_run_arguments(const std::vector<std::string> &argv, int device) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        const std::string &a = argv[i];
        if (a == "--parallel" || a.rfind("--devices=", 0) == 0) continue;
        if (a == "--devices") {
            ++i;  // and its value
            continue;
        }
        out.push_back(a);
    }
    out.push_back("--device");
    out.push_back(std::to_string(device));
    return out;
}

std::vector<ChildOutcome> run_children(const std::vector<ChildSpec> &children, double deadline_s, std::ostream &out,
                                       const std::string &program) {
    const std::string exe = program.empty() ? self_executable() : program;
    std::vector<Running> running(children.size());
    std::vector<ChildOutcome> outcome(children.size());
    out.flush();
    for (std::size_t i = 0; i < children.size(); ++i) {
        running[i].prefix = "[gpu " + std::to_string(children[i].ordinal) + "] ";
        running[i].pid = spawn(exe, children[i], &running[i].fd);
        if (running[i].pid < 0) {
            running[i].done = true;
            outcome[i].why = std::string("could not start: ") + std::strerror(errno);
        } else {
            fcntl(running[i].fd, F_SETFL, O_NONBLOCK);
        }
    }
    const auto start = std::chrono::steady_clock::now();
    bool killed = false;
    for (;;) {
        std::vector<pollfd> fds;
        std::vector<std::size_t> who;
        for (std::size_t i = 0; i < running.size(); ++i)
            if (running[i].fd >= 0) {
                fds.push_back({running[i].fd, POLLIN, 0});
                who.push_back(i);
            }
        if (!fds.empty()) poll(fds.data(), fds.size(), 200);
        for (std::size_t k = 0; k < fds.size(); ++k)
            if (fds[k].revents) drain(running[who[k]], out, false);
        bool all_done = true;
        for (std::size_t i = 0; i < running.size(); ++i) {
            Running &r = running[i];
            if (r.done) continue;
            int status = 0;
            if (waitpid(r.pid, &status, WNOHANG) == r.pid) {
                r.done = true;
                if (r.fd >= 0) drain(r, out, true);
                if (WIFEXITED(status)) outcome[i].exit_code = WEXITSTATUS(status);
                else if (WIFSIGNALED(status)) outcome[i].why = std::string("ended by signal ") + strsignal(WTERMSIG(status));
            } else {
                all_done = false;
            }
        }
        if (all_done) break;
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        // Those that ignore SIGTERM for two seconds are killed outright.
        if (killed && elapsed > deadline_s + 2)
            for (const Running &r : running)
                if (!r.done) kill(r.pid, SIGKILL);
        if (deadline_s > 0 && elapsed > deadline_s && !killed) {
            killed = true;
            for (std::size_t i = 0; i < running.size(); ++i)
                if (!running[i].done) {
                    outcome[i].timed_out = true;
                    kill(running[i].pid, SIGTERM);
                }
        }
    }
    for (std::size_t i = 0; i < outcome.size(); ++i)
        if (outcome[i].timed_out) outcome[i].why = "killed after the deadline of " + std::to_string(static_cast<int>(deadline_s)) + " s";
    return outcome;
}

}  // namespace gmcli
