// What the transport knows of one request once its answer is written (or the
// connection ended without one): the access log and the request metrics are
// made from it. No request body, no header values (tokens travel in
// Authorization), no query string: nothing a client could hide a secret in
// beyond its address, method and the route pattern it matched.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace gmserver {

struct RequestRecord {
    std::chrono::system_clock::time_point at;  // when the answer was written
    std::string client;         // the peer, or the address X-Forwarded-For names when the peer is a trusted proxy
    std::string method;         // "" when no request line was read (a refused connection, a header timeout)
    std::string route;          // the matched route's pattern ("/api/v1/results/{}"); "unmatched"; "" without a request
    int status = 0;
    std::string error;          // the code of an error answer ("too_large", "rate_limited"), else ""
    std::uint64_t bytes_in = 0;   // request bytes read: headers and body as sent
    std::uint64_t bytes_out = 0;  // response bytes written: headers and body
    double seconds = 0;         // from the end of the request headers (or the accept) to the answer's last byte
    std::string submission_id;  // an upload's submission id, where the handler named one
    std::string outcome;        // what the handler did, in a word ("stored", "held", "duplicate"), else ""
    bool probe = false;         // a health probe (/healthz, /readyz): counted, not logged
    bool complete = true;       // false: the connection ended before the whole answer was written
    std::string cut;            // why not: "send_too_slow", "closed" (the client went away), "drain"
    bool aborted = false;       // the client hung up before its request had arrived in full: no answer (status 0)
};

// Called once per request, on an I/O thread; must not block.
using RequestObserver = std::function<void(const RequestRecord &)>;

}  // namespace gmserver
