// The access log: one JSON object per line and request, to stderr or a file.
//
//   {"time":"2025-03-01T12:00:00.123Z","client":"203.0.113.9","method":"POST",
//    "route":"/api/v1/results","status":201,"bytes_in":68745,"bytes_out":312,
//    "ms":8.214,"submission_id":"abc","error":null}
//
// An answer not written to its end adds "cut" with the reason
// ("send_too_slow", "closed", "drain"); a request whose client hung up
// before it had arrived in full has status 0 and "aborted":true.
// Made only from a RequestRecord (request_record.hpp): no tokens, no bodies,
// no query strings. Health probes are not written (a probe a second would be
// most of the file); they are counted in the metrics. A file is opened for
// appending and reopened on reopen() (SIGHUP, logrotate's convention): a
// rotated file is followed by a fresh one at the same path.
#pragma once

#include <mutex>
#include <string>

#include "http/request_record.hpp"

namespace gmserver {

class AccessLog {
public:
    // path "" or "-": stderr. Throws std::runtime_error when the file cannot
    // be opened for appending.
    explicit AccessLog(std::string path);
    ~AccessLog();
    AccessLog(const AccessLog &) = delete;
    AccessLog &operator=(const AccessLog &) = delete;

    // Writes the record's line (one write call: lines of concurrent requests
    // never interleave). Probes are skipped.
    void write(const RequestRecord &r);
    // Opens the path again and writes to the new file from now on. When it
    // cannot (the folder is gone, permissions), the previous file is kept and
    // *why says so. Always true for stderr.
    bool reopen(std::string *why);
    const std::string &path() const { return path_; }

    // The record's JSON line, with its newline.
    static std::string line(const RequestRecord &r);

private:
    const std::string path_;
    std::mutex mu_;
    int fd_ = 2;
};

}  // namespace gmserver
