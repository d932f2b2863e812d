#include "explain/inject/record_sink.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <mutex>

namespace gmexplain {

namespace {
std::mutex g_sink_mutex;
std::FILE *g_sink_file = nullptr;
pid_t g_sink_owner = 0;
std::string g_sink_dir, g_sink_pass;

void reopen_for_this_process() {
    // After fork() the child still holds the parent's FILE: it writes its own file.
    if (g_sink_file && g_sink_owner == getpid()) return;
    g_sink_owner = getpid();
    const std::string path = g_sink_dir + "/" + g_sink_pass + "-" + std::to_string(g_sink_owner) + ".jsonl";
    g_sink_file = std::fopen(path.c_str(), "a");
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
    if (g_sink_file) std::fclose(g_sink_file);
    g_sink_file = nullptr;
    g_sink_dir.clear();
}

void sink_flush() {
    std::lock_guard<std::mutex> lock(g_sink_mutex);
    if (g_sink_file) std::fflush(g_sink_file);
}

}  // namespace gmexplain
