#include "inject/record_sink.hpp"

#include <execinfo.h>
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "inject/record_types.hpp"

namespace gmexplain {

namespace {
std::mutex g_sink_mutex;
std::FILE *g_sink_file = nullptr;
pid_t g_sink_owner = 0;
std::string g_sink_dir, g_sink_pass;
// What a signal handler may read without the lock: the file's descriptor and
// the process it belongs to (a forked child has its parent's until it writes).
std::atomic<int> g_signal_fd{-1};
std::atomic<pid_t> g_signal_fd_owner{0};
// Where a fatal signal's handler writes the crashing thread's stack: built
// beforehand, as the handler may not allocate.
char g_stack_path[4096];

void reopen_for_this_process() {
    // After fork() the child still holds the parent's FILE: it writes its own file.
    if (g_sink_file && g_sink_owner == getpid()) return;
    g_sink_owner = getpid();
    const std::string base = g_sink_dir + "/" + g_sink_pass + "-" + std::to_string(g_sink_owner);
    g_sink_file = std::fopen((base + ".jsonl").c_str(), "a");
    const std::string stack = base + ".stack";
    g_stack_path[0] = '\0';
    if (stack.size() < sizeof g_stack_path) std::memcpy(g_stack_path, stack.c_str(), stack.size() + 1);
    g_signal_fd.store(g_sink_file ? fileno(g_sink_file) : -1);
    g_signal_fd_owner.store(g_sink_owner);
}
}  // namespace

std::string json_string(const std::string &s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        case '\r': out += "\\r"; break;
        default:
            if (c < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
            } else {
                out += static_cast<char>(c);
            }
        }
    }
    return out + "\"";
}

void Line::key(const char *k) {
    if (!body_.empty()) body_ += ",";
    body_ += json_string(k) + ":";
}

Line &Line::field(const char *k, const std::string &value) {
    key(k);
    body_ += json_string(value);
    return *this;
}

Line &Line::field(const char *k, std::uint64_t value) {
    key(k);
    body_ += std::to_string(value);
    return *this;
}

Line &Line::field(const char *k, std::int64_t value) {
    key(k);
    body_ += std::to_string(value);
    return *this;
}

Line &Line::field(const char *k, double value) {
    key(k);
    if (!std::isfinite(value)) {
        body_ += "null";
        return *this;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", value);
    body_ += buf;
    return *this;
}

Line &Line::raw(const char *k, const std::string &json) {
    key(k);
    body_ += json;
    return *this;
}

void sink_open(const std::string &dir, const std::string &pass) {
    std::lock_guard<std::mutex> lock(g_sink_mutex);
    g_sink_dir = dir;
    g_sink_pass = pass;
    reopen_for_this_process();
}

void sink_write(const Line &line) {
    std::lock_guard<std::mutex> lock(g_sink_mutex);
    if (g_sink_dir.empty()) return;
    reopen_for_this_process();
    if (!g_sink_file) return;
    const std::string text = line.text() + "\n";
    std::fwrite(text.data(), 1, text.size(), g_sink_file);
    std::fflush(g_sink_file);
}

void sink_close() {
    std::lock_guard<std::mutex> lock(g_sink_mutex);
    g_signal_fd.store(-1);
    if (g_sink_file) std::fclose(g_sink_file);
    g_sink_file = nullptr;
    g_sink_dir.clear();
}

void sink_flush() {
    std::lock_guard<std::mutex> lock(g_sink_mutex);
    if (g_sink_file) std::fflush(g_sink_file);
}

std::size_t signal_record(char *buf, std::size_t size, int sig) noexcept {
    char digits[16];
    std::size_t n = 0;
    unsigned value = sig < 0 ? 0u : static_cast<unsigned>(sig);
    do {
        digits[n++] = static_cast<char>('0' + value % 10);
        value /= 10;
    } while (value && n < sizeof digits);
    const char *head = "{\"type\":\"";
    const char *middle = "\",\"signal\":";
    const std::size_t need = std::strlen(head) + std::strlen(records::kSignal) + std::strlen(middle) + n + 2;
    if (need > size) return 0;
    std::size_t at = 0;
    for (const char *part : {head, records::kSignal, middle})
        for (const char *c = part; *c; ++c) buf[at++] = *c;
    while (n) buf[at++] = digits[--n];
    buf[at++] = '}';
    buf[at++] = '\n';
    return at;
}

void sink_write_signal(int sig) noexcept {
    const int fd = g_signal_fd.load();
    if (fd < 0 || g_signal_fd_owner.load() != getpid()) return;
    char line[64];
    const std::size_t n = signal_record(line, sizeof line, sig);
    if (n && write(fd, line, n) < 0) return;  // nothing more a handler can do
}

void sink_prepare_stack() noexcept {
    void *frame[1];
    backtrace(frame, 1);
}

void sink_write_stack() noexcept {
    if (g_signal_fd.load() < 0 || g_signal_fd_owner.load() != getpid() || !g_stack_path[0]) return;
    const int fd = open(g_stack_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return;
    void *frames[64];
    backtrace_symbols_fd(frames, backtrace(frames, 64), fd);
    close(fd);
}

}  // namespace gmexplain
