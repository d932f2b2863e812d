// A request as the handlers see it (complete: headers and the whole, already
// decoded body) and the response they fill in. The transport (http_server.hpp)
// reads and writes these; the API and pages know nothing of sockets.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gmserver {

// Header names compare without regard to case, as HTTP defines them.
struct CaseInsensitiveLess {
    bool operator()(const std::string &a, const std::string &b) const;
};
using HeaderMap = std::map<std::string, std::string, CaseInsensitiveLess>;

struct HttpRequest {
    std::string method;       // "GET", "POST", ...
    std::string path;         // percent-decoded, without the query
    std::multimap<std::string, std::string> params;  // the query, decoded
    HeaderMap headers;
    std::string body;         // after Content-Encoding was undone
    std::string compressed_body;  // the body as received when it can be stored as it came (body_decoding.hpp), else ""
    std::string remote_addr;  // the TCP peer
    std::string local_addr;   // the address the connection came in on, "HOST:PORT" ("[V6]:PORT"); "" if unknown
    std::string client;       // the peer, or the address X-Forwarded-For names when the peer is a trusted proxy
    std::vector<std::string> matches;  // the route pattern's groups; [0] is the whole path

    bool has_header(const std::string &name) const { return headers.count(name) != 0; }
    // "" when absent.
    std::string header(const std::string &name) const;
    bool has_param(const std::string &name) const { return params.count(name) != 0; }
    // The first value of a query parameter; "" when absent.
    std::string param(const std::string &name) const;
};

struct HttpResponse {
    int status = 200;
    HeaderMap headers;
    std::string body;
    bool close = false;  // close the connection after this response
    // What the access log and the metrics say of this request (never sent):
    std::string route;          // the matched route's pattern; the router sets it
    std::string error;          // an error answer's code; send_error sets it
    std::string submission_id;  // an upload's submission id
    std::string outcome;        // what the handler did, in a word ("stored", "held", "duplicate")
    bool probe = false;         // a health probe: counted, not logged
    // A body too large to hold (an export): set instead of body. The transport
    // sends the headers with Transfer-Encoding: chunked, then calls stream on
    // the worker thread with a writer that sends one chunk and waits until it
    // is written (so memory stays constant), returning false once the client
    // is gone: the producer then stops. An exception from it closes the
    // connection without the closing chunk, so the client sees the cut.
    using Writer = std::function<bool(std::string_view)>;
    std::function<void(const Writer &)> stream;

    void set_content(std::string content, const std::string &content_type) {
        body = std::move(content);
        headers["Content-Type"] = content_type;
    }
    void set_header(const std::string &name, const std::string &value) { headers[name] = value; }
};

// "%41b+c" -> "Ab c" when plus_is_space (query strings), "Ab+c" otherwise.
// Malformed escapes are kept as they are.
std::string percent_decode(const std::string &s, bool plus_is_space);

// Splits "a=1&b=x%20y" into decoded pairs.
std::multimap<std::string, std::string> parse_query(const std::string &query);

// The reason phrase of a status code ("Not Found"), "Unknown" for others.
const char *status_reason(int status);

}  // namespace gmserver
