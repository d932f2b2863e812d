#include "http/access_log.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <stdexcept>

#include <fcntl.h>
#include <unistd.h>

namespace gmserver {

namespace {

int open_for_append(const std::string &path) {
    return ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
}

// A JSON string: quotes, backslashes and control characters escaped; bytes
// that are not UTF-8 are not checked (a method or address is ASCII).
void append_string(std::string &out, const std::string &s) {
    out += '"';
    for (unsigned char c : s) {
        if (c == '"') out += "\\\"";
        else if (c == '\\') out += "\\\\";
        else if (c < 0x20 || c == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else out += static_cast<char>(c);
    }
    out += '"';
}

void append_optional(std::string &out, const std::string &s) {
    if (s.empty()) out += "null";
    else append_string(out, s);
}

std::string utc_millis(std::chrono::system_clock::time_point t) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
    const std::time_t secs = static_cast<std::time_t>(ms / 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                  tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
    return buf;
}

}  // namespace

AccessLog::AccessLog(std::string path) : path_(path == "-" ? "" : std::move(path)) {
    if (path_.empty()) return;
    fd_ = open_for_append(path_);
    if (fd_ < 0) throw std::runtime_error("cannot open the access log " + path_ + ": " + std::strerror(errno));
}

AccessLog::~AccessLog() {
    if (fd_ != 2) ::close(fd_);
}

std::string AccessLog::line(const RequestRecord &r) {
    std::string out;
    out.reserve(256);
    out += "{\"time\":\"" + utc_millis(r.at) + "\",\"client\":";
    append_string(out, r.client);
    out += ",\"method\":";
    append_optional(out, r.method);
    out += ",\"route\":";
    append_optional(out, r.route);
    char buf[160];
    std::snprintf(buf, sizeof buf, ",\"status\":%d,\"bytes_in\":%llu,\"bytes_out\":%llu,\"ms\":%.3f", r.status,
                  static_cast<unsigned long long>(r.bytes_in), static_cast<unsigned long long>(r.bytes_out),
                  r.seconds * 1000.0);
    out += buf;
    out += ",\"submission_id\":";
    append_optional(out, r.submission_id);
    out += ",\"error\":";
    append_optional(out, r.error);
    if (r.aborted) {
        out += ",\"aborted\":true";
    } else if (!r.complete) {
        out += ",\"cut\":";
        append_string(out, r.cut.empty() ? "closed" : r.cut);
    }
    out += "}\n";
    return out;
}

void AccessLog::write(const RequestRecord &r) {
    if (r.probe) return;
    const std::string text = line(r);
    std::lock_guard<std::mutex> lock(mu_);
    // One write of the whole line; a short write (a full disk) drops the rest
    // of the line rather than blocking the I/O thread in a loop.
    const ssize_t n = ::write(fd_, text.data(), text.size());
    (void)n;
}

bool AccessLog::reopen(std::string *why) {
    if (path_.empty()) return true;
    const int fd = open_for_append(path_);
    if (fd < 0) {
        if (why) *why = std::string(std::strerror(errno)) + "; still writing to the file opened before";
        return false;
    }
    std::lock_guard<std::mutex> lock(mu_);
    ::close(fd_);
    fd_ = fd;
    return true;
}

}  // namespace gmserver
