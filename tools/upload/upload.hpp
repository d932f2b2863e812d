// Sending gmlab.run/1 documents to a gmlab-server: preparing what is made
// public, the HTTP transport with bounded retries, and the spool that keeps
// what could not be sent. Shared by gmlab-upload and `gmlab run --upload`.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gmupload {

// Exit codes of gmlab-upload (and of the upload step of gmlab run).
enum Exit { kOk = 0, kInvalid = 2, kRejected = 3, kUnavailable = 4 };

// ---- prepare.cpp ------------------------------------------------------------

// A document ready to send, and what was changed in it so that the user can
// be told (the --dry-run output lists these lines).
struct Prepared {
    nlohmann::json doc;
    std::vector<std::string> changes;
};

// Validates `doc` through the report library (every result checked by
// libgmlab; throws gmreport::ReportError naming `where`), then removes what
// identifies a machine rather than a GPU model (device uuid and PCI bus id,
// directories in the recorded command line) and adds a submission_id (the
// document's digest, document_id) unless the document already carries one.
Prepared prepare(const nlohmann::json &doc, const std::string &where);

// 32 lower-case hex digits, a digest of the document as it is sent: the
// server stores a submission id once, so the same run sent twice (a retry,
// or a file contributed again) is stored once.
std::string document_id(const nlohmann::json &doc);

// ---- transport.cpp ----------------------------------------------------------

struct SendOptions {
    std::string server;             // base URL: http://host:port[/prefix]
    bool insecure = false;          // skip TLS certificate and host name checks
    int retries = 5;                // further attempts after the first
    double timeout_s = 60;          // whole request
    double connect_timeout_s = 10;
    double backoff_s = 0.5;         // first delay; doubles per attempt, with jitter
    double max_delay_s = 60;        // no single wait longer; a longer Retry-After gives up
    std::ostream *log = nullptr;    // one line per failed attempt, if set
};

struct SendResult {
    enum Kind { Accepted, Rejected, Unavailable } kind = Unavailable;
    long http_status = 0;           // 0: no HTTP answer at all
    int attempts = 0;
    std::string id, url, delete_token;  // from a 2xx answer
    std::string gpu_url;            // the GPU model's page, when the server names it
    std::string message;            // why it was rejected or unavailable
};

// Checks that `server` is an http:// or https:// URL; returns "" or the reason.
std::string check_server_url(const std::string &server);

// The endpoint a document is POSTed to.
std::string results_endpoint(const std::string &server);

// gzip (RFC 1952) of `data`; throws std::runtime_error on failure.
std::string gzip(const std::string &data);

// One zstd frame (RFC 8878) of `data` at kZstdLevel, declaring its size;
// throws std::runtime_error on failure. A run document of the standard suite
// (430 KiB of JSON) becomes about 70 KiB, against 88 KiB of gzip, and the
// server decodes it in about two thirds of the time.
std::string zstd_frame(const std::string &data);
constexpr int kZstdLevel = 19;  // about 0.1 s for a standard run: once per upload

// POSTs the JSON text to results_endpoint(server) as one zstd frame
// (Content-Encoding: zstd), or as gzip when the server answers 415, retrying
// network errors, 5xx and 429 with exponential backoff and jitter, honouring
// Retry-After. Never throws for network or HTTP failures.
SendResult send(const std::string &json_text, const SendOptions &opt);

// ---- spool.cpp --------------------------------------------------------------

// $XDG_STATE_HOME/gmlab/spool, else ~/.local/state/gmlab/spool.
std::string default_spool_dir();

// Writes the prepared document as DIR/<submission_id>.json (creating DIR),
// atomically; returns the file's path. Throws std::runtime_error.
std::string spool_write(const std::string &dir, const nlohmann::json &doc);

// The spooled files, oldest name first ("" entries never; missing DIR: none).
std::vector<std::string> spool_list(const std::string &dir);

// ---- flow.cpp ---------------------------------------------------------------

// Sends a prepared document; on success prints the result URL and delete
// token to `out`; when the server stays unavailable writes it to the spool
// and says so on `err`. Returns an Exit code.
int upload(const Prepared &p, const SendOptions &opt, const std::string &spool_dir, std::ostream &out,
           std::ostream &err);

// upload() with everything a caller may keep: the server's answer, and where
// the document was spooled or why it could not be.
struct Delivery {
    int code = kUnavailable;
    SendResult sent;
    std::string spooled;      // the spool file, when the server was unavailable
    std::string spool_error;  // set when it could not be spooled either
};
Delivery deliver(const Prepared &p, const SendOptions &opt, const std::string &spool_dir, std::ostream &out,
                 std::ostream &err);

// Sends every spooled document (each keeps its submission_id); removes those
// the server accepted or rejected as invalid. Stops at the first one that
// cannot be delivered. Returns kOk, kRejected (some were rejected),
// kUnavailable (some are still spooled) or kInvalid (a spooled file is damaged).
int flush(const SendOptions &opt, const std::string &spool_dir, std::ostream &out, std::ostream &err);

// The --dry-run text: what is removed or added, then the exact document.
std::string dry_run_text(const Prepared &p, const SendOptions &opt);

}  // namespace gmupload
